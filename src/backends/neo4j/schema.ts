import { ValidationError } from "../../engine/errors";
import { FT_COLUMNS, FT_SCOPE_PROPERTY, ftProperty } from "./fts-query";
import type { Neo4jConnection } from "./neo4j-connection";
import { PENDING_LABEL, TERM_LABEL } from "./term-counts";

/**
 * Graph layout on Neo4j. Every Engrama node carries the common label :Engrama plus its native
 * domain label (:Project, :Decision, ...), and :Embedded once it has a vector. Internal props
 * (prefix "__"): __ns (which memory in the database), __label, __key, __key_field, __seq
 * (insertion order), __ft_<column> (tokenised fulltext). Relationships have native types and
 * carry __ns, __org, __user, __seq and created_at.
 */
export const NODE_LABEL = "Engrama";
export const META_LABEL = "EngramaMeta";
export const EMBEDDED_LABEL = "Embedded";
/** Name-index postings and history entries: separate nodes, linked to their node by engrama_id. */
export const NAME_LABEL = "EngramaName";
export const FRAGMENT_LABEL = "EngramaFragment";
export const HISTORY_LABEL = "EngramaHistory";
/** A section of a note (passages.ts): linked to its node by engrama_id, as the name postings are. */
export const PASSAGE_LABEL = "EngramaPassage";
/**
 * The node fulltext index: the token columns and the scope words (the first one, without them, is
 * dropped at open). Both fulltext indexes are eventually consistent: Lucene is updated after the
 * commit, off the write's path, and every fulltext read first waits for the pending updates
 * (AWAIT_FULLTEXT), so a search still sees every committed write; inside a transaction the
 * documents it wrote are added to Lucene's (fulltext.ts).
 */
export const FULLTEXT_INDEX = "engrama_node_words";
const LEGACY_FULLTEXT_INDEX = "engrama_fulltext";
/** The postings' read indexes before the scope key: nothing reads them, and new postings are not in them. */
const LEGACY_POSTING_INDEXES = ["engrama_name_norm", "engrama_fragment"];
export const PASSAGE_FULLTEXT_INDEX = "engrama_passage_words";
export const PASSAGE_VECTOR_INDEX = "engrama_passage_embedding";
export const VECTOR_INDEX = "engrama_embedding";
/** Cypher that waits until Lucene holds every committed write (the fulltext indexes are eventually consistent). */
export const AWAIT_FULLTEXT = "CALL db.index.fulltext.awaitEventuallyConsistentIndexRefresh()";
export const VECTOR_PROPERTY = "embedding";
/** The memory in a database when no namespace is configured. */
export const DEFAULT_NAMESPACE = "default";

const NAME = /^[A-Z][A-Za-z0-9_]*$/;
const RESERVED_LABELS = new Set([NODE_LABEL, META_LABEL, EMBEDDED_LABEL, NAME_LABEL, FRAGMENT_LABEL, HISTORY_LABEL, PASSAGE_LABEL, TERM_LABEL, PENDING_LABEL]);

/** Labels and types reach Cypher as identifiers, never as parameters: only these shapes pass. */
export function checkLabel(label: string): string {
	if (!NAME.test(label) || RESERVED_LABELS.has(label)) {
		throw new ValidationError(
			`Label "${label.slice(0, 60)}" cannot be used on Neo4j: labels start with an uppercase letter, use only letters, digits and _, and are not ${[...RESERVED_LABELS].join(", ")}.`,
		);
	}
	return label;
}

export function checkRelationType(type: string): string {
	if (!NAME.test(type)) {
		throw new ValidationError(
			`Relation type "${type.slice(0, 60)}" cannot be used on Neo4j: types start with an uppercase letter and use only letters, digits and _.`,
		);
	}
	return type;
}

/** The node map every read returns: all props except the vector and the fulltext columns. */
export function nodeProjection(variable: string): string {
	const hidden = [VECTOR_PROPERTY, ...FT_COLUMNS.map(ftProperty), FT_SCOPE_PROPERTY].map((p) => `${p}: null`).join(", ");
	return `${variable} {.*, ${hidden}}`;
}

