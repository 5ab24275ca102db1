import type { Neo4jStoreContext } from "./store-context";
import { FT_COLUMNS, FT_LENGTH_PROPERTY, FT_SCOPE_PROPERTY, ftProperty, fulltextProperties, nodeScopeWords } from "./fts-query";
import { decodeProps } from "./props-codec";
import { int } from "./rows";
import { NODE_LABEL, PASSAGE_LABEL } from "./schema";
import { TERM_LABEL, columnList, countTerms } from "./term-counts";
import type { FtCorpusName } from "./store-context";

/**
 * The fulltext format of a namespace's nodes, kept in its settings under a key listMeta leaves
 * out (it describes this store, not the memory): 2 = words of every script (engine/search/words.ts:
 * Han, kana and Hangul as pairs, Thai, Lao, Khmer and Myanmar by word) and unicode61's tokens
 * (a lone combining mark separates, only Latin letters lose their diacritics). Nodes written
 * before hold a whole run of those scripts as one token, which no query finds. 3 = every node
 * carries its memory's, scope's and label's words (`__ft_scope`), which the node fulltext index
 * keeps to. 4 = an item's own day as words in body (engine/node-text.ts itemDay): nodes with a
 * valid_from written before lack it. 5 = bm25's document frequencies kept as counts (term-counts.ts):
 * a memory written before has none, so they are counted afresh. 6 = a node's aliases list in body
 * (engine/node-text.ts extraFulltext): nodes with aliases written before lack their names.
 */
export const FULLTEXT_VERSION = 6;
export const FULLTEXT_VERSION_KEY = "__fulltext_version";

/** Nodes re-indexed per statement. */
const PAGE = 1000;

// Only words with a character outside ASCII can have changed (Java regex, as a parameter).
const NON_ASCII = "(?s).*[^\\x00-\\x7F].*";
const HOLDS_NON_ASCII = `any(c IN [${FT_COLUMNS.map((c) => `n.${ftProperty(c)}`).join(", ")}] WHERE c =~ $nonAscii)`;
// Only items with a date can lack their day's words (version 4).
const HOLDS_DATE = "n.valid_from IS NOT NULL";
// Only nodes with aliases can lack their names (version 6).
const HOLDS_ALIASES = "n.aliases IS NOT NULL";

/** The nodes whose columns can differ from what writes make now, by the format they were written in. */
function affected(stored: number): string {
	if (stored < 2) return `(${HOLDS_NON_ASCII} OR ${HOLDS_DATE} OR ${HOLDS_ALIASES})`;
	return stored < 5 ? `(${HOLDS_DATE} OR ${HOLDS_ALIASES})` : HOLDS_ALIASES;
}

/**
 * Rewrites the fulltext columns of the nodes written before FULLTEXT_VERSION as writes make them
 * now. Only the derived __ft_ properties change (a node's props, vectors, relations and passages
 * are not touched), page by page, each page its own transaction: an interrupted upgrade is
 * finished at the next open, since the version is recorded last. Returns the nodes rewritten.
 */
export async function upgradeFulltext(ctx: Neo4jStoreContext): Promise<number> {
	const meta = await ctx.conn.read(
		(q) => q.run("MATCH (m:EngramaMeta {__ns: $ns, key: $key}) RETURN m.value AS value", { ns: ctx.namespace, key: FULLTEXT_VERSION_KEY }),
		"read the fulltext format",
	);
	const version = Number(meta[0]?.value ?? 0);
	if (version >= FULLTEXT_VERSION) return 0;
	const rewritten = await rewriteWords(ctx, version);
	const scoped = version < 3 ? await addScopeWords(ctx) : 0;
	await recountTerms(ctx, "nodes");
	await recountTerms(ctx, "passages");
	await ctx.write(
		(q) =>
			q.run("MERGE (m:EngramaMeta {__ns: $ns, key: $key}) SET m.value = $value", {
				ns: ctx.namespace,
				key: FULLTEXT_VERSION_KEY,
				value: String(FULLTEXT_VERSION),
			}),
		"record the fulltext format",
	);
	return rewritten + scoped;
}

