import type { Scope } from "../../engine/types";
import type { CypherRunner, Neo4jConnection } from "./neo4j-connection";

/**
 * What the Neo4j store's role modules share: the connection, the memory's namespace, and the
 * write counter that keeps cached fulltext statistics from lagging this store's own writes.
 */
export class Neo4jStoreContext {
	/** Bumped by every write of this store, so cached fulltext statistics never lag its own writes. */
	writeVersion = 0;

	ftStats: { rows: number; tokens: number; version: number; at: number } | undefined;

	/** Documents per query phrase (for idf), kept like ftStats. */
	hitCache: { version: number; at: number; hits: Map<string, number> } | undefined;

	params(scope: Scope, extra: Record<string, unknown> = {}): Record<string, unknown> {
		return { ns: this.namespace, org: scope.orgId, user: scope.userId, ...extra };
	}

	async transaction<T>(fn: () => Promise<T>): Promise<T> {
		try {
			return await this.conn.transaction(fn);
		} finally {
			// A rolled-back transaction may have been seen by cached statistics.
			this.writeVersion++;
		}
	}

	async write<T>(work: (q: CypherRunner) => Promise<T>, what: string): Promise<T> {
		this.writeVersion++;
		try {
			return await this.conn.write(work, what);
		} finally {
			this.writeVersion++;
		}
	}

	constructor(
		readonly conn: Neo4jConnection,
		readonly namespace: string,
	) {}
}
