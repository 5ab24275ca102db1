import type {
	Direction,
	FulltextHit,
	KeyField,
	Neighbourhood,
	NeighbourEdge,
	NodeRecord,
	PartialScope,
	Props,
	Scope,
} from "../types";

export interface MergeNodeInput {
	readonly label: string;
	readonly keyField: KeyField;
	readonly key: string;
	/** Merged over the stored props (props not named here are kept). */
	readonly set: Props;
	/** Only written when the node is created (engrama_id, created_at, ...). */
	readonly setOnCreate: Props;
	/** Props to remove. */
	readonly unset?: readonly string[];
	readonly now: string;
}

export interface MergeNodeResult {
	readonly node: NodeRecord;
	readonly created: boolean;
	/** The props as they were before this write (undefined when created). */
	readonly previous?: Props;
}

export interface MergeEdgeInput {
	readonly fromId: string;
	readonly type: string;
	readonly toId: string;
	readonly props?: Props;
	readonly now: string;
}

export interface ListNodesQuery {
	readonly label?: string;
	readonly status?: readonly string[];
	/** Archived nodes are excluded unless asked for. */
	readonly includeArchived?: boolean;
	readonly limit?: number;
	readonly offset?: number;
	/** Only nodes whose props[field] equals value (string props). */
	readonly where?: Readonly<Record<string, string>>;
}

export interface FulltextQuery {
	/** Plain words; the backend escapes its own syntax. */
	readonly text: string;
	readonly limit: number;
	readonly labels?: readonly string[];
}

export interface HealthReport {
	readonly ok: boolean;
	readonly backend: string;
	readonly detail?: string;
	readonly nodes?: number;
	readonly edges?: number;
}

/** Abilities that differ between backends, declared instead of discovered by instanceof. */
export interface GraphCapabilities {
	/** `transaction()` is atomic (otherwise it only serialises). */
	readonly atomicTransactions: boolean;
	/** The store persists to disk/server (false for null and :memory:). */
	readonly durable: boolean;
}

export interface ScopeForgetReport {
	readonly nodes: number;
	readonly edges: number;
}

/**
 * The graph half of a backend. Every read takes the caller's scope and must return nothing
 * for a partial scope; every write takes a full Scope. No query text leaves the backend.
 */
export interface GraphStore {
	readonly name: string;
	readonly capabilities: GraphCapabilities;
	init(): Promise<void>;
	close(): Promise<void>;
	health(): Promise<HealthReport>;

	mergeNode(scope: Scope, input: MergeNodeInput): Promise<MergeNodeResult>;
	getNode(scope: PartialScope, label: string, key: string): Promise<NodeRecord | null>;
	getNodeById(scope: PartialScope, id: string): Promise<NodeRecord | null>;
	/** Nodes of any label whose key equals `key` exactly (archived included). */
	findByKey(scope: PartialScope, key: string): Promise<readonly NodeRecord[]>;
	updateNode(scope: Scope, id: string, set: Props, unset: readonly string[], now: string): Promise<NodeRecord | null>;
	/** Hard delete: the node, its edges and its fulltext entry. */
	deleteNode(scope: Scope, id: string): Promise<boolean>;

	/** Idempotent. Throws NotFoundError when an endpoint is missing in the scope. */
	mergeEdge(scope: Scope, input: MergeEdgeInput): Promise<{ readonly created: boolean }>;
	deleteEdge(scope: Scope, fromId: string, type: string, toId: string): Promise<boolean>;
	edgesOf(scope: PartialScope, id: string, direction: Direction, types?: readonly string[]): Promise<readonly NeighbourEdge[]>;
	neighbourhood(scope: PartialScope, id: string, hops: number, fanOutCap: number): Promise<Neighbourhood | null>;

	fulltext(scope: PartialScope, query: FulltextQuery): Promise<readonly FulltextHit[]>;
	listNodes(scope: PartialScope, query: ListNodesQuery): Promise<readonly NodeRecord[]>;
	/** Live (not archived) nodes per label, Insights excluded. */
	labelCounts(scope: PartialScope): Promise<Readonly<Record<string, number>>>;
	counts(scope: PartialScope): Promise<{ readonly nodes: number; readonly edges: number }>;

	/** Removes every node and edge of the scope (GDPR). */
	forgetScope(scope: Scope): Promise<ScopeForgetReport>;

	/** Small persistent settings of the memory itself (standalone identity, counters). */
	getMeta(key: string): Promise<string | null>;
	setMeta(key: string, value: string): Promise<void>;

	/** Runs `fn` as one unit (atomic where capabilities.atomicTransactions). */
	transaction<T>(fn: () => Promise<T>): Promise<T>;
}
