import { FULLTEXT_WEIGHTS } from "../../engine/backend-kit";
import type { FulltextQuery } from "../../engine/backend-kit";
import type { FulltextHit, PartialScope, Props, Scope } from "../../engine/types";
import { isFullScope } from "../../engine/backend-kit";
import { ftsValues } from "./fts-values";
import { toRecord } from "./rows";
import { type FulltextPlan, type TermStats, ftsPhrase, planFulltext, queryTerms } from "./fts-query";
import { FTS_COLUMNS, ORG_EXPR, STATUS_EXPR, USER_EXPR, type NodeRow } from "./schema";
import type { SqlValue, SqliteConnection } from "./sqlite-connection";

/** A `nodes` row with its bm25 rank (lower is better, as FTS5 returns it). */
export interface RankedNodeRow extends NodeRow {
	rank: number;
}

export interface Ranked {
	rowid: number;
	rank: number;
}

/** The planner's sizes (tests shrink them to exercise every path on a small index). */
export interface FulltextTuning {
	/** Below this many documents ranking every match costs a few milliseconds: no planning. */
	readonly rankAllBelow: number;
	/** Postings of a query's rarest words scored exactly (bm25 ≈ 7 µs per scored document in WASM). */
	readonly budget: number;
	/** Documents scored per pass over common words: the most recent ones that match. */
	readonly commonWindow: number;
	/** A label filter with at most this many nodes in the scope scores only those nodes. */
	readonly fewLabelled: number;
}

export const DEFAULT_FULLTEXT_TUNING: FulltextTuning = { rankAllBelow: 4000, budget: 1000, commonWindow: 1000, fewLabelled: 3000 };
/** Cached frequencies may be up to STATS_TTL_MS old: bounds get this much slack. */
const BOUND_SLACK = 1.05;
/** Word pairs tried by the "two of the words" pass (six words make 15). */
const MAX_PAIRS = 15;
const STATS_TTL_MS = 30_000;
const STATS_CACHE_MAX = 10_000;

const SCOPE_WHERE = `${ORG_EXPR.replace("props", "n.props")} = ? AND ${USER_EXPR.replace("props", "n.props")} = ?`;
const LIVE = `${STATUS_EXPR.replace("props", "n.props")} != 'archived'`;
const NODE_COLS = "n.id, n.label, n.key_field, n.key_value, n.props, n.created_at, n.updated_at";

/** The rank expression of every fulltext query (exported for the benchmark's exhaustive reference). */
export const BM25 = `bm25(nodes_fts, ${FTS_COLUMNS.map((c) => FULLTEXT_WEIGHTS[c]).join(", ")})`;

/** An FTS5 table the planner ranks: its name, its fts5vocab view, its rank expression and its row count. */
export interface FtsTable {
	readonly fts: string;
	readonly vocab: string;
	readonly bm25: string;
	readonly count: string;
}

export const NODES_FTS: FtsTable = { fts: "nodes_fts", vocab: "nodes_fts_vocab", bm25: BM25, count: "SELECT count(*) AS n FROM nodes" };

/** Ranked rowids of an FTS table for a query; `complete`: every match was scored and fits the window. */
export interface RankedIds {
	readonly ranked: readonly Ranked[];
	readonly complete: boolean;
}

const byRank = (a: Ranked, b: Ranked) => a.rank - b.rank || b.rowid - a.rowid;

/**
 * Fulltext search over `nodes_fts` (FTS5, bm25 with column weights), planned so that a query of
 * common words does not score every document that holds one (see `planFulltext`).
 */
export class SqliteFulltext {
	private docCount: { n: number; at: number } | undefined;
	private stats = new Map<string, TermStats>();

	constructor(
		private readonly conn: SqliteConnection,
		private readonly tuning: FulltextTuning = DEFAULT_FULLTEXT_TUNING,
		private readonly table: FtsTable = NODES_FTS,
	) {}