/** Every constraint and index by name; ensureSchema creates the missing ones. */
const SCHEMA: readonly { readonly name: string; readonly create: string }[] = [
	{
		// The identity MERGE relies on: (label, key, org_id, user_id) within one memory.
		name: "engrama_identity",
		create: `CREATE CONSTRAINT engrama_identity IF NOT EXISTS FOR (n:${NODE_LABEL}) REQUIRE (n.__ns, n.__label, n.__key, n.org_id, n.user_id) IS UNIQUE`,
	},
	{
		name: "engrama_node_id",
		create: `CREATE CONSTRAINT engrama_node_id IF NOT EXISTS FOR (n:${NODE_LABEL}) REQUIRE (n.__ns, n.engrama_id) IS UNIQUE`,
	},
	{
		name: "engrama_meta_key",
		create: `CREATE CONSTRAINT engrama_meta_key IF NOT EXISTS FOR (m:${META_LABEL}) REQUIRE (m.__ns, m.key) IS UNIQUE`,
	},
	{
		// bm25's document frequencies (term-counts.ts): one per memory, corpus and key; MERGE relies on it.
		name: "engrama_term_key",
		create: `CREATE CONSTRAINT engrama_term_key IF NOT EXISTS FOR (t:${TERM_LABEL}) REQUIRE (t.__ns, t.corpus, t.key) IS UNIQUE`,
	},
	{
		// A bulk load's nodes whose search indexes are still to build (deferred-indexes.ts), by memory.
		name: "engrama_pending_ns",
		create: `CREATE INDEX engrama_pending_ns IF NOT EXISTS FOR (n:${PENDING_LABEL}) ON (n.__ns)`,
	},
	{ name: "engrama_ns", create: `CREATE INDEX engrama_ns IF NOT EXISTS FOR (n:${NODE_LABEL}) ON (n.__ns)` },
	{ name: "engrama_scope", create: `CREATE INDEX engrama_scope IF NOT EXISTS FOR (n:${NODE_LABEL}) ON (n.__ns, n.org_id, n.user_id)` },
	{
		name: "engrama_scope_label",
		create: `CREATE INDEX engrama_scope_label IF NOT EXISTS FOR (n:${NODE_LABEL}) ON (n.__ns, n.org_id, n.user_id, n.__label)`,
	},
	{
		name: "engrama_scope_key",
		create: `CREATE INDEX engrama_scope_key IF NOT EXISTS FOR (n:${NODE_LABEL}) ON (n.__ns, n.org_id, n.user_id, n.__key)`,
	},
	{
		name: FULLTEXT_INDEX,
		create: `CREATE FULLTEXT INDEX ${FULLTEXT_INDEX} IF NOT EXISTS FOR (n:${NODE_LABEL}) ON EACH [${FT_COLUMNS.map((c) => `n.${ftProperty(c)}`).join(", ")}, n.${FT_SCOPE_PROPERTY}]
			OPTIONS {indexConfig: {\`fulltext.analyzer\`: 'whitespace', \`fulltext.eventually_consistent\`: true}}`,
	},
	{ name: "engrama_passage_ns", create: `CREATE INDEX engrama_passage_ns IF NOT EXISTS FOR (p:${PASSAGE_LABEL}) ON (p.__ns)` },
	{ name: "engrama_passage_node", create: `CREATE INDEX engrama_passage_node IF NOT EXISTS FOR (p:${PASSAGE_LABEL}) ON (p.__ns, p.node)` },
	{ name: "engrama_passage_id", create: `CREATE INDEX engrama_passage_id IF NOT EXISTS FOR (p:${PASSAGE_LABEL}) ON (p.__ns, p.pid)` },
	{
		name: "engrama_passage_scope",
		create: `CREATE INDEX engrama_passage_scope IF NOT EXISTS FOR (p:${PASSAGE_LABEL}) ON (p.__ns, p.org_id, p.user_id)`,
	},
	{
		// One column of pre-tokenised words, as the node index (fts-query.ts), and the scope as a word.
		name: PASSAGE_FULLTEXT_INDEX,
		create: `CREATE FULLTEXT INDEX ${PASSAGE_FULLTEXT_INDEX} IF NOT EXISTS FOR (p:${PASSAGE_LABEL}) ON EACH [p.${ftProperty("body")}, p.__ft_scope]
			OPTIONS {indexConfig: {\`fulltext.analyzer\`: 'whitespace', \`fulltext.eventually_consistent\`: true}}`,
	},
	// The name postings (names-history.ts), by scope key: the resolver's read, and a node's postings.
	{ name: "engrama_name_key", create: `CREATE INDEX engrama_name_key IF NOT EXISTS FOR (p:${NAME_LABEL}) ON (p.scope, p.norm)` },
	{ name: "engrama_name_posting", create: `CREATE INDEX engrama_name_posting IF NOT EXISTS FOR (p:${NAME_LABEL}) ON (p.scope, p.node)` },
	{
		name: "engrama_fragment_key",
		create: `CREATE INDEX engrama_fragment_key IF NOT EXISTS FOR (p:${FRAGMENT_LABEL}) ON (p.scope, p.fragment, p.len)`,
	},
	{ name: "engrama_fragment_posting", create: `CREATE INDEX engrama_fragment_posting IF NOT EXISTS FOR (p:${FRAGMENT_LABEL}) ON (p.scope, p.node)` },
	// Postings written before the scope key (__ns, org_id, user_id) by node: the upgrade drops them
	// (upgrade.ts upgradeNamePostings). New postings lack __ns, so these index nothing new.
	{ name: "engrama_name_node", create: `CREATE INDEX engrama_name_node IF NOT EXISTS FOR (p:${NAME_LABEL}) ON (p.__ns, p.node)` },
	{ name: "engrama_fragment_node", create: `CREATE INDEX engrama_fragment_node IF NOT EXISTS FOR (p:${FRAGMENT_LABEL}) ON (p.__ns, p.node)` },
	{
		name: "engrama_history_node",
		create: `CREATE INDEX engrama_history_node IF NOT EXISTS FOR (h:${HISTORY_LABEL}) ON (h.__ns, h.org_id, h.user_id, h.node)`,
	},
	{
		name: "engrama_history_scope",
		create: `CREATE INDEX engrama_history_scope IF NOT EXISTS FOR (h:${HISTORY_LABEL}) ON (h.__ns, h.org_id, h.user_id)`,
	},
];

