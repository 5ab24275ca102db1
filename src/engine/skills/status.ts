import { errorMessage } from "../errors";
import { isNullEmbedder } from "../embedding";
import type { Memory } from "../memory";
import type { SearchReadiness } from "../search/hybrid-search";
import type { PartialScope } from "../types";

export interface StatusOptions {
	/** Ask the backend how it is (a round trip to Neo4j); default true. */
	readonly health?: boolean;
	/** Nodes and relations in the caller's scope. */
	readonly counts?: boolean;
	/** Nodes per label in the caller's scope. */
	readonly labels?: boolean;
	/** The next search's mode and degradation; default true. */
	readonly search?: boolean;
}

export interface StatusView {
	readonly backend: {
		/** The store's own name (sqlite, neo4j, null). */
		readonly name: string;
		/** What the backend calls itself when asked (its driver or engine); absent without `health`. */
		readonly reported?: string;
		readonly ok?: boolean;
		/** Deployment-wide nodes, where the backend counts them. */
		readonly nodes?: number;
		readonly detail?: string;
		/** The health check itself failed (the backend did not answer). */
		readonly error?: string;
	};
	readonly profile: string;
	readonly embedder: { readonly configured: boolean; readonly provider?: string; readonly model?: string; readonly dimensions?: number };
	/** The mode and degradation the next search will report (unless `search: false`). */
	readonly search?: SearchReadiness;
	readonly counts?: { readonly nodes: number; readonly edges: number };
	readonly labels?: Readonly<Record<string, number>>;
}

/**
 * status: the one snapshot the command line, the MCP bridge and the plugin show, built here so no
 * adapter reads the store. Only what the caller asks for is queried (the panel counts on every write).
 */
export async function status(memory: Memory, scope: PartialScope, options: StatusOptions = {}): Promise<StatusView> {
	const { graph, embedder } = memory;
	const working = !!embedder && !isNullEmbedder(embedder);
	return {
		backend: options.health === false ? { name: graph.name } : await backendHealth(memory),
		profile: memory.profile.name,
		embedder: working ? { configured: true, provider: embedder.name, ...(embedder.model ? { model: embedder.model } : {}), dimensions: embedder.dimensions } : { configured: false },
		...(options.search === false ? {} : { search: await memory.searcher.readiness() }),
		...(options.counts ? { counts: await graph.counts(scope) } : {}),
		...(options.labels ? { labels: await graph.labelCounts(scope) } : {}),
	};
}

async function backendHealth(memory: Memory): Promise<StatusView["backend"]> {
	const { graph } = memory;
	try {
		const health = await graph.health();
		return {
			name: graph.name,
			reported: health.backend,
			ok: health.ok,
			...(typeof health.nodes === "number" ? { nodes: health.nodes } : {}),
			...(health.detail ? { detail: health.detail } : {}),
		};
	} catch (error) {
		return { name: graph.name, ok: false, error: `health check failed: ${errorMessage(error)}` };
	}
}
