import { ValidationError } from "../../engine/errors";
import type { IntegrityCheck, IntegrityCheckId, VectorStore } from "../../engine/backend-kit";
import { isFullScope } from "../../engine/backend-kit";
import type { PartialScope, Scope, VectorHit } from "../../engine/types";
import { PASSAGE_VECTORS } from "./passages";
import { ID_EXPR, ORG_EXPR, QUANTISED_TABLE, STATUS_EXPR, USER_EXPR, floatVectorTableSql, quantisedTableSql } from "./schema";
import type { SqliteGraphStore } from "./sqlite-graph-store";

// Passage vectors whose passage is gone (vec0 rows do not follow a cascade).
const PASSAGE_ORPHANS = `FROM ${PASSAGE_VECTORS} WHERE passage_id NOT IN (SELECT id FROM note_passages)`;

const TABLE = "node_embeddings";
const CODES = QUANTISED_TABLE;
// vec0 returns the global top k; scope and archive filters run after, so ask for more.
const OVERSAMPLE = 4;
// Rows the int8 scan picks per row returned, beyond OVERSAMPLE, before the float rescoring. k × 4
// already keeps the float scan's whole top 10 on the benchmark data (docs/benchmarks-search.md,
// Speed); each extra row costs vec0's k-selection more than the bytes it saves.
const RESCORE = 1;

/** A float vector (bound as ?) as int8 codes: 'unit' maps [-1, 1] (the embedders' vectors are unit length). */
const QUANTISE = "vec_int8(vec_quantize_int8(?, 'unit'))";

function toBytes(vector: Float32Array): Uint8Array {
	return new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength);
}

/** Vectors in a vec0 table in the same database file, keyed by nodes.id (Python layout). */
export class SqliteVectorStore implements VectorStore {
	readonly name = "sqlite-vec";
	private dims: number | undefined;
	/** The int8 codes match the float vectors (checked once per open: another reader may add floats only). */
	private codesReady = false;

	constructor(private readonly graph: SqliteGraphStore) {}

	private get conn() {
		return this.graph.connection();
	}

	async dimensions(): Promise<number> {
		if (this.dims !== undefined) return this.dims;
		const row = this.conn.get<{ value: string }>("SELECT value FROM engrama_meta WHERE key = 'embedding_dimensions'");
		this.dims = row ? Number(row.value) : 0;
		if (!this.dims) {
			// A Python-made file: read the dimension from the vec0 declaration.
			const decl = this.conn.get<{ sql: string }>("SELECT sql FROM sqlite_master WHERE name = ?", [TABLE]);
			const match = decl?.sql.match(/float\[(\d+)\]/i);
			this.dims = match ? Number(match[1]) : 0;
		}
		return this.dims;
	}

	private async ensureTable(dims: number): Promise<void> {
		const current = await this.dimensions();
		if (current === dims) return;
		if (current !== 0) {
			throw new ValidationError(
				`The embedder gives ${dims}-dimensional vectors but this memory holds ${current}-dimensional ones. Run "engrama reindex --rebuild --apply" to re-embed everything with the new model.`,
				{ stored: current, given: dims },
			);
		}
		this.conn.exec(floatVectorTableSql(dims));
		this.conn.exec(quantisedTableSql(dims));
		this.conn.run("INSERT OR REPLACE INTO engrama_meta(key, value) VALUES ('embedding_dimensions', ?)", [String(dims)]);
		this.dims = dims;
	}

	async vectorsOf(scope: Scope, nodeIds: readonly string[]): Promise<ReadonlyMap<string, Float32Array>> {
		const out = new Map<string, Float32Array>();
		if ((await this.dimensions()) === 0) return out;
		for (const [id, rowId] of this.graph.rowIds(scope, nodeIds)) {
			const row = this.conn.get<{ embedding: Uint8Array }>(`SELECT embedding FROM ${TABLE} WHERE node_id = ?`, [rowId]);
			// A copy of exactly the blob: native SQLite returns a Buffer, whose slice() shares a larger pool.
			if (row?.embedding) out.set(id, new Float32Array(Uint8Array.prototype.slice.call(row.embedding).buffer));
		}
		return out;
	}

	/** Drops every vector (after a model change); the next upsert fixes the new dimension. */
	async reset(): Promise<void> {
		this.conn.exec(`DROP TABLE IF EXISTS ${TABLE}`);
		this.conn.exec(`DROP TABLE IF EXISTS ${CODES}`);
		this.conn.exec(`DROP TABLE IF EXISTS ${PASSAGE_VECTORS}`);
		this.codesReady = false;
		this.conn.run("DELETE FROM engrama_meta WHERE key = 'embedding_dimensions'");
		this.dims = 0;
	}

