import type { GraphCapabilities, GraphStore, HealthReport, ReflectDetectorId, ReflectParams, ReflectRowMap } from "../../engine/backend-kit";
import { isFullScope } from "../../engine/backend-kit";
import type { PartialScope } from "../../engine/types";
import { roleFacade } from "../role-facade";
import * as admin from "./admin";
import * as bulkSync from "./bulk-sync";
import { buildDeferredIndexes } from "./deferred-indexes";
import { Neo4jStoreContext } from "./store-context";
import * as edges from "./edges";
import * as fulltext from "./fulltext";
import * as namesHistory from "./names-history";
import type { Neo4jConnection } from "./neo4j-connection";
import * as nodes from "./nodes";
import * as passages from "./passages";
import { neo4jReflectRows } from "./reflect-queries";
import { DEFAULT_NAMESPACE, NODE_LABEL, ensureSchema } from "./schema";
import { upgradeFulltext, upgradeNamePostings } from "./upgrade";

/** Pending nodes indexed per transaction when a store opens after an interrupted bulk load. */
const OPEN_BUILD_PAGE = 5000;

export interface Neo4jGraphStoreOptions {
	/** Which memory in the database (several can share one Neo4j; tests use one each). */
	readonly namespace?: string;
}

/**
 * The Neo4j graph backend: native labels and relationship types, MERGE on
 * (label, key, org_id, user_id) under a uniqueness constraint, a Lucene fulltext index that
 * tokenises like SQLite's FTS5, every query parameterised and scoped. Each role of GraphStore
 * lives in its own module (nodes.ts, edges.ts, fulltext.ts, names-history.ts, bulk-sync.ts,
 * passages.ts, admin.ts, reflect-queries.ts) over one shared Neo4jStoreContext (context.ts); the role methods
 * forward to them through `roleFacade` (ROLE_METHODS).
 */
/** The role modules the facade forwards to (ROLE_METHODS picks the methods out of them). */
const ROLES = { ...nodes, ...edges, ...fulltext, ...namesHistory, ...bulkSync, ...passages, ...admin };

export class Neo4jGraphStore extends roleFacade<Neo4jStoreContext, typeof ROLES>(ROLES) implements GraphStore {
	readonly name = "neo4j";
	// Atomic, durable, but without savepoints: a failed nested transaction keeps its partial writes.
	readonly capabilities: GraphCapabilities = { atomicTransactions: true, durable: true, noSavepoints: true, mergeTellsStored: true };
	readonly namespace: string;
	/** Shared with the vector store (the nodes its search reads whole, the write counter). */
	readonly ctx: Neo4jStoreContext;

	constructor(
		readonly conn: Neo4jConnection,
		options: Neo4jGraphStoreOptions = {},
	) {
		const namespace = options.namespace ?? DEFAULT_NAMESPACE;
		const ctx = new Neo4jStoreContext(conn, namespace);
		super(ctx);
		this.namespace = namespace;
		this.ctx = ctx;
	}

	async init(): Promise<void> {
		await this.conn.verify();
		await ensureSchema(this.conn);
		await upgradeFulltext(this.ctx);
		await upgradeNamePostings(this.ctx);
		// A bulk load that stopped before its search indexes were built (crash, kill): finished now.
		while (await buildDeferredIndexes(this.ctx, OPEN_BUILD_PAGE, true));
		await passages.ensurePassageVectorIndexAtOpen(this.ctx);
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
