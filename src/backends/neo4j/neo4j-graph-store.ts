import type {
	Adjacency,
	FulltextQuery,
	GraphCapabilities,
	GraphStore,
	HealthReport,
	HistoryEntry,
	IntegrityCheck,
	ListNodesQuery,
	MergeEdgeInput,
	MergeNodeInput,
	MergeNodeResult,
	NameCandidatesQuery,
	NodeFields,
	NodeHistoryQuery,
	NotePassages,
	PassageChange,
	PassageHit,
	PassageInput,
	ReflectDetectorId,
	ReflectParams,
	ReflectRowMap,
	RekeyNodeInput,
	ScopeFootprint,
	ScopeForgetReport,
	StoredPassage,
	ValidAtQuery,
} from "../../engine/protocols";
import { isFullScope } from "../../engine/scope";
import type { Direction, FulltextHit, NeighbourEdge, Neighbourhood, NodeRecord, PartialScope, Props, Scope } from "../../engine/types";
import * as admin from "./admin";
import * as bulkSync from "./bulk-sync";
import { Neo4jStoreContext } from "./context";
import * as edges from "./edges";
import * as fulltext from "./fulltext";
import * as namesHistory from "./names-history";
import type { Neo4jConnection } from "./neo4j-connection";
import * as nodes from "./nodes";
import * as passages from "./passages";
import { neo4jReflectRows } from "./reflect-queries";
import { DEFAULT_NAMESPACE, NODE_LABEL, ensureSchema } from "./schema";
import { upgradeFulltext } from "./upgrade";

export interface Neo4jGraphStoreOptions {
	/** Which memory in the database (several can share one Neo4j; tests use one each). */
	readonly namespace?: string;
}

/**
 * The Neo4j graph backend: native labels and relationship types, MERGE on
 * (label, key, org_id, user_id) under a uniqueness constraint, a Lucene fulltext index that
 * tokenises like SQLite's FTS5, every query parameterised and scoped. Each role of GraphStore
 * lives in its own module (nodes.ts, edges.ts, fulltext.ts, names-history.ts, bulk-sync.ts,
 * admin.ts, reflect-queries.ts) over one shared Neo4jStoreContext (context.ts).
 */
export class Neo4jGraphStore implements GraphStore {
	readonly name = "neo4j";
	// Atomic, durable, but without savepoints: a failed nested transaction keeps its partial writes.
	readonly capabilities: GraphCapabilities = { atomicTransactions: true, durable: true, noSavepoints: true };
	readonly namespace: string;
	/** Shared with the vector store (the nodes its search reads whole, the write counter). */
	readonly ctx: Neo4jStoreContext;

	constructor(
		readonly conn: Neo4jConnection,
		options: Neo4jGraphStoreOptions = {},
	) {
		this.namespace = options.namespace ?? DEFAULT_NAMESPACE;
		this.ctx = new Neo4jStoreContext(conn, this.namespace);
	}

	async init(): Promise<void> {
		await this.conn.verify();
		await ensureSchema(this.conn);
		await upgradeFulltext(this.ctx);
	}

	async close(): Promise<void> {
		await this.conn.close();
	}

	async health(): Promise<HealthReport> {
		try {
			const rows = await this.conn.read(
				(q) =>
					q.run(
						`MATCH (n:${NODE_LABEL} {__ns: $ns}) WITH count(n) AS nodes
						OPTIONAL MATCH (a:${NODE_LABEL} {__ns: $ns})-[r]->() RETURN nodes, count(r) AS edges`,
						{ ns: this.namespace },
					),
				"check health",
			);
			return {
				ok: true,
				backend: this.name,
				nodes: Number(rows[0]?.nodes ?? 0),
				edges: Number(rows[0]?.edges ?? 0),
				detail: this.conn.describe(),
			};
		} catch (error) {
			return { ok: false, backend: this.name, detail: error instanceof Error ? error.message : String(error) };
		}
	}

	transaction<T>(fn: () => Promise<T>): Promise<T> {
		return this.ctx.transaction(fn);
	}