	async upsert(scope: Scope, nodeId: string, vector: Float32Array): Promise<void> {
		if (vector.length === 0) return;
		await this.ensureTable(vector.length);
		const rowId = this.graph.rowIds(scope, [nodeId]).get(nodeId);
		if (rowId === undefined) return;
		this.conn.run(`DELETE FROM ${TABLE} WHERE node_id = ?`, [rowId]);
		this.conn.run(`INSERT INTO ${TABLE}(node_id, embedding) VALUES (?, ?)`, [rowId, toBytes(vector)]);
		if (this.hasCodes()) {
			this.conn.run(`DELETE FROM ${CODES} WHERE node_id = ?`, [rowId]);
			this.conn.run(`INSERT INTO ${CODES}(node_id, embedding) VALUES (?, ${QUANTISE})`, [rowId, toBytes(vector)]);
		}
	}

	private hasCodes(): boolean {
		return this.conn.get("SELECT 1 AS x FROM sqlite_master WHERE name = ?", [CODES]) !== undefined;
	}

	/**
	 * Codes for float vectors that have none, and none without a vector: the Python engrama writes
	 * node_embeddings only. False when they cannot be written (a read-only open): the float scan answers.
	 */
	private async syncCodes(dims: number): Promise<boolean> {
		if (this.codesReady) return true;
		try {
			if (!this.hasCodes()) this.conn.exec(quantisedTableSql(dims));
			const count = (table: string) => Number(this.conn.get<{ n: number }>(`SELECT count(*) AS n FROM ${table}`)?.n ?? 0);
			if (count(TABLE) !== count(CODES)) {
				// Two statements, each atomic: an interrupted repair is finished at the next open.
				this.conn.run(`DELETE FROM ${CODES} WHERE node_id NOT IN (SELECT node_id FROM ${TABLE})`);
				// One row at a time: an INSERT that reads its own table goes through a temporary copy,
				// where the codes lose their int8 type and vec0 refuses them.
				const missing = this.conn.all<{ node_id: number }>(`SELECT node_id FROM ${TABLE} WHERE node_id NOT IN (SELECT node_id FROM ${CODES})`);
				for (const { node_id } of missing) {
					this.conn.run(`INSERT INTO ${CODES}(node_id, embedding) SELECT node_id, ${QUANTISE.replace("?", "embedding")} FROM ${TABLE} WHERE node_id = ?`, [node_id]);
				}
			}
		} catch {
			return false;
		}
		this.codesReady = true;
		return true;
	}

	async delete(scope: Scope, nodeIds: readonly string[]): Promise<number> {
		if ((await this.dimensions()) === 0) return 0;
		let removed = 0;
		const codes = this.hasCodes();
		for (const rowId of this.graph.rowIds(scope, nodeIds).values()) {
			removed += this.conn.run(`DELETE FROM ${TABLE} WHERE node_id = ?`, [rowId]).changes;
			if (codes) this.conn.run(`DELETE FROM ${CODES} WHERE node_id = ?`, [rowId]);
		}
		return removed;
	}

	async knn(scope: PartialScope, vector: Float32Array, k: number): Promise<readonly VectorHit[]> {
		if (!isFullScope(scope) || k <= 0) return [];
		const dims = await this.dimensions();
		if (dims === 0) return [];
		if (vector.length !== dims) {
			throw new ValidationError(`Query vector has ${vector.length} dimensions, the memory holds ${dims}. Reindex after changing the model.`);
		}
		if (!(await this.syncCodes(dims))) return this.knnFloat(scope, vector, k);
		// The int8 scan reads a quarter of the bytes of the float one (vec0 reads every vector from the
		// file on each scan); its best rows are rescored with their float vectors. CROSS JOIN: the
		// scope check runs on those rows only.
		const rows = this.conn.all<{ engrama_id: string; distance: number }>(
			`SELECT ${ID_EXPR} AS engrama_id, vec_distance_cosine(e.embedding, ?) AS distance
			FROM (SELECT node_id FROM ${CODES} WHERE embedding MATCH ${QUANTISE} AND k = ?) c
			CROSS JOIN ${TABLE} e ON e.node_id = c.node_id
			CROSS JOIN nodes ON nodes.id = c.node_id
			WHERE ${ORG_EXPR} = ? AND ${USER_EXPR} = ? AND ${STATUS_EXPR} != 'archived'
			ORDER BY distance LIMIT ?`,
			[toBytes(vector), toBytes(vector), Math.min(4096, k * OVERSAMPLE * RESCORE), scope.orgId, scope.userId, k],
		);
		return rows.map((r) => ({ nodeId: r.engrama_id, similarity: 1 - Number(r.distance) }));
	}

