import neo4j from "neo4j-driver";
import { ValidationError } from "../../engine/errors";
import type { IntegrityCheck, VectorStore } from "../../engine/backend-kit";
import { isFullScope } from "../../engine/backend-kit";
import type { PartialScope, Scope, VectorHit } from "../../engine/types";
import type { Neo4jGraphStore } from "./neo4j-graph-store";
import { dropPassageVectors, ensurePassageVectorIndex } from "./passages";
import { N, type StoredMap, toRecord } from "./rows";
import { EMBEDDED_LABEL, NODE_LABEL, VECTOR_INDEX, VECTOR_PROPERTY, ensureVectorIndex, vectorIndexDimensions } from "./schema";

const DIMENSIONS_KEY = "embedding_dimensions";
// The index returns the global top k; scope and archive filters run after, so ask for more.
const OVERSAMPLE = 4;
const SCOPE = "n.__ns = $ns AND n.org_id = $org AND n.user_id = $user";
const LIVE = "coalesce(n.status, '') <> 'archived'";

/**
 * Vectors as the `embedding` property of the node itself, which then carries the :Embedded
 * label so one cosine vector index covers every label. The dimension is kept per memory.
 */
export class Neo4jVectorStore implements VectorStore {
	readonly name = "neo4j";
	private dims: number | undefined;
	private indexDims: number | undefined;

	constructor(private readonly graph: Neo4jGraphStore) {}

	private get conn() {
		return this.graph.conn;
	}

	private params(scope: Scope, extra: Record<string, unknown> = {}): Record<string, unknown> {
		return { ns: this.graph.namespace, org: scope.orgId, user: scope.userId, ...extra };
	}

	async dimensions(): Promise<number> {
		if (this.dims === undefined) {
			const stored = await this.graph.getMeta(DIMENSIONS_KEY);
			this.dims = stored ? Number(stored) : 0;
		}
		return this.dims;
	}

	private async ensureDimensions(dims: number): Promise<void> {
		const current = await this.dimensions();
		if (current === dims) {
			if (this.indexDims === undefined) await this.ensureIndex(dims);
			return;
		}
		if (current !== 0) {
			throw new ValidationError(
				`The embedder gives ${dims}-dimensional vectors but this memory holds ${current}-dimensional ones. Run "engrama reindex --rebuild --apply" to re-embed everything with the new model.`,
				{ stored: current, given: dims },
			);
		}
		await this.ensureIndex(dims);
		await this.graph.setMeta(DIMENSIONS_KEY, String(dims));
		this.dims = dims;
	}

	/** Creates the database's vector index if there is none; another memory may own a different one. */
	private async ensureIndex(dims: number): Promise<void> {
		let existing = await vectorIndexDimensions(this.conn);
		if (existing === 0) {
			await ensureVectorIndex(this.conn, dims);
			existing = await vectorIndexDimensions(this.conn);
		}
		this.indexDims = existing;
		// The passages' index beside it, while no transaction holds passages (passages.ts).
		await ensurePassageVectorIndex(this.graph.ctx, dims);
	}

	/** True when the index can answer for this memory (same dimension); otherwise knn scans exactly. */
	private async indexUsable(): Promise<boolean> {
		if (this.indexDims === undefined) this.indexDims = await vectorIndexDimensions(this.conn);
		return this.indexDims === (await this.dimensions());
	}

	/** Drops every vector of this memory (after a model change); the next upsert fixes the new dimension. */
	async reset(): Promise<void> {
		await this.conn.write(
			(q) => q.run(`MATCH (n:${NODE_LABEL}:${EMBEDDED_LABEL} {__ns: $ns}) REMOVE n:${EMBEDDED_LABEL}, n.${VECTOR_PROPERTY}`, { ns: this.graph.namespace }),
			"drop the vectors",
		);
		await dropPassageVectors(this.conn, this.graph.namespace);
		await this.conn.write(
			(q) => q.run("MATCH (m:EngramaMeta {__ns: $ns, key: $key}) DELETE m", { ns: this.graph.namespace, key: DIMENSIONS_KEY }),
			"drop the vector dimension",
		);
		this.dims = 0;
		this.graph.ctx.passageDimsChecked = undefined;
	}

	/** Once this process checked the dimension and the index (the first upsert), node writes carry the vector. */
	acceptsNodeVector(dimensions: number): boolean {
		return dimensions > 0 && this.dims === dimensions && this.indexDims !== undefined;
	}