	/**
	 * The best `window` rowids of the table for the query's terms (planned as `search` plans them),
	 * for tables whose rows are filtered by their caller (passages).
	 */
	rankTerms(terms: readonly string[], prefix: boolean, window: number, limit: number): RankedIds {
		if (terms.length === 0) return { ranked: [], complete: true };
		const total = this.documentCount();
		if (total < this.tuning.rankAllBelow) {
			const ranked = this.rank(terms.map((t) => ftsPhrase(t, prefix)).join(" OR "), window);
			return { ranked, complete: ranked.length < window };
		}
		return this.rankPlanned(planFulltext(terms, this.termStats(terms, prefix), total, this.tuning.budget, prefix), window, limit);
	}

	/** The best-ranked live nodes of the scope for `query`, best first. */
	search(scope: Scope, query: FulltextQuery): RankedNodeRow[] {
		const terms = queryTerms(query.text);
		if (terms.length === 0) return [];
		const prefix = query.prefix ?? false;
		const labels = query.labels ?? [];
		const all = terms.map((t) => ftsPhrase(t, prefix)).join(" OR ");
		// Rank inside FTS first and filter a bounded window: scope and status checks then touch a few
		// hundred rows, not every match.
		const window = Math.min(1000, Math.max(200, query.limit * 10));
		const total = this.documentCount();
		let ranked: Ranked[];
		let complete: boolean;
		const few = labels.length > 0 && total >= this.tuning.rankAllBelow ? this.fewLabelled(scope, labels) : undefined;
		if (few) {
			// A rare label (Insight): score only its documents, within their rowid span.
			ranked = this.conn.all<Ranked>(
				`SELECT rowid, ${BM25} AS rank FROM nodes_fts WHERE nodes_fts MATCH ? AND rowid BETWEEN ? AND ?
				AND +rowid IN (SELECT id FROM nodes WHERE ${ORG_EXPR} = ? AND ${USER_EXPR} = ? AND label IN (${labels.map(() => "?").join(", ")}))
				ORDER BY rank LIMIT ?`,
				[all, few.lo, few.hi, scope.orgId, scope.userId, ...labels, window],
			);
			complete = ranked.length < window;
		} else if (total < this.tuning.rankAllBelow) {
			ranked = this.rank(all, window);
			complete = ranked.length < window;
		} else {
			({ ranked, complete } = this.rankPlanned(planFulltext(terms, this.termStats(terms, prefix), total, this.tuning.budget, prefix), window, query.limit));
		}
		const rows = this.rowsOf(ranked, scope, labels, query.limit);
		if (rows.length >= query.limit || complete) return rows;
		// The window was mostly other scopes, archived nodes or other labels: rank every match.
		return this.rankFiltered(all, scope, labels, query.limit);
	}

	/**
	 * Scores for the documents the plan bounds (at most ≈ budget + 2 × commonWindow), best first.
	 * Scores are those of ranking every match with the query's weighted phrases (weightless ones add
	 * at most 2.2e-6 each and are left out). `complete`: every match of the query was scored and fits
	 * the window, so filters that leave fewer than `limit` rows leave nothing else to find.
	 */
	private rankPlanned(plan: FulltextPlan, window: number, limit: number): { ranked: Ranked[]; complete: boolean } {
		const scores = new Map<number, number>();
		const { rare, common, weightless } = plan;
		// Each pass hands over only its best `window` rows (plus the rows already scored, which it
		// skips): the rest cannot reach the final window, and moving rows into JS costs more than
		// SQLite's sort. A pass cut short means the window may not hold every match.
		let cut = false;
		if (rare.length > 0) {
			const rareMatch = rare.join(" OR ");
			// Each rare document is scored once, by an expression holding every weighted phrase once
			// (bm25 adds a term for each phrase present in the row): NOT for rows without a common
			// word, AND for rows with one.
			const passes = common.length === 0 ? [rareMatch] : [`(${rareMatch}) NOT (${common.join(" OR ")})`, `(${rareMatch}) AND (${common.join(" OR ")})`];
			for (const match of passes) {
				const rows = this.rank(match, window);
				cut ||= rows.length >= window;
				for (const r of rows) scores.set(r.rowid, r.rank);
			}
			// A document without a rare word scores at most commonBound: if the rare pass already has
			// `limit` documents above it, the top `limit` is exact.
			const best = [...scores.values()].sort((a, b) => a - b);
			const others = common.length + weightless.length;
			if (others === 0 || (best.length >= limit && -best[limit - 1] > plan.commonBound * BOUND_SLACK)) {
				return { ranked: this.top(scores, window), complete: others === 0 && !cut && scores.size <= window };
			}
		}
		const pool = common.length > 0 ? common : weightless;
		let everyMatch = false;
		if (pool.length > 0) {
			// AND first: documents holding every common word; then documents holding two of them; the
			// OR pass fills when they are too few.
			const recent = (match: string) => {
				const pass = this.addRecent(scores, match, window);
				cut ||= pass.cut;
				return pass;
			};
			let found = pool.length > 1 ? recent(pool.join(" AND ")).rows : 0;
			if (pool.length > 2 && found < window) {
				const pairs = this.addRecentPairs(scores, pool, window);
				cut ||= pairs.cut;
				found += pairs.added;
			}
			if (pool.length === 1 || found < window) {
				everyMatch = recent(pool.join(" OR ")).all && (common.length === 0 || weightless.length === 0);
			}
		}
		return { ranked: this.top(scores, window), complete: everyMatch && !cut && scores.size <= window };
	}