	/** The exact channel: every float vector scanned (files without codes; the benchmark's reference). */
	async knnFloat(scope: PartialScope, vector: Float32Array, k: number): Promise<readonly VectorHit[]> {
		if (!isFullScope(scope) || k <= 0) return [];
		const dims = await this.dimensions();
		if (dims === 0) return [];
		if (vector.length !== dims) {
			throw new ValidationError(`Query vector has ${vector.length} dimensions, the memory holds ${dims}. Reindex after changing the model.`);
		}
		// CROSS JOIN: KNN first, then the scope check on those rows (not a walk over the scope's nodes).
		const rows = this.conn.all<{ engrama_id: string; distance: number }>(
			`SELECT ${ID_EXPR} AS engrama_id, v.distance AS distance
			FROM (SELECT node_id, distance FROM ${TABLE} WHERE embedding MATCH ? AND k = ?) v
			CROSS JOIN nodes ON nodes.id = v.node_id
			WHERE ${ORG_EXPR} = ? AND ${USER_EXPR} = ? AND ${STATUS_EXPR} != 'archived'
			ORDER BY v.distance LIMIT ?`,
			[toBytes(vector), Math.min(4096, k * OVERSAMPLE), scope.orgId, scope.userId, k],
		);
		return rows.map((r) => ({ nodeId: r.engrama_id, similarity: 1 - Number(r.distance) }));
	}

	async has(scope: PartialScope, nodeIds: readonly string[]): Promise<ReadonlySet<string>> {
		const found = new Set<string>();
		if (!isFullScope(scope) || (await this.dimensions()) === 0) return found;
		for (const [id, rowId] of this.graph.rowIds(scope, nodeIds)) {
			if (this.conn.get(`SELECT 1 AS x FROM ${TABLE} WHERE node_id = ?`, [rowId])) found.add(id);
		}
		return found;
	}

	async count(scope: PartialScope): Promise<number> {
		if (!isFullScope(scope) || (await this.dimensions()) === 0) return 0;
		const row = this.conn.get<{ n: number }>(
			`SELECT count(*) AS n FROM ${TABLE} v JOIN nodes ON nodes.id = v.node_id WHERE ${ORG_EXPR} = ? AND ${USER_EXPR} = ?`,
			[scope.orgId, scope.userId],
		);
		return Number(row?.n ?? 0);
	}

	async repairIntegrity(): Promise<Partial<Record<IntegrityCheckId, number>>> {
		const passages = this.hasPassageVectors() ? this.conn.run(`DELETE ${PASSAGE_ORPHANS}`).changes : 0;
		if (!this.conn.get("SELECT 1 AS x FROM sqlite_master WHERE name = ?", [TABLE])) return { vector_orphans: passages };
		if (this.hasCodes()) this.conn.run(`DELETE FROM ${CODES} WHERE node_id NOT IN (SELECT id FROM nodes)`);
		return { vector_orphans: passages + this.conn.run(`DELETE FROM ${TABLE} WHERE node_id NOT IN (SELECT id FROM nodes)`).changes };
	}

	/** Vectors of passages that are gone (a node deleted by an older version or another program). */
	private passageOrphans(): { problems: number; samples: string[] } {
		if (!this.hasPassageVectors()) return { problems: 0, samples: [] };
		return {
			problems: Number(this.conn.get<{ n: number }>(`SELECT count(*) AS n ${PASSAGE_ORPHANS}`)?.n ?? 0),
			samples: this.conn.all<{ passage_id: number }>(`SELECT passage_id ${PASSAGE_ORPHANS} ORDER BY passage_id LIMIT 5`).map((r) => `vector of passage ${r.passage_id}`),
		};
	}

	private hasPassageVectors(): boolean {
		return this.conn.get("SELECT 1 AS x FROM sqlite_master WHERE name = ?", [PASSAGE_VECTORS]) !== undefined;
	}

	async checkIntegrity(): Promise<readonly IntegrityCheck[]> {
		const exists = this.conn.get("SELECT 1 AS x FROM sqlite_master WHERE name = ?", [TABLE]);
		const passages = this.passageOrphans();
		if (!exists) return [{ check: "vector_orphans", ...passages }, { check: "vector_dimensions", problems: 0, samples: [] }];
		const orphans = `FROM ${TABLE} WHERE node_id NOT IN (SELECT id FROM nodes)`;
		const dims = await this.dimensions();
		// vec0 fixes one dimension per table: a mismatch is between the table and the recorded one.
		const declared = this.conn.get<{ sql: string }>("SELECT sql FROM sqlite_master WHERE name = ?", [TABLE])?.sql ?? "";
		const tableDims = Number(/float\[(\d+)\]/i.exec(declared)?.[1] ?? 0);
		const mismatch = dims > 0 && tableDims > 0 && dims !== tableDims;
		const vectors = mismatch ? Number(this.conn.get<{ n: number }>(`SELECT count(*) AS n FROM ${TABLE}`)?.n ?? 0) : 0;
		return [
			{
				check: "vector_orphans",
				problems: Number(this.conn.get<{ n: number }>(`SELECT count(*) AS n ${orphans}`)?.n ?? 0) + passages.problems,
				samples: [
					...this.conn.all<{ node_id: number }>(`SELECT node_id ${orphans} ORDER BY node_id LIMIT 5`).map((r) => `vector of row ${r.node_id}`),
					...passages.samples,
				].slice(0, 5),
			},
			{
				check: "vector_dimensions",
				problems: vectors,
				samples: mismatch ? [`the vector table holds ${tableDims}-dimensional vectors, the memory records ${dims}`] : [],
			},
		];
	}
}