	async upsert(scope: Scope, nodeId: string, vector: Float32Array): Promise<void> {
		if (vector.length === 0) return;
		await this.ensureDimensions(vector.length);
		await this.conn.write(
			(q) =>
				q.run(
					`MATCH (n:${NODE_LABEL} {__ns: $ns, engrama_id: $id}) WHERE ${SCOPE}
					CALL db.create.setNodeVectorProperty(n, '${VECTOR_PROPERTY}', $vector)
					SET n:${EMBEDDED_LABEL}`,
					this.params(scope, { id: nodeId, vector: Array.from(vector) }),
				),
			"store the vector",
		);
	}

	/** Many upserts in one statement (for `engrama migrate`); all vectors must share one dimension. */
	async upsertMany(scope: Scope, entries: readonly (readonly [string, Float32Array])[]): Promise<void> {
		const rows = entries.filter(([, v]) => v.length > 0);
		if (rows.length === 0) return;
		await this.ensureDimensions(rows[0][1].length);
		for (const [, v] of rows) if (v.length !== rows[0][1].length) await this.ensureDimensions(v.length);
		await this.conn.write(
			(q) =>
				q.run(
					`UNWIND $rows AS row
					MATCH (n:${NODE_LABEL} {__ns: $ns, engrama_id: row.id}) WHERE ${SCOPE}
					CALL db.create.setNodeVectorProperty(n, '${VECTOR_PROPERTY}', row.vector)
					SET n:${EMBEDDED_LABEL}`,
					this.params(scope, { rows: rows.map(([id, v]) => ({ id, vector: Array.from(v) })) }),
				),
			"store vectors",
		);
	}

	async delete(scope: Scope, nodeIds: readonly string[]): Promise<number> {
		if (nodeIds.length === 0) return 0;
		const rows = await this.conn.write(
			(q) =>
				q.run(
					`UNWIND $ids AS id MATCH (n:${NODE_LABEL}:${EMBEDDED_LABEL} {__ns: $ns, engrama_id: id}) WHERE ${SCOPE}
					REMOVE n:${EMBEDDED_LABEL}, n.${VECTOR_PROPERTY} RETURN count(n) AS n`,
					this.params(scope, { ids: [...nodeIds] }),
				),
			"delete vectors",
		);
		return Number(rows[0]?.n ?? 0);
	}

	async knn(scope: PartialScope, vector: Float32Array, k: number): Promise<readonly VectorHit[]> {
		if (!isFullScope(scope) || k <= 0) return [];
		const dims = await this.dimensions();
		if (dims === 0) return [];
		if (vector.length !== dims) {
			throw new ValidationError(`Query vector has ${vector.length} dimensions, the memory holds ${dims}. Reindex after changing the model.`);
		}
		const params = this.params(scope, { vector: Array.from(vector), k: neo4j.int(k) });
		if (await this.indexUsable()) {
			const ask = Math.min(4096, k * OVERSAMPLE);
			const rows = await this.conn.read(
				(q) =>
					q.run(
						`CALL db.index.vector.queryNodes('${VECTOR_INDEX}', $ask, $vector) YIELD node AS n, score
						WITH collect({n: n, score: score}) AS hits
						UNWIND hits AS hit WITH hit.n AS n, hit.score AS score, size(hits) AS seen
						WHERE ${SCOPE} AND ${LIVE}
						// The index ranks with approximate scores (~1e-4); the answer uses exact ones.
						WITH n, seen, vector.similarity.cosine(n.${VECTOR_PROPERTY}, $vector) AS score
						RETURN n.engrama_id AS id, score, seen, ${N} AS node ORDER BY score DESC, n.__seq LIMIT $k`,
						{ ...params, ask: neo4j.int(ask) },
					),
				"search the vector index",
			);
			const seen = Number(rows[0]?.seen ?? 0);
			// Enough hits survived the filters, or the index had nothing more to give.
			if (rows.length >= k || (rows.length > 0 && seen < ask)) return this.hits(scope, rows);
			if (rows.length === 0 && !(await this.hasMoreThan(ask))) return [];
		}
		// The scope is a small part of a big index (or the index has another dimension): exact scan.
		const rows = await this.conn.read(
			(q) =>
				q.run(
					`MATCH (n:${NODE_LABEL}:${EMBEDDED_LABEL}) WHERE ${SCOPE} AND ${LIVE}
					WITH n, vector.similarity.cosine(n.${VECTOR_PROPERTY}, $vector) AS score
					RETURN n.engrama_id AS id, score, ${N} AS node ORDER BY score DESC, n.__seq LIMIT $k`,
					params,
				),
			"scan the vectors",
		);
		return this.hits(scope, rows);
	}