	/**
	 * Scores the `commonWindow` most recent documents matching `match` (rows already scored keep their
	 * score) and keeps the best `window` new ones. `all`: that was every match; `rows`: how many of
	 * them it read (at most window + the rows already scored); `cut`: more were left out.
	 */
	private addRecent(scores: Map<number, number>, match: string, window: number): { rows: number; all: boolean; cut: boolean } {
		const floor = this.conn.get<{ rowid: number }>(
			`SELECT rowid FROM ${this.table.fts} WHERE ${this.table.fts} MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET ?`,
			[match, this.tuning.commonWindow - 1],
		);
		const cap = window + scores.size;
		const rows = this.conn.all<Ranked>(`SELECT rowid, ${this.table.bm25} AS rank FROM ${this.table.fts} WHERE ${this.table.fts} MATCH ? AND rowid >= ? ORDER BY rank LIMIT ?`, [
			match,
			floor?.rowid ?? 0,
			cap,
		]);
		for (const r of rows) if (!scores.has(r.rowid)) scores.set(r.rowid, r.rank);
		return { rows: rows.length, all: !floor, cut: rows.length >= cap };
	}

	/**
	 * Scores the `commonWindow` most recent documents holding at least two of `pool`'s words. Pairs
	 * repeat phrases, so they only select rows; the score comes from the plain OR of the words.
	 */
	private addRecentPairs(scores: Map<number, number>, pool: readonly string[], window: number): { added: number; cut: boolean } {
		const pairs: string[] = [];
		for (let i = 0; i < pool.length && pairs.length < MAX_PAIRS; i++) {
			for (let j = i + 1; j < pool.length && pairs.length < MAX_PAIRS; j++) pairs.push(`(${pool[i]} AND ${pool[j]})`);
		}
		// The most recent members, read once: matching the pairs again inside the ranking query cost
		// as much as reading them (≈40 ms of a 13-word query at 10k notes in WASM).
		const size = Math.max(1, this.tuning.commonWindow);
		const members = this.conn.all<{ rowid: number }>(`SELECT rowid FROM ${this.table.fts} WHERE ${this.table.fts} MATCH ? ORDER BY rowid DESC LIMIT ?`, [
			pairs.join(" OR "),
			size,
		]);
		const from = members.length >= size ? members[members.length - 1].rowid : 0;
		const cap = window + scores.size;
		const rows = this.conn.all<Ranked>(
			`SELECT rowid, ${this.table.bm25} AS rank FROM ${this.table.fts} WHERE ${this.table.fts} MATCH ? AND rowid >= ?
			AND +rowid IN (SELECT value FROM json_each(?)) ORDER BY rank LIMIT ?`,
			[pool.join(" OR "), from, JSON.stringify(members.map((m) => m.rowid)), cap],
		);
		let added = 0;
		for (const r of rows) {
			if (scores.has(r.rowid)) continue;
			scores.set(r.rowid, r.rank);
			added++;
		}
		return { added, cut: rows.length >= cap };
	}

