import type { BulkSyncStore } from "./bulk-sync-store";
import type { EdgeStore } from "./edge-store";
import type { FulltextStore } from "./fulltext-store";
import type { NameHistoryStore } from "./name-history-store";
import type { NodeStore } from "./node-store";
import type { PassageStore } from "./passage-store";
import type { ReflectQueryStore } from "./reflect-query-store";
import type { StoreAdmin } from "./store-admin";

export type * from "./bulk-sync-store";
export type * from "./edge-store";
export type * from "./fulltext-store";
export type * from "./name-history-store";
export type * from "./node-store";
export type * from "./passage-store";
export type * from "./reflect-query-store";
export type * from "./store-admin";

/**
 * The graph half of a backend: every role in one. Every read takes the caller's scope and must
 * return nothing for a partial scope; every write takes a full Scope. No query text leaves the
 * backend. Engine code that needs one role takes that role's interface.
 */
export interface GraphStore extends StoreAdmin, NodeStore, EdgeStore, FulltextStore, NameHistoryStore, BulkSyncStore, ReflectQueryStore, Partial<PassageStore> {}

/**
 * The GraphStore methods that change what is stored, and `transaction` (a unit of such writes).
 * One list: the plugin's writer guard checks each before it runs, `GraphReads` leaves them out, and
 * the architecture test keeps the engine off them outside src/engine/write (the one write door).
 */
const WRITES = [
	"mergeNode",
	"mergeNodes",
	"buildDeferredIndexes",
	"updateNode",
	"deleteNode",
	"mergeEdge",
	"mergeEdges",
	"deleteEdge",
	"rekeyNode",
	"recordHistory",
	"forgetScope",
	"setMeta",
	"deleteMeta",
	"purgeDeleted",
	"compact",
	"repairIntegrity",
	"writePassages",
	"writeManyPassages",
	"upsertPassageVectors",
	"transaction",
] as const satisfies readonly (keyof GraphStore)[];

export type GraphStoreWrite = (typeof WRITES)[number];

export const GRAPH_STORE_WRITES: ReadonlySet<keyof GraphStore> = new Set<keyof GraphStore>(WRITES);

/** A store role (or the whole GraphStore) seen by everything but the write door: every read, no write. */
export type Reads<Role> = Omit<Role, GraphStoreWrite>;

/** The GraphStore as `Memory.graph` shows it. */
export type GraphReads = Reads<GraphStore>;

/**
 * Every GraphStore method a backend serves from its role modules (`fn(ctx, ...args)`), by role:
 * the one list the backends' facades and the null store are built from (src/backends/role-facade.ts).
 * Adding a store method: its protocol, each backend's role module, and this list.
 * Left out, written by hand on each store: its lifecycle (init, close, health), `transaction`, and
 * the generic `reflectRows`.
 */
export const ROLE_METHODS = {
	nodes: ["mergeNode", "getNode", "getNodeById", "getNodesByIds", "idsOutsideScope", "findByKey", "updateNode", "deleteNode", "listNodes", "labelCounts", "counts"],
	edges: ["mergeEdge", "deleteEdge", "edgesOf", "neighbourhood", "adjacency"],
	fulltext: ["fulltext"],
	namesHistory: ["nameCandidates", "recordHistory", "nodeHistory", "nodesValidAt"],
	bulkSync: ["rekeyNode", "mergeEdges", "mergeNodes", "getNodes", "buildDeferredIndexes", "listNodeFields"],
	passages: ["writePassages", "writeManyPassages", "hasPassages", "passagesOf", "searchPassages", "upsertPassageVectors", "passageKnn", "passageVectorsOf", "passagesWithoutVectors", "countPassagesWithoutVectors", "passageTermCounts"],
	admin: ["forgetScope", "getMeta", "setMeta", "deleteMeta", "listScopes", "listMeta", "purgeDeleted", "compact", "checkIntegrity", "repairIntegrity", "scopeFootprint"],
} as const satisfies Record<string, readonly (keyof GraphStore)[]>;

export type RoleMethod = (typeof ROLE_METHODS)[keyof typeof ROLE_METHODS][number];

/** Written by hand on each store, outside the role list. */
export type HandWrittenMethod = "name" | "capabilities" | "init" | "close" | "health" | "transaction" | "reflectRows";

/** Fails to compile when a GraphStore method is neither in ROLE_METHODS nor hand-written. */
const everyMethodListed: [Exclude<keyof GraphStore, RoleMethod | HandWrittenMethod>] extends [never] ? true : never = true;
void everyMethodListed;

export const ROLE_METHOD_NAMES: readonly RoleMethod[] = Object.values(ROLE_METHODS).flat();
