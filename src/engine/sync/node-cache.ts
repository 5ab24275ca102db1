import type { GraphReads } from "../protocols";
import type { NodeRecord, Scope } from "../types";

/** What sync reads from the store. It writes only through the pipeline (docs/ARCHITECTURE.md). */
export type SyncReads = Pick<GraphReads, "getNode" | "getNodeById" | "findByKey" | "idsOutsideScope" | "edgesOf">;

/**
 * The nodes one sync run has read or written, so later lookups in the run need no query. Valid
 * within one run; every node the run writes goes through cacheNode/uncacheNode. On a fresh graph
 * (a rebuild) the store holds nothing the run did not write, so the cache is the whole answer.
 */
export class NodeCache {
	private readonly nodes = new Map<string, NodeRecord>();
	private readonly byKey = new Map<string, readonly NodeRecord[]>();
	/** Nodes created by this run that nothing was merged into: they have no edges yet. */
	readonly created = new Set<string>();

	constructor(
		private readonly graph: SyncReads,
		private readonly scope: Scope,
		private readonly fresh: boolean,
	) {}

	/** True when the run already holds the node with this engrama_id. */
	has(id: string): boolean {
		return this.nodes.has(id);
	}

	/** True when the run already holds a node of this label + key (without asking the store). */
	holds(label: string, key: string): boolean {
		return (this.byKey.get(key) ?? []).some((n) => n.label === label);
	}

	async nodeById(id: string): Promise<NodeRecord | null> {
		const cached = this.nodes.get(id);
		if (cached || this.fresh) return cached ?? null;
		const node = await this.graph.getNodeById(this.scope, id);
		if (node) this.nodes.set(id, node);
		return node;
	}

	async nodeByKey(label: string, key: string): Promise<NodeRecord | null> {
		if (this.fresh) return (this.byKey.get(key) ?? []).find((n) => n.label === label) ?? null;
		return this.graph.getNode(this.scope, label, key);
	}

	async findByKey(key: string): Promise<readonly NodeRecord[]> {
		const cached = this.byKey.get(key);
		if (cached || this.fresh) return cached ?? [];
		const nodes = await this.graph.findByKey(this.scope, key);
		this.byKey.set(key, nodes);
		return nodes;
	}

	/** Records a node this run wrote, so later lookups in the run see it without a query. */
	cacheNode(node: NodeRecord): void {
		const old = this.nodes.get(node.id);
		if (old && old.key !== node.key) this.uncacheNode(old);
		this.nodes.set(node.id, node);
		const list = this.byKey.get(node.key);
		if (list) this.byKey.set(node.key, [...list.filter((n) => n.id !== node.id), node]);
		else if (this.fresh) this.byKey.set(node.key, [node]);
	}

	uncacheNode(node: NodeRecord): void {
		this.nodes.delete(node.id);
		const list = this.byKey.get(node.key);
		if (list) this.byKey.set(node.key, list.filter((n) => n.id !== node.id));
	}
}
