import type { NodeRecord, PartialScope, Scope } from "../../engine/types";
import type { CypherRunner, Neo4jConnection } from "./neo4j-connection";

export type FtCorpusName = "nodes" | "passages";

export interface FtStats {
	readonly rows: number;
	readonly tokens: number;
	readonly version: number;
	readonly at: number;
}

/** How long the vector channel's nodes stay usable for the reads that follow it. */
export const PREFETCH_MS = 10_000;

function scopeKey(scope: PartialScope): string {
	return `${scope.orgId ?? ""}\u0000${scope.userId ?? ""}`;
}

/**
 * What the Neo4j store's role modules share: the connection, the memory's namespace, and the
 * write counter that keeps cached fulltext statistics from lagging this store's own writes.
 */
export class Neo4jStoreContext {
	/** Bumped by every write of this store, so cached fulltext statistics never lag its own writes. */
	writeVersion = 0;

	/** Per fulltext corpus (nodes, passages): its rows and tokens, and documents per query phrase (for idf). */
	readonly ftCache: Record<FtCorpusName, { stats?: FtStats; hits?: { version: number; at: number; hits: Map<string, number> } }> = { nodes: {}, passages: {} };

	/** Node searches that asked Lucene without the scope's word first (fulltext.ts wideCandidates): what tests and benchmarks read of that choice. */
	ftWideAsked = 0;

	/** The passage vector index's dimension (0: none), once read; and the dimension passage vectors were checked against. */
	passageVectorIndexDims: number | undefined;

	passageDimsChecked: number | undefined;

	/** The open transaction has written passages: an index on them now would wait for it to end (a deadlock). */
	passagesInTransaction = false;

	/**
	 * The nodes whose words (their own, or their passages') the open transaction wrote. The
	 * fulltext indexes only hold committed writes, so a search inside the transaction reads these
	 * from the store beside Lucene's candidates (fulltext.ts).
	 */
	readonly wordsWrittenInTransaction = new Set<string>();

	/** Notes that node ids' words were written, when a transaction is open (no search can miss them after its commit). */
	wroteWords(ids: Iterable<string>): void {
		if (!this.conn.inTransaction()) return;
		for (const id of ids) this.wordsWrittenInTransaction.add(id);
	}

	/**
	 * Nodes the vector channel just read whole with its hits: the fusion and the resolver ask for
	 * each hit by id right after, and get it from here instead of a statement each. Valid while
	 * this store has not written since, for PREFETCH_MS; each entry is taken once.
	 */
	private prefetched: { version: number; at: number; scope: string; nodes: Map<string, NodeRecord> } | undefined;

	/** Adds to the nodes still usable (the vector and passage channels run side by side). */
	prefetch(scope: Scope, nodes: readonly NodeRecord[]): void {
		const p = this.prefetched;
		const key = scopeKey(scope);
		if (p && p.version === this.writeVersion && Date.now() - p.at <= PREFETCH_MS && p.scope === key) {
			for (const n of nodes) p.nodes.set(n.id, n);
			return;
		}
		this.prefetched = { version: this.writeVersion, at: Date.now(), scope: key, nodes: new Map(nodes.map((n) => [n.id, n])) };
	}

	takePrefetched(scope: PartialScope, id: string): NodeRecord | undefined {
		const p = this.prefetched;
		if (!p || p.version !== this.writeVersion || Date.now() - p.at > PREFETCH_MS || p.scope !== scopeKey(scope)) return undefined;
		const node = p.nodes.get(id);
		p.nodes.delete(id);
		return node;
	}

	params(scope: Scope, extra: Record<string, unknown> = {}): Record<string, unknown> {
		return { ns: this.namespace, org: scope.orgId, user: scope.userId, ...extra };
	}

	async transaction<T>(fn: () => Promise<T>): Promise<T> {
		try {
			return await this.conn.transaction(fn);
		} finally {
			// A rolled-back transaction may have been seen by cached statistics.
			this.writeVersion++;
			if (!this.conn.inTransaction()) {
				this.passagesInTransaction = false;
				this.wordsWrittenInTransaction.clear();
			}
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
