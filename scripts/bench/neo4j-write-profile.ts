// Where one acknowledged write's time goes on Neo4j: per write, each statement's time to answer
// and the COMMIT's (where Lucene and the other indexes are updated), then a PROFILE of each
// distinct statement of the last write (run again in a rolled-back transaction) with its costliest
// operators. Used by neo4j-scale.ts --profile-writes.
import type { Neo4jConnection, TracedStatement } from "../../src/backends/neo4j/neo4j-connection";
import { fmt, percentile } from "./stats";

interface Traced {
	readonly totalMs: number;
	readonly roundTrips: number;
	readonly statements: readonly TracedStatement[];
	readonly commitsMs: readonly number[];
}

const firstLine = (query: string) => query.trim().replace(/\s+/g, " ").slice(0, 90);

export class WriteProfiler {
	private readonly writes: Traced[] = [];

	constructor(private readonly conn: Neo4jConnection) {}

	start(): void {
		this.conn.trace = "full";
		this.conn.resetCounts();
	}

	stop(totalMs: number): void {
		const c = this.conn.resetCounts();
		this.conn.trace = false;
		this.writes.push({ totalMs, roundTrips: c.roundTrips, statements: c.statementsRun, commitsMs: c.commitsMs });
	}

	/** The table of statements by position (median over the writes) and the last write's PROFILEs. */
	async report(): Promise<string> {
		const last = this.writes[this.writes.length - 1];
		if (!last) return "";
		const lines = [
			`\nOne write, ${this.writes.length} times: p50 ${fmt(percentile(this.writes.map((w) => w.totalMs), 50))}, ${last.statements.length} statements, ${last.commitsMs.length} commits, ${last.roundTrips} round trips`,
			"| # | statement | p50 | p95 |",
			"|---:|---|---:|---:|",
		];
		const same = this.writes.filter((w) => w.statements.length === last.statements.length);
		last.statements.forEach((s, i) => {
			const ms = same.map((w) => w.statements[i].ms ?? 0);
			lines.push(`| ${i + 1} | ${firstLine(s.query)} | ${fmt(percentile(ms, 50))} | ${fmt(percentile(ms, 95))} |`);
		});
		const commits = same.flatMap((w) => w.commitsMs);
		lines.push(`| | COMMIT (each) | ${fmt(percentile(commits, 50))} | ${fmt(percentile(commits, 95))} |`);
		const statementsMs = same.map((w) => w.statements.reduce((sum, s) => sum + (s.ms ?? 0), 0) + w.commitsMs.reduce((a, b) => a + b, 0));
		lines.push(`| | statements + commits | ${fmt(percentile(statementsMs, 50))} | ${fmt(percentile(statementsMs, 95))} |`);
		const seen = new Set<string>();
		for (const s of last.statements) {
			if (seen.has(s.query)) continue;
			seen.add(s.query);
			const ops = await this.conn.profile(s.query, s.params);
			const hits = ops.reduce((sum, op) => sum + op.dbHits, 0);
			lines.push(`\nPROFILE ${firstLine(s.query)}: ${hits} db hits`);
			for (const op of [...ops].sort((a, b) => b.dbHits - a.dbHits).slice(0, 4)) {
				lines.push(`  ${op.operator} ${op.dbHits} hits, ${op.rows} rows${op.details ? `: ${op.details.slice(0, 100)}` : ""}`);
			}
		}
		return lines.join("\n");
	}
}