/** An index as SHOW INDEXES lists it: its name, type and, for fulltext, whether it is eventually consistent. */
export interface ListedIndex {
	readonly name: string;
	readonly type: string;
	readonly eventual: boolean | null;
}

/**
 * This store's fulltext indexes that still update Lucene inside the commit (made before they were
 * eventually consistent): an index's settings cannot change, so these are dropped and made again.
 */
export function synchronousFulltextIndexes(indexes: readonly ListedIndex[]): string[] {
	const ours = new Set([FULLTEXT_INDEX, PASSAGE_FULLTEXT_INDEX]);
	return indexes.filter((i) => ours.has(i.name) && i.type === "FULLTEXT" && i.eventual !== true).map((i) => i.name);
}

/** Seconds to wait for new indexes; a fulltext index made again over a large memory re-reads every node. */
const INDEX_WAIT_S = 120;
const REBUILD_WAIT_S = 3600;

const ALREADY_THERE = /EquivalentSchemaRuleAlreadyExists|IndexAlreadyExists|ConstraintAlreadyExists|IndexWithNameAlreadyExists|ConstraintWithNameAlreadyExists/;

/** Creates the missing constraints and indexes; concurrent openers may race harmlessly. */
export async function ensureSchema(conn: Neo4jConnection): Promise<void> {
	const rows = await conn.read(
		(q) =>
			q.run(
				`SHOW INDEXES YIELD name, type, state, options WHERE name STARTS WITH 'engrama_'
				RETURN name, type, state, options.indexConfig.\`fulltext.eventually_consistent\` AS eventual`,
			),
		"read the schema",
	);
	const listed = rows.map((row) => ({ name: String(row.name), type: String(row.type), eventual: typeof row.eventual === "boolean" ? row.eventual : null }));
	const present = new Set(listed.map((i) => i.name));
	// Nothing reads the first node fulltext index or the postings' first indexes any more.
	for (const legacy of [LEGACY_FULLTEXT_INDEX, ...LEGACY_POSTING_INDEXES]) if (present.has(legacy)) await conn.schema(`DROP INDEX ${legacy} IF EXISTS`);
	const rebuilt = synchronousFulltextIndexes(listed);
	for (const name of rebuilt) {
		await conn.schema(`DROP INDEX ${name} IF EXISTS`);
		present.delete(name);
	}
	const missing = SCHEMA.filter((item) => !present.has(item.name));
	// An open interrupted while an index was made again finds it still populating: it waits too.
	const populating = rows.some((row) => row.state === "POPULATING");
	if (missing.length === 0 && !populating) return;
	for (const item of missing) {
		try {
			await conn.schema(item.create);
		} catch (error) {
			const code = (error as { details?: { code?: string } }).details?.code ?? "";
			if (!ALREADY_THERE.test(code)) throw error;
		}
	}
	await conn.schema(`CALL db.awaitIndexes(${rebuilt.length > 0 || populating ? REBUILD_WAIT_S : INDEX_WAIT_S})`);
}

