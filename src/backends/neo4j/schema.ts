import { ValidationError } from "../../engine/errors";
import { FT_COLUMNS, ftProperty } from "./fulltext";
import type { Neo4jConnection } from "./neo4j-connection";

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
export const FULLTEXT_INDEX = "engrama_fulltext";
export const VECTOR_INDEX = "engrama_embedding";
export const VECTOR_PROPERTY = "embedding";
/** The memory in a database when no namespace is configured. */
export const DEFAULT_NAMESPACE = "default";

const NAME = /^[A-Z][A-Za-z0-9_]*$/;
const RESERVED_LABELS = new Set([NODE_LABEL, META_LABEL, EMBEDDED_LABEL]);

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
	const hidden = [VECTOR_PROPERTY, ...FT_COLUMNS.map(ftProperty)].map((p) => `${p}: null`).join(", ");
	return `${variable} {.*, ${hidden}}`;
}

/** Created last, so its presence means the whole schema exists. */
const SENTINEL = "engrama_identity";

const STATEMENTS = [
	`CREATE CONSTRAINT engrama_node_id IF NOT EXISTS FOR (n:${NODE_LABEL}) REQUIRE (n.__ns, n.engrama_id) IS UNIQUE`,
	`CREATE CONSTRAINT engrama_meta_key IF NOT EXISTS FOR (m:${META_LABEL}) REQUIRE (m.__ns, m.key) IS UNIQUE`,
	`CREATE INDEX engrama_scope IF NOT EXISTS FOR (n:${NODE_LABEL}) ON (n.__ns, n.org_id, n.user_id)`,
	`CREATE INDEX engrama_scope_label IF NOT EXISTS FOR (n:${NODE_LABEL}) ON (n.__ns, n.org_id, n.user_id, n.__label)`,
	`CREATE INDEX engrama_scope_key IF NOT EXISTS FOR (n:${NODE_LABEL}) ON (n.__ns, n.org_id, n.user_id, n.__key)`,
	`CREATE FULLTEXT INDEX ${FULLTEXT_INDEX} IF NOT EXISTS FOR (n:${NODE_LABEL}) ON EACH [${FT_COLUMNS.map((c) => `n.${ftProperty(c)}`).join(", ")}]
		OPTIONS {indexConfig: {\`fulltext.analyzer\`: 'whitespace', \`fulltext.eventually_consistent\`: false}}`,
	// The identity MERGE relies on: (label, key, org_id, user_id) within one memory.
	`CREATE CONSTRAINT ${SENTINEL} IF NOT EXISTS FOR (n:${NODE_LABEL}) REQUIRE (n.__ns, n.__label, n.__key, n.org_id, n.user_id) IS UNIQUE`,
];

const ALREADY_THERE = /EquivalentSchemaRuleAlreadyExists|IndexAlreadyExists|ConstraintAlreadyExists|IndexWithNameAlreadyExists|ConstraintWithNameAlreadyExists/;

/** Creates the constraints and indexes once per database; concurrent openers may race harmlessly. */
export async function ensureSchema(conn: Neo4jConnection): Promise<void> {
	const present = await conn.read(
		(q) => q.run("SHOW CONSTRAINTS YIELD name WHERE name = $name RETURN count(*) AS n", { name: SENTINEL }),
		"read the schema",
	);
	if (Number(present[0]?.n ?? 0) > 0) return;
	for (const statement of STATEMENTS) {
		try {
			await conn.schema(statement);
		} catch (error) {
			const code = (error as { details?: { code?: string } }).details?.code ?? "";
			if (!ALREADY_THERE.test(code)) throw error;
		}
	}
	await conn.schema("CALL db.awaitIndexes(120)");
}

/** The vector index covers :Embedded nodes of every label; its dimension is fixed at creation. */
export async function ensureVectorIndex(conn: Neo4jConnection, dimensions: number): Promise<void> {
	if (!Number.isInteger(dimensions) || dimensions <= 0 || dimensions > 4096) {
		throw new ValidationError(`Vectors must have 1 to 4096 dimensions on Neo4j, got ${dimensions}.`);
	}
	try {
		await conn.schema(
			`CREATE VECTOR INDEX ${VECTOR_INDEX} IF NOT EXISTS FOR (n:${EMBEDDED_LABEL}) ON n.${VECTOR_PROPERTY}
			OPTIONS {indexConfig: {\`vector.dimensions\`: ${dimensions}, \`vector.similarity_function\`: 'cosine'}}`,
		);
	} catch (error) {
		const code = (error as { details?: { code?: string } }).details?.code ?? "";
		if (!ALREADY_THERE.test(code)) throw error;
	}
	await conn.schema(`CALL db.awaitIndex('${VECTOR_INDEX}', 120)`);
}

/** The dimension of the existing vector index (0 when there is none). */
export async function vectorIndexDimensions(conn: Neo4jConnection): Promise<number> {
	const rows = await conn.read(
		(q) =>
			q.run("SHOW VECTOR INDEXES YIELD name, options WHERE name = $name RETURN options.indexConfig.`vector.dimensions` AS dims", {
				name: VECTOR_INDEX,
			}),
		"read the vector index",
	);
	return Number(rows[0]?.dims ?? 0);
}