/** Formats 2, 4 and 6: the words of the nodes that can differ (affected), rewritten as writes make them now. */
async function rewriteWords(ctx: Neo4jStoreContext, stored: number): Promise<number> {
	let rewritten = 0;
	let after = -1;
	for (;;) {
		const rows = await ctx.conn.read(
			(q) =>
				q.run(
					`MATCH (n:${NODE_LABEL}) WHERE n.__ns = $ns AND n.__seq > $after AND ${affected(stored)}
					RETURN elementId(n) AS eid, n.__seq AS seq, n {.*, embedding: null} AS node ORDER BY n.__seq LIMIT $page`,
					{ ns: ctx.namespace, after, page: int(PAGE), ...(stored < 2 ? { nonAscii: NON_ASCII } : {}) },
				),
			"find nodes to re-index",
		);
		const changed = rows.flatMap((row) => {
			const stored = row.node as Record<string, unknown>;
			const ft = fulltextProperties(decodeProps(stored));
			const same = [...FT_COLUMNS.map(ftProperty), FT_LENGTH_PROPERTY].every((p) => (stored[p] ?? null) === (ft[p] ?? null));
			return same ? [] : [{ eid: String(row.eid), ft }];
		});
		if (changed.length > 0) {
			await ctx.write((q) => q.run("UNWIND $rows AS row MATCH (n) WHERE elementId(n) = row.eid SET n += row.ft", { rows: changed }), "re-index words");
			rewritten += changed.length;
		}
		if (rows.length < PAGE) break;
		after = Number(rows[rows.length - 1].seq);
	}
	return rewritten;
}

/** Format 3: the scope words of the nodes that lack them, page by page (a page is one read and one write). */
async function addScopeWords(ctx: Neo4jStoreContext): Promise<number> {
	let added = 0;
	let after = -1;
	for (;;) {
		const rows = await ctx.conn.read(
			(q) =>
				q.run(
					`MATCH (n:${NODE_LABEL}) WHERE n.__ns = $ns AND n.__seq > $after
					RETURN elementId(n) AS eid, n.__seq AS seq, n.org_id AS org, n.user_id AS user, n.__label AS label, n.${FT_SCOPE_PROPERTY} AS words
					ORDER BY n.__seq LIMIT $page`,
					{ ns: ctx.namespace, after, page: int(PAGE) },
				),
			"find nodes without scope words",
		);
		const changed = rows.flatMap((row) => {
			const words = nodeScopeWords(ctx.namespace, String(row.org), String(row.user), String(row.label));
			return row.words === words ? [] : [{ eid: String(row.eid), words }];
		});
		if (changed.length > 0) {
			await ctx.write(
				(q) => q.run(`UNWIND $rows AS row MATCH (n) WHERE elementId(n) = row.eid SET n.${FT_SCOPE_PROPERTY} = row.words`, { rows: changed }),
				"add scope words",
			);
			added += changed.length;
		}
		if (rows.length < PAGE) break;
		after = Number(rows[rows.length - 1].seq);
	}
	return added;
}

/**
 * Format 5: the term counts of a corpus counted afresh from its documents' stored columns (any
 * counts there were are dropped first), a page of documents per statement.
 */
async function recountTerms(ctx: Neo4jStoreContext, corpus: FtCorpusName): Promise<void> {
	const label = corpus === "nodes" ? NODE_LABEL : PASSAGE_LABEL;
	for (;;) {
		const rows = await ctx.write(
			(q) => q.run(`MATCH (t:${TERM_LABEL} {__ns: $ns, corpus: $corpus}) WITH t LIMIT $page DELETE t RETURN count(*) AS n`, { ns: ctx.namespace, corpus, page: int(10 * PAGE) }),
			"drop the term counts",
		);
		if (Number(rows[0]?.n ?? 0) < 10 * PAGE) break;
	}
	let after = -1;
	for (;;) {
		const rows = await ctx.write(
			(q) =>
				q.run(
					`MATCH (d:${label}) WHERE d.__ns = $ns AND d.__seq > $after
					WITH d ORDER BY d.__seq LIMIT $page
					WITH collect({new: ${columnList(corpus, "d")}, newLen: d.__ft_len}) AS ftDocs, max(d.__seq) AS last, count(d) AS n
					${countTerms(corpus)}
					RETURN last, n`,
					{ ns: ctx.namespace, after, page: int(PAGE) },
				),
			"count the terms",
		);
		if (Number(rows[0]?.n ?? 0) < PAGE) return;
		after = Number(rows[0].last);
	}
}