	// nodes.ts
	mergeNode(scope: Scope, input: MergeNodeInput): Promise<MergeNodeResult> {
		return nodes.mergeNode(this.ctx, scope, input);
	}

	getNode(scope: PartialScope, label: string, key: string): Promise<NodeRecord | null> {
		return nodes.getNode(this.ctx, scope, label, key);
	}

	getNodes(scope: Scope, refs: readonly { readonly label: string; readonly key: string }[]): Promise<readonly (NodeRecord | null)[]> {
		return nodes.getNodes(this.ctx, scope, refs);
	}

	getNodeById(scope: PartialScope, id: string): Promise<NodeRecord | null> {
		return nodes.getNodeById(this.ctx, scope, id);
	}

	idsOutsideScope(scope: Scope, ids: readonly string[]): Promise<ReadonlySet<string>> {
		return nodes.idsOutsideScope(this.ctx, scope, ids);
	}

	findByKey(scope: PartialScope, key: string): Promise<readonly NodeRecord[]> {
		return nodes.findByKey(this.ctx, scope, key);
	}

	updateNode(scope: Scope, id: string, set: Props, unset: readonly string[], now: string): Promise<NodeRecord | null> {
		return nodes.updateNode(this.ctx, scope, id, set, unset, now);
	}

	deleteNode(scope: Scope, id: string): Promise<boolean> {
		return nodes.deleteNode(this.ctx, scope, id);
	}

	listNodes(scope: PartialScope, query: ListNodesQuery): Promise<readonly NodeRecord[]> {
		return nodes.listNodes(this.ctx, scope, query);
	}

	labelCounts(scope: PartialScope): Promise<Readonly<Record<string, number>>> {
		return nodes.labelCounts(this.ctx, scope);
	}

	counts(scope: PartialScope): Promise<{ readonly nodes: number; readonly edges: number }> {
		return nodes.counts(this.ctx, scope);
	}

	// edges.ts
	mergeEdge(scope: Scope, input: MergeEdgeInput): Promise<{ readonly created: boolean }> {
		return edges.mergeEdge(this.ctx, scope, input);
	}

	deleteEdge(scope: Scope, fromId: string, type: string, toId: string): Promise<boolean> {
		return edges.deleteEdge(this.ctx, scope, fromId, type, toId);
	}

	edgesOf(scope: PartialScope, id: string, direction: Direction, types?: readonly string[]): Promise<readonly NeighbourEdge[]> {
		return edges.edgesOf(this.ctx, scope, id, direction, types);
	}

	neighbourhood(scope: PartialScope, id: string, hops: number, fanOutCap: number): Promise<Neighbourhood | null> {
		return edges.neighbourhood(this.ctx, scope, id, hops, fanOutCap);
	}

	adjacency(scope: PartialScope, ids: readonly string[], cap: number): Promise<ReadonlyMap<string, Adjacency>> {
		return edges.adjacency(this.ctx, scope, ids, cap);
	}

	// fulltext.ts
	fulltext(scope: PartialScope, query: FulltextQuery): Promise<readonly FulltextHit[]> {
		return fulltext.fulltext(this.ctx, scope, query);
	}

	// passages.ts
	writePassages(scope: Scope, nodeId: string, input: readonly PassageInput[]): Promise<PassageChange> {
		return passages.writePassages(this.ctx, scope, nodeId, input);
	}

	writeManyPassages(scope: Scope, notes: readonly NotePassages[]): Promise<readonly PassageChange[]> {
		return passages.writeManyPassages(this.ctx, scope, notes);
	}

	hasPassages(scope: PartialScope): Promise<boolean> {
		return passages.hasPassages(this.ctx, scope);
	}

	passagesOf(scope: PartialScope, nodeId: string): Promise<readonly StoredPassage[]> {
		return passages.passagesOf(this.ctx, scope, nodeId);
	}