	/** The hits, their nodes kept for the reads of them that follow (the fusion, the resolver). */
	private hits(scope: Scope, rows: readonly Readonly<Record<string, unknown>>[]): VectorHit[] {
		this.graph.ctx.prefetch(scope, rows.map((row) => toRecord(row.node as StoredMap)));
		return rows.map((row) => hit(row.id, row.score));
	}

	private async hasMoreThan(n: number): Promise<boolean> {
		const rows = await this.conn.read(
			(q) => q.run(`MATCH (e:${EMBEDDED_LABEL}) WITH e LIMIT $n1 RETURN count(e) AS c`, { n1: neo4j.int(n + 1) }),
			"count vectors",
		);
		return Number(rows[0]?.c ?? 0) > n;
	}

	async has(scope: PartialScope, nodeIds: readonly string[]): Promise<ReadonlySet<string>> {
		if (!isFullScope(scope) || nodeIds.length === 0) return new Set();
		const rows = await this.conn.read(
			(q) =>
				q.run(
					`UNWIND $ids AS id MATCH (n:${NODE_LABEL}:${EMBEDDED_LABEL} {__ns: $ns, engrama_id: id}) WHERE ${SCOPE} RETURN n.engrama_id AS id`,
					this.params(scope, { ids: [...nodeIds] }),
				),
			"check vectors",
		);
		return new Set(rows.map((row) => String(row.id)));
	}

	async count(scope: PartialScope): Promise<number> {
		if (!isFullScope(scope)) return 0;
		const rows = await this.conn.read(
			(q) => q.run(`MATCH (n:${NODE_LABEL}:${EMBEDDED_LABEL}) WHERE ${SCOPE} RETURN count(n) AS n`, this.params(scope)),
			"count vectors",
		);
		return Number(rows[0]?.n ?? 0);
	}

	async vectorsOf(scope: Scope, nodeIds: readonly string[]): Promise<ReadonlyMap<string, Float32Array>> {
		return this.vectors(scope, nodeIds);
	}

	/** The stored vectors of the given nodes (for `engrama migrate`). */
	async vectors(scope: Scope, nodeIds: readonly string[]): Promise<Map<string, Float32Array>> {
		const out = new Map<string, Float32Array>();
		if (nodeIds.length === 0) return out;
		const rows = await this.conn.read(
			(q) =>
				q.run(
					`UNWIND $ids AS id MATCH (n:${NODE_LABEL}:${EMBEDDED_LABEL} {__ns: $ns, engrama_id: id}) WHERE ${SCOPE}
					RETURN n.engrama_id AS id, n.${VECTOR_PROPERTY} AS vector`,
					this.params(scope, { ids: [...nodeIds] }),
				),
			"read vectors",
		);
		for (const row of rows) out.set(String(row.id), Float32Array.from(row.vector as number[]));
		return out;
	}

	/** A vector is a property of its node (no orphans possible); its length may differ from the memory's dimension. */
	async checkIntegrity(): Promise<readonly IntegrityCheck[]> {
		const dims = await this.dimensions();
		const rows =
			dims === 0
				? []
				: await this.conn.read(
						(q) =>
							q.run(
								`MATCH (n:${EMBEDDED_LABEL} {__ns: $ns}) WHERE n.${VECTOR_PROPERTY} IS NOT NULL AND size(n.${VECTOR_PROPERTY}) <> $dims
								RETURN count(n) AS n, collect(n.engrama_id)[0..5] AS samples`,
								{ ns: this.graph.namespace, dims: neo4j.int(dims) },
							),
						"check vector dimensions",
					);
		return [
			{ check: "vector_orphans", problems: 0, samples: [] },
			{ check: "vector_dimensions", problems: Number(rows[0]?.n ?? 0), samples: (rows[0]?.samples as string[] | undefined) ?? [] },
		];
	}
}

/** Neo4j's cosine score is (1 + cos) / 2; the protocol speaks plain cosine similarity. */
function hit(id: unknown, score: unknown): VectorHit {
	return { nodeId: String(id), similarity: 2 * Number(score) - 1 };
}