	private top(scores: Map<number, number>, window: number): Ranked[] {
		return [...scores].map(([rowid, rank]) => ({ rowid, rank })).sort(byRank).slice(0, window);
	}

	private rank(match: string, limit: number): Ranked[] {
		return this.conn.all<Ranked>(`SELECT rowid, ${this.table.bm25} AS rank FROM ${this.table.fts} WHERE ${this.table.fts} MATCH ? ORDER BY rank LIMIT ?`, [match, limit]);
	}

	/** The live nodes of the scope (and labels) among `ranked`, in rank order: read a chunk at a time. */
	private rowsOf(ranked: readonly Ranked[], scope: Scope, labels: readonly string[], limit: number): RankedNodeRow[] {
		const labelFilter = labels.length > 0 ? ` AND n.label IN (${labels.map(() => "?").join(", ")})` : "";
		const out: RankedNodeRow[] = [];
		const chunk = Math.max(2 * limit, 50);
		for (let start = 0; start < ranked.length && out.length < limit; start += chunk) {
			const part = ranked.slice(start, start + chunk);
			// CROSS JOIN from the ids: otherwise the planner may walk the scope index (every node of the
			// scope) and test each against the list.
			const rows = this.conn.all<Omit<RankedNodeRow, "rank">>(
				`SELECT ${NODE_COLS} FROM json_each(?) j CROSS JOIN nodes n ON n.id = j.value WHERE ${SCOPE_WHERE} AND ${LIVE}${labelFilter}`,
				[JSON.stringify(part.map((r) => r.rowid)), scope.orgId, scope.userId, ...labels],
			);
			const byId = new Map(rows.map((row) => [row.id, row]));
			for (const r of part) {
				const row = byId.get(r.rowid);
				if (row && out.length < limit) out.push({ ...row, rank: r.rank });
			}
		}
		return out;
	}

	/** Every match ranked, then filtered: the slow path for windows that the filters emptied. */
	private rankFiltered(match: string, scope: Scope, labels: readonly string[], limit: number): RankedNodeRow[] {
		const labelFilter = labels.length > 0 ? ` AND n.label IN (${labels.map(() => "?").join(", ")})` : "";
		// CROSS JOIN keeps FTS first: otherwise the planner walks every node of the scope (by the scope
		// index) and probes the matches, which costs O(scope) per search.
		return this.conn.all<RankedNodeRow>(
			`SELECT ${NODE_COLS}, f.rank AS rank
			FROM (SELECT rowid, ${BM25} AS rank FROM nodes_fts WHERE nodes_fts MATCH ? ORDER BY rank) f
			CROSS JOIN nodes n ON n.id = f.rowid
			WHERE ${SCOPE_WHERE} AND ${LIVE}${labelFilter}
			ORDER BY f.rank LIMIT ?`,
			[match, scope.orgId, scope.userId, ...labels, limit],
		);
	}

	/** The rowid span of the scope's nodes with these labels, when they are few enough to score them all. */
	private fewLabelled(scope: Scope, labels: readonly string[]): { lo: number; hi: number } | undefined {
		const row = this.conn.get<{ n: number; lo: number | null; hi: number | null }>(
			`SELECT count(*) AS n, min(id) AS lo, max(id) AS hi FROM nodes WHERE ${ORG_EXPR} = ? AND ${USER_EXPR} = ? AND label IN (${labels.map(() => "?").join(", ")})`,
			[scope.orgId, scope.userId, ...labels],
		);
		if (!row || Number(row.n) > this.tuning.fewLabelled) return undefined;
		return { lo: Number(row.lo ?? 0), hi: Number(row.hi ?? -1) };
	}

	/**
	 * Documents of the index and how many hold each token (fts5vocab, cached with the planner's
	 * stats), by the token asked. A token is in the index's form: unicode61 folds Latin accents.
	 */
	termDocuments(tokens: readonly string[]): { documents: number; counts: Map<string, number> } {
		const documents = this.documentCount();
		const stats = this.termStats(tokens, false);
		return { documents, counts: new Map(tokens.map((t) => [t, stats.get(t)?.docs ?? 0])) };
	}