/**
 * The vector index covers :Embedded nodes of every label (passages: their own); its dimension is
 * fixed at creation. Its HNSW settings are Neo4j's (5.26: int8 quantization, m 16, ef_construction
 * 100), kept after measuring the others (scripts/bench/neo4j-vector-index.ts, 10k vectors): what a
 * single write's COMMIT pays for the index is Lucene reopening its reader on a new one-document
 * segment (80 % of the commit's server CPU in a JFR profile), which no setting changes; ef_construction
 * 50 made the bulk load cheaper (579 → 307 µs of server CPU a vector) but lost recall (knn's top 10:
 * 95.3 → 91.0 % on the scale bench's vectors), and no quantization made a search's server CPU 1.4 to
 * 2.5 times dearer. So an index made with other settings is used as it is.
 */
export async function ensureVectorIndex(conn: Neo4jConnection, dimensions: number, passages = false): Promise<void> {
	if (!Number.isInteger(dimensions) || dimensions <= 0 || dimensions > 4096) {
		throw new ValidationError(`Vectors must have 1 to 4096 dimensions on Neo4j, got ${dimensions}.`);
	}
	try {
		const name = passages ? PASSAGE_VECTOR_INDEX : VECTOR_INDEX;
		await conn.schema(
			`CREATE VECTOR INDEX ${name} IF NOT EXISTS FOR (n:${passages ? PASSAGE_LABEL : EMBEDDED_LABEL}) ON n.${VECTOR_PROPERTY}
			OPTIONS {indexConfig: {\`vector.dimensions\`: ${dimensions}, \`vector.similarity_function\`: 'cosine'}}`,
		);
	} catch (error) {
		const code = (error as { details?: { code?: string } }).details?.code ?? "";
		if (!ALREADY_THERE.test(code)) throw error;
	}
	await conn.schema(`CALL db.awaitIndex('${passages ? PASSAGE_VECTOR_INDEX : VECTOR_INDEX}', 120)`);
}

/** The dimension of the existing vector index (0 when there is none). */
export async function vectorIndexDimensions(conn: Neo4jConnection, passages = false): Promise<number> {
	const rows = await conn.read(
		(q) =>
			q.run("SHOW VECTOR INDEXES YIELD name, options WHERE name = $name RETURN options.indexConfig.`vector.dimensions` AS dims", {
				name: passages ? PASSAGE_VECTOR_INDEX : VECTOR_INDEX,
			}),
		"read the vector index",
	);
	return Number(rows[0]?.dims ?? 0);
}
