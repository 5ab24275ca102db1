import type {
	Adjacency,
	GraphCapabilities,
	GraphStore,
	HealthReport,
	MergeEdgeInput,
	MergeNodeInput,
	MergeNodeResult,
	NodeFields,
	ReflectDetectorId,
	ReflectRowMap,
	ScopeForgetReport,
	HistoryEntry,
	ScopeFootprint,
} from "../../engine/protocols";
import { requireScope } from "../../engine/scope";
import type { FulltextHit, Neighbourhood, NeighbourEdge, NodeRecord, Scope } from "../../engine/types";

/**
 * Accepts every write and keeps nothing: for dry runs and for wiring tests. Writes report
 * `created: true` with the record they would have stored; reads find nothing.
 */
export class NullGraphStore implements GraphStore {
	readonly name = "null";
	readonly capabilities: GraphCapabilities = { atomicTransactions: false, durable: false };

	async init(): Promise<void> {}
	async close(): Promise<void> {}
	async health(): Promise<HealthReport> {
		return { ok: true, backend: this.name, nodes: 0, edges: 0, detail: "null backend: nothing is stored" };
	}

	async mergeNode(scope: Scope, input: MergeNodeInput): Promise<MergeNodeResult> {
		requireScope(scope);
		const props = { ...input.setOnCreate, ...input.set, org_id: scope.orgId, user_id: scope.userId };
		const node: NodeRecord = {
			id: typeof input.setOnCreate.engrama_id === "string" ? input.setOnCreate.engrama_id : "",
			label: input.label,
			keyField: input.keyField,
			key: input.key,
			props,
			createdAt: input.now,
			updatedAt: input.now,
		};
		return { node, created: true };
	}
	async getNode(): Promise<NodeRecord | null> {
		return null;
	}
	async getNodeById(): Promise<NodeRecord | null> {
		return null;
	}
	async idsOutsideScope(): Promise<ReadonlySet<string>> {
		return new Set();
	}
	async findByKey(): Promise<readonly NodeRecord[]> {
		return [];
	}
	async updateNode(): Promise<NodeRecord | null> {
		return null;
	}
	async deleteNode(): Promise<boolean> {
		return false;
	}
	async mergeEdge(scope: Scope, _input: MergeEdgeInput): Promise<{ readonly created: boolean }> {
		requireScope(scope);
		return { created: true };
	}
	async deleteEdge(): Promise<boolean> {
		return false;
	}
	async edgesOf(): Promise<readonly NeighbourEdge[]> {
		return [];
	}
	async neighbourhood(): Promise<Neighbourhood | null> {
		return null;
	}
	async fulltext(): Promise<readonly FulltextHit[]> {
		return [];
	}
	async listNodes(): Promise<readonly NodeRecord[]> {
		return [];
	}
	async labelCounts(): Promise<Readonly<Record<string, number>>> {
		return {};
	}
	async counts(): Promise<{ readonly nodes: number; readonly edges: number }> {
		return { nodes: 0, edges: 0 };
	}
	async forgetScope(): Promise<ScopeForgetReport> {
		return { nodes: 0, edges: 0 };
	}
	private readonly meta = new Map<string, string>();
	async getMeta(key: string): Promise<string | null> {
		return this.meta.get(key) ?? null;
	}
	async setMeta(key: string, value: string): Promise<void> {
		this.meta.set(key, value);
	}
	async deleteMeta(key: string): Promise<void> {
		this.meta.delete(key);
	}
	async transaction<T>(fn: () => Promise<T>): Promise<T> {
		return fn();
	}
	async nameCandidates(): Promise<readonly NodeRecord[]> {
		return [];
	}
	async recordHistory(scope: Scope): Promise<void> {
		requireScope(scope);
	}
	async nodeHistory(): Promise<readonly HistoryEntry[]> {
		return [];
	}
	async nodesValidAt(): Promise<readonly NodeRecord[]> {
		return [];
	}
	async scopeFootprint(): Promise<ScopeFootprint> {
		return { nodes: 0, edges: 0, fulltext: 0, history: 0, nameIndex: 0 };
	}
	async rekeyNode(): Promise<NodeRecord | null> {
		return null;
	}
	async mergeEdges(scope: Scope, inputs: readonly MergeEdgeInput[]): Promise<{ readonly created: number }> {
		requireScope(scope);
		return { created: inputs.length };
	}
	async listNodeFields(): Promise<readonly NodeFields[]> {
		return [];
	}
	async reflectRows<D extends ReflectDetectorId>(): Promise<readonly ReflectRowMap[D][]> {
		return [];
	}
	async adjacency(): Promise<ReadonlyMap<string, Adjacency>> {
		return new Map();
	}
}
