import type { FulltextQuery } from "../../engine/protocols";
import type { Scope } from "../../engine/types";
import { fts5Query, queryTerms } from "./fts-query";
import { FTS_COLUMNS, ORG_EXPR, STATUS_EXPR, USER_EXPR } from "./schema";
import type { SqliteConnection } from "./wasm/sqlite-connection";

/** A `nodes` row with its bm25 rank (lower is better, as FTS5 returns it). */
export interface RankedNodeRow {
	id: number;
	label: string;
	key_field: string;
	key_value: string;
	props: string;
	created_at: string;
	updated_at: string;
	rank: number;
}

const COMMON_TERM_FLOOR = 200;
const SCOPE_WHERE = `${ORG_EXPR.replace("props", "n.props")} = ? AND ${USER_EXPR.replace("props", "n.props")} = ?`;
const LIVE = `${STATUS_EXPR.replace("props", "n.props")} != 'archived'`;

// bm25 weights per FTS column: names and titles first, then tags and summaries.
const BM25_WEIGHTS: Readonly<Record<(typeof FTS_COLUMNS)[number], number>> = {
	name: 8,
	title: 8,
	description: 3,
	notes: 1,
	rationale: 1,
	solution: 1,
	context: 1,
	body: 1,
	summary: 2,
	tags: 4,
};

/** Fulltext search over `nodes_fts` (FTS5, bm25), planned so common words stay cheap. */
export class SqliteFulltext {
	private docCount: { n: number; at: number } | undefined;

	constructor(private readonly conn: SqliteConnection) {}

	/** The best-ranked live nodes of the scope for `query`, best first. */
	search(scope: Scope, query: FulltextQuery): RankedNodeRow[] {
		// Below a few thousand documents ranking every match is cheaper than looking up frequencies.
		const threshold = this.commonTermThreshold();
		const match =
			threshold > COMMON_TERM_FLOOR
				? fts5Query(query.text, this.docFrequencies(queryTerms(query.text)), threshold, query.prefix)
				: fts5Query(query.text, undefined, Infinity, query.prefix);
		if (!match) return [];
		const labels = query.labels ?? [];
		const labelFilter = labels.length > 0 ? ` AND n.label IN (${labels.map(() => "?").join(", ")})` : "";
		const weights = FTS_COLUMNS.map((c) => BM25_WEIGHTS[c]).join(", ");
		// Rank inside FTS first and filter a bounded window: scope and status checks then touch a few
		// hundred rows, not every match. When the window is all filtered away, rank everything.
		// CROSS JOIN keeps that order: otherwise the planner walks every node of the scope (by the
		// scope index) and probes the matches, which costs O(scope) per search.
		const window = Math.min(1000, Math.max(200, query.limit * 10));
		const run = (inner: number) =>
			this.conn.all<RankedNodeRow>(
				`SELECT n.id, n.label, n.key_field, n.key_value, n.props, n.created_at, n.updated_at, f.rank AS rank
				FROM (SELECT rowid, bm25(nodes_fts, ${weights}) AS rank FROM nodes_fts WHERE nodes_fts MATCH ? ORDER BY rank LIMIT ?) f
				CROSS JOIN nodes n ON n.id = f.rowid
				WHERE ${SCOPE_WHERE} AND ${LIVE}${labelFilter}
				ORDER BY f.rank LIMIT ?`,
				[match, inner, scope.orgId, scope.userId, ...labels, query.limit],
			);
		let rows = run(window);
		if (rows.length < query.limit) rows = run(-1);
		return rows;
	}

	/** Documents per term, from the FTS index itself (fts5vocab): a few index lookups. */
	private docFrequencies(terms: readonly string[]): Map<string, number> {
		const out = new Map<string, number>();
		for (const term of terms) {
			const row = this.conn.get<{ doc: number }>("SELECT doc FROM nodes_fts_vocab WHERE term = ?", [term]);
			out.set(term, Number(row?.doc ?? 0));
		}
		return out;
	}

	/** A word in more than 5% of documents (and over COMMON_TERM_FLOOR) is "common" for query planning. */
	private commonTermThreshold(): number {
		const now = Date.now();
		if (!this.docCount || now - this.docCount.at > 30_000) {
			const n = Number(this.conn.get<{ n: number }>("SELECT count(*) AS n FROM nodes")?.n ?? 0);
			this.docCount = { n, at: now };
		}
		return Math.max(COMMON_TERM_FLOOR, this.docCount.n * 0.05);
	}
}