	searchPassages(scope: PartialScope, query: FulltextQuery): Promise<readonly PassageHit[]> {
		return passages.searchPassages(this.ctx, scope, query);
	}

	upsertPassageVectors(scope: Scope, vectors: readonly { readonly passageId: string; readonly vector: Float32Array }[]): Promise<void> {
		return passages.upsertPassageVectors(this.ctx, scope, vectors);
	}

	passageKnn(scope: PartialScope, vector: Float32Array, k: number): Promise<readonly PassageHit[]> {
		return passages.passageKnn(this.ctx, scope, vector, k);
	}

	passagesWithoutVectors(scope: Scope, limit: number): Promise<readonly StoredPassage[]> {
		return passages.passagesWithoutVectors(this.ctx, scope, limit);
	}

	// names-history.ts
	nameCandidates(scope: PartialScope, query: NameCandidatesQuery): Promise<readonly NodeRecord[]> {
		return namesHistory.nameCandidates(this.ctx, scope, query);
	}

	recordHistory(scope: Scope, entries: readonly HistoryEntry[]): Promise<void> {
		return namesHistory.recordHistory(this.ctx, scope, entries);
	}

	nodeHistory(scope: PartialScope, nodeId: string, query: NodeHistoryQuery): Promise<readonly HistoryEntry[]> {
		return namesHistory.nodeHistory(this.ctx, scope, nodeId, query);
	}

	nodesValidAt(scope: PartialScope, query: ValidAtQuery): Promise<readonly NodeRecord[]> {
		return namesHistory.nodesValidAt(this.ctx, scope, query);
	}

	// bulk-sync.ts
	rekeyNode(scope: Scope, id: string, input: RekeyNodeInput): Promise<NodeRecord | null> {
		return bulkSync.rekeyNode(this.ctx, scope, id, input);
	}

	mergeNodes(scope: Scope, inputs: readonly MergeNodeInput[]): Promise<readonly MergeNodeResult[]> {
		return bulkSync.mergeNodes(this.ctx, scope, inputs);
	}

	mergeEdges(scope: Scope, inputs: readonly MergeEdgeInput[]): Promise<{ readonly created: number }> {
		return bulkSync.mergeEdges(this.ctx, scope, inputs);
	}

	listNodeFields(scope: PartialScope, query: ListNodesQuery & { readonly fields: readonly string[] }): Promise<readonly NodeFields[]> {
		return bulkSync.listNodeFields(this.ctx, scope, query);
	}

	// admin.ts
	checkIntegrity(): Promise<readonly IntegrityCheck[]> {
		return admin.checkIntegrity(this.ctx);
	}

	forgetScope(scope: Scope): Promise<ScopeForgetReport> {
		return admin.forgetScope(this.ctx, scope);
	}

	scopeFootprint(scope: PartialScope): Promise<ScopeFootprint> {
		return admin.scopeFootprint(this.ctx, scope);
	}

	getMeta(key: string): Promise<string | null> {
		return admin.getMeta(this.ctx, key);
	}

	setMeta(key: string, value: string): Promise<void> {
		return admin.setMeta(this.ctx, key, value);
	}

	deleteMeta(key: string): Promise<void> {
		return admin.deleteMeta(this.ctx, key);
	}

	listScopes(): Promise<readonly Scope[]> {
		return admin.listScopes(this.ctx);
	}

	listMeta(): Promise<readonly (readonly [string, string])[]> {
		return admin.listMeta(this.ctx);
	}

	/** Removes every node, relation and setting of this store's namespace (tests, `migrate --replace`). */
	dropNamespace(): Promise<number> {
		return admin.dropNamespace(this.ctx);
	}

	// reflect-queries.ts
	async reflectRows<D extends ReflectDetectorId>(scope: PartialScope, detector: D, params: ReflectParams): Promise<readonly ReflectRowMap[D][]> {
		if (!isFullScope(scope) || params.limit <= 0) return [];
		return this.conn.read((q) => neo4jReflectRows(q, this.namespace, scope, detector, params), `run the ${detector} detector`);
	}
}
