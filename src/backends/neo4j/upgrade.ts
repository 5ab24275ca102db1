import type { Neo4jStoreContext } from "./store-context";
import { FT_COLUMNS, FT_LENGTH_PROPERTY, FT_SCOPE_PROPERTY, ftProperty, fulltextProperties, nodeScopeWords } from "./fts-query";
import { decodeProps } from "./props-codec";
import { int } from "./rows";
import { CREATE_POSTING_ROWS, postingLists, postingScope } from "./names-history";
import { FRAGMENT_LABEL, META_LABEL, NAME_LABEL, NODE_LABEL, PASSAGE_LABEL } from "./schema";
import { PENDING_LABEL, TERM_LABEL, columnList, countTerms } from "./term-counts";
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

/**
 * The layout of the name postings (names-history.ts), kept in the settings as the fulltext format
 * is: 2 = one scope key (postingScope) in place of __ns, org_id and user_id, and names without
 * their length. Postings written before are not read; they are made again from their nodes.
 */
export const NAMES_VERSION = 2;
export const NAMES_VERSION_KEY = "__names_version";

/** Nodes whose postings one upgrade transaction makes again. */
const NAMES_PAGE = 2000;

/**
 * Makes the postings of every indexed node again in today's layout, a page of nodes per
 * transaction (dropping the page's new postings first, so a page done twice is the same; the
 * layout's setting is locked first, so two stores opening at once take turns), then drops the
 * postings of the old layout (nothing reads them) and records the layout last: an interrupted
 * upgrade is finished at the next open. Pending nodes have no postings yet (deferred-indexes.ts
 * builds them). Returns the nodes whose postings were made.
 */
export async function upgradeNamePostings(ctx: Neo4jStoreContext): Promise<number> {
	const meta = await ctx.conn.read(
		(q) => q.run(`MATCH (m:${META_LABEL} {__ns: $ns, key: $key}) RETURN m.value AS value`, { ns: ctx.namespace, key: NAMES_VERSION_KEY }),
		"read the name postings' layout",
	);
	if (Number(meta[0]?.value ?? 0) >= NAMES_VERSION) return 0;
	// Only what the postings need, for every node at once (1M nodes: some tens of MB in this process).
	const nodes = await ctx.conn.read(
		(q) =>
			q.run(
				`MATCH (n:${NODE_LABEL} {__ns: $ns}) WHERE NOT n:${PENDING_LABEL}
				RETURN n.engrama_id AS id, n.__seq AS seq, n.org_id AS org, n.user_id AS user, n.__key AS key, n.aliases AS aliases`,
				{ ns: ctx.namespace },
			),
		"read the nodes' names",
	);
	for (let from = 0; from < nodes.length; from += NAMES_PAGE) {
		const rows = nodes.slice(from, from + NAMES_PAGE).map((n) => ({
			scope: postingScope(ctx.namespace, { orgId: String(n.org), userId: String(n.user) }),
			node: String(n.id),
			seq: n.seq,
			...postingLists(String(n.key), decodeProps({ aliases: n.aliases })),
		}));
		await ctx.write(
			(q) =>
				q.run(
					`MERGE (lock:${META_LABEL} {__ns: $ns, key: $key}) SET lock.value = coalesce(lock.value, '1')
					WITH lock UNWIND $rows AS r
					CALL { WITH r MATCH (p:${NAME_LABEL} {scope: r.scope, node: r.node}) DELETE p }
					CALL { WITH r MATCH (p:${FRAGMENT_LABEL} {scope: r.scope, node: r.node}) DELETE p }
					${CREATE_POSTING_ROWS}`,
					{ ns: ctx.namespace, key: NAMES_VERSION_KEY, rows },
				),
			"make the name postings again",
		);
	}
	for (const label of nodes.length > 0 ? [NAME_LABEL, FRAGMENT_LABEL] : []) {
		for (;;) {
			const gone = await ctx.write(
				(q) =>
					q.run(`MATCH (p:${label}) WHERE p.__ns = $ns AND p.node IS NOT NULL WITH p LIMIT $page DELETE p RETURN count(*) AS n`, {
						ns: ctx.namespace,
						page: int(10 * PAGE),
					}),
				"drop the old name postings",
			);
			if (Number(gone[0]?.n ?? 0) < 10 * PAGE) break;
		}
	}
	await ctx.write(
		(q) => q.run(`MERGE (m:${META_LABEL} {__ns: $ns, key: $key}) SET m.value = $value`, { ns: ctx.namespace, key: NAMES_VERSION_KEY, value: String(NAMES_VERSION) }),
		"record the name postings' layout",
	);
	return nodes.length;
}
