import type { GraphCapabilities, GraphStore, HealthReport, MergeEdgeInput, MergeNodeInput, ReflectDetectorId, ReflectRowMap } from "../../engine/backend-kit";
import { requireScope } from "../../engine/backend-kit";
import type { NodeRecord, Scope } from "../../engine/types";
import { roleFacade } from "../role-facade";

/** The null store's only state: settings, so a dry run reads back what it set. */
type NullContext = Map<string, string>;

/**
 * What the null store answers for each role method (ROLE_METHODS): writes report what they would
 * have stored, reads find nothing. The optional methods a dry run has no use for are left out.
 */
const ROLES = {
	mergeNode: (_ctx: NullContext, scope: Scope, input: MergeNodeInput) => {
		requireScope(scope);
		const props = { ...input.setOnCreate, ...input.set, org_id: scope.orgId, user_id: scope.userId };
		const id = typeof input.setOnCreate.engrama_id === "string" ? input.setOnCreate.engrama_id : "";
		const node: NodeRecord = { id, label: input.label, keyField: input.keyField, key: input.key, props, createdAt: input.now, updatedAt: input.now };
		return { node, created: true };
	},
	mergeEdge: (_ctx: NullContext, scope: Scope) => {
		requireScope(scope);
		return { created: true };
	},
	mergeEdges: (_ctx: NullContext, scope: Scope, inputs: readonly MergeEdgeInput[]) => {
		requireScope(scope);
		return { created: inputs.length };
	},
	recordHistory: (_ctx: NullContext, scope: Scope) => {
		requireScope(scope);
	},
	getNode: () => null,
	getNodeById: () => null,
	getNodesByIds: () => new Map<string, NodeRecord>(),
	idsOutsideScope: () => new Set<string>(),
	findByKey: () => [],
	updateNode: () => null,
	deleteNode: () => false,
	listNodes: () => [],
	labelCounts: () => ({}),
	counts: () => ({ nodes: 0, edges: 0 }),
	deleteEdge: () => false,
	edgesOf: () => [],
	neighbourhood: () => null,
	adjacency: () => new Map(),
	fulltext: () => [],
	nameCandidates: () => [],
	nodeHistory: () => [],
	nodesValidAt: () => [],
	rekeyNode: () => null,
	listNodeFields: () => [],
	forgetScope: () => ({ nodes: 0, edges: 0 }),
	scopeFootprint: () => ({ nodes: 0, edges: 0, fulltext: 0, history: 0, nameIndex: 0 }),
	getMeta: (meta: NullContext, key: string) => meta.get(key) ?? null,
	setMeta: (meta: NullContext, key: string, value: string) => {
		meta.set(key, value);
	},
	deleteMeta: (meta: NullContext, key: string) => {
		meta.delete(key);
	},
};

/**
 * Accepts every write and keeps nothing: for dry runs and for wiring tests. Writes report
 * `created: true` with the record they would have stored; reads find nothing.
 */
export class NullGraphStore extends roleFacade<NullContext, typeof ROLES>(ROLES) implements GraphStore {
	readonly name = "null";
	readonly capabilities: GraphCapabilities = { atomicTransactions: false, durable: false };

	constructor() {
		super(new Map());
	}

	async init(): Promise<void> {}
	async close(): Promise<void> {}
	async health(): Promise<HealthReport> {
		return { ok: true, backend: this.name, nodes: 0, edges: 0, detail: "null backend: nothing is stored" };
	}
	async transaction<T>(fn: () => Promise<T>): Promise<T> {
		return fn();
	}
	async reflectRows<D extends ReflectDetectorId>(): Promise<readonly ReflectRowMap[D][]> {
		return [];
	}
}