	/** Postings and documents per query word, from the FTS index itself (fts5vocab), cached briefly. */
	private termStats(terms: readonly string[], prefix: boolean): Map<string, TermStats> {
		const out = new Map<string, TermStats>();
		for (const term of terms) {
			const phrase = ftsPhrase(term, prefix);
			let stat = this.stats.get(phrase);
			if (!stat) {
				// fts5vocab counts a word's documents by reading its postings: worth caching for common words.
				const row = term.includes(" ")
					? this.phraseStats(term)
					: phrase.endsWith("*")
					? this.conn.get<{ postings: number; docs: number }>(
							`SELECT coalesce(sum(doc), 0) AS postings, coalesce(max(doc), 0) AS docs FROM ${this.table.vocab} WHERE term >= ? AND term <= ?`,
							[term, `${term}\u{10FFFF}`],
						)
					: this.conn.get<{ postings: number; docs: number }>(`SELECT doc AS postings, doc AS docs FROM ${this.table.vocab} WHERE term = ?`, [term]);
				stat = { postings: Number(row?.postings ?? 0), docs: Number(row?.docs ?? 0) };
				if (this.stats.size >= STATS_CACHE_MAX) this.stats.clear();
				this.stats.set(phrase, stat);
			}
			out.set(term, stat);
		}
		return out;
	}

	/**
	 * A phrase of several tokens ("数据 据库"): FTS5 reads every token's postings; how many documents
	 * hold the whole phrase is unknown, so its lower bound is 0 (it is never weightless).
	 */
	private phraseStats(term: string): { postings: number; docs: number } {
		let postings = 0;
		for (const token of term.split(" ")) {
			postings += Number(this.conn.get<{ doc: number }>(`SELECT doc FROM ${this.table.vocab} WHERE term = ?`, [token])?.doc ?? 0);
		}
		return { postings, docs: 0 };
	}

	/** Documents in the index (all scopes: what bm25's idf counts), refreshed every STATS_TTL_MS with the word stats. */
	private documentCount(): number {
		const now = Date.now();
		if (!this.docCount || now - this.docCount.at > STATS_TTL_MS) {
			const n = Number(this.conn.get<{ n: number }>(this.table.count)?.n ?? 0);
			this.docCount = { n, at: now };
			this.stats.clear();
		}
		return this.docCount.n;
	}
}

// --- The store's fulltext role (FulltextStore) and the fulltext rows its writes keep in step ---

/**
 * Replaces a node's fulltext row; `fresh`: the row id was just inserted, there is no old row. A
 * stored row that already holds these values is left alone (sync's bookkeeping updates, such as
 * a note's new hash and mtime, change no searchable text): rewriting it costs an FTS5 delete and
 * insert, and inside a transaction every later savepoint flushes it as a segment of its own.
 */
export function writeFts(ctx: { readonly conn: SqliteConnection }, rowId: number, props: Props, fresh = false): void {
	const values = ftsValues(props);
	if (!fresh) {
		const stored = ctx.conn.get<Record<string, SqlValue>>(`SELECT ${FTS_COLUMNS.join(", ")} FROM nodes_fts WHERE rowid = ?`, [rowId]);
		if (stored && FTS_COLUMNS.every((column, i) => stored[column] === values[i])) return;
		if (stored) ctx.conn.run("DELETE FROM nodes_fts WHERE rowid = ?", [rowId]);
	}
	ctx.conn.run(
		`INSERT INTO nodes_fts(rowid, ${FTS_COLUMNS.join(", ")}) VALUES (?, ${FTS_COLUMNS.map(() => "?").join(", ")})`,
		[rowId, ...values],
	);
}

export async function fulltext(ctx: { readonly fulltextIndex: SqliteFulltext }, scope: PartialScope, query: FulltextQuery): Promise<readonly FulltextHit[]> {
	if (!isFullScope(scope)) return [];
	// bm25 is lower-is-better and negative; flip it so higher is better.
	return ctx.fulltextIndex.search(scope, query).map((row) => ({ node: toRecord(row), score: -Number(row.rank) }));
}
