import { dirname } from "node:path";
import type { Backend } from "../backends";
import { createNodeBackend } from "./node-backend";
import type { EngramaConfig } from "../config/engrama-config";
import { createSkills, type EmbeddingProvider, type GraphStore, Memory, memoryLocalModel, type Profile, recordVectorModel, resolveIdentity, STANDALONE_ID_META, type VectorStore } from "../engine/host";
import type { Skills } from "../engine";
import type { Scope } from "../engine/types";
import { loadProfileFromDisk } from "./profile-files";
import { preparePrivateDir } from "./private-dir";
import { createNodeEmbedder, resolveDimensions } from "./embedders/create-embedder";
import { stderrModelProgress } from "./embedders/model-progress";
import type { ModelProgress } from "./embedders/transformers-embedding-provider";

export interface OpenedMemory {
	readonly memory: Memory;
	/** The face over `memory`, with the configured resolver. */
	readonly skills: Skills;
	/** The stores themselves, for a host that builds another Memory over them (benchmarks, tests); writes go through a Memory. */
	readonly stores: { readonly graph: GraphStore; readonly vectors: VectorStore | null };
	readonly scope: Scope;
	readonly config: EngramaConfig;
	close(): Promise<void>;
}

/**
 * A local provider with no model named keeps the model of the memory's vectors (the default
 * may change, e.g. to e5-small-v2; a memory embedded before keeps answering until
 * a model is named and the memory re-embedded). Otherwise the config as it is.
 */
async function withMemoryModel(config: EngramaConfig, graph: GraphStore, vectors: VectorStore | null): Promise<EngramaConfig["embedding"]> {
	if (config.embedding.provider !== "local" || config.embedding.model.trim() !== "") return config.embedding;
	const model = await memoryLocalModel(graph, vectors);
	return model ? { ...config.embedding, model } : config.embedding;
}

/** Builds the whole engine in a Node process (command line, MCP serve, tests, benchmarks). */
export async function openMemory(
	config: EngramaConfig,
	options: {
		profile?: Profile;
		/** Overrides config.embedding (undefined: build it from the config; null: none). */
		embedder?: EmbeddingProvider | null;
		/** Download progress of a local model on first use. */
		onModelProgress?: (progress: ModelProgress) => void;
	} = {},
): Promise<OpenedMemory> {
	const profile = options.profile ?? loadProfileFromDisk(config.profile, config.modules);
	if (config.backend === "sqlite" && config.dbPath !== ":memory:") preparePrivateDir(dirname(config.dbPath));
	const { graph, vectors } = await createNodeBackend(config);
	try {
		const embedding = await withMemoryModel(config, graph, vectors);
		const embedder =
			options.embedder !== undefined ? options.embedder : createNodeEmbedder({ ...config, embedding }, {
						onProgress: options.onModelProgress ?? stderrModelProgress(embedding.model || "local model"),
					});
		if (options.embedder === undefined) await resolveDimensions(embedder);
		const search = {
			fusion: config.search.fusionMode,
			rrfK: config.search.rrfK,
			graphRerank: config.search.graphRerank,
			graphHops: config.search.graphHops,
			alpha: config.search.alpha,
			graphWeight: config.search.graphWeight,
			temporalWeight: config.search.temporalWeight,
			trustWeight: config.search.trustWeight,
			anchorWeight: config.search.anchorWeight,
			cohesionDecay: config.search.cohesionDecay,
			fanOutCap: config.search.fanOutCap,
			halfLifeDays: config.search.halfLifeDays,
			dateCueWeight: config.search.dateCueWeight,
			whenWeight: config.search.whenWeight,
			hubPenalty: config.search.hubPenalty,
		};
		// One event-loop turn before a group of writes commits: requests already received join it.
		const yieldToInput = () => new Promise<void>((resolve) => setImmediate(resolve));
		const memory = new Memory({ graph, vectors, embedder, profile, search, yieldToInput });
		// The memory's own notes go through its write queue: who writes, and the model of its vectors.
		const scope = await resolveIdentity(memory, config);
		await recordVectorModel(memory);
		const release = (embedder as { close?: () => Promise<void> } | null)?.close;
		return {
			memory,
			skills: createSkills(memory, { resolver: config.resolver }),
			stores: { graph, vectors },
			scope,
			config,
			close: async () => {
				await memory.close();
				if (release && embedder) await release.call(embedder);
			},
		};
	} catch (error) {
		await graph.close();
		throw error;
	}
}

/**
 * `engrama init` on a store just opened: gives a memory opened for the first time (no nodes, no
 * standalone identity) its identity; true when it did, false when the memory was there before.
 */
export async function initialiseMemory({ graph }: Backend, config: EngramaConfig): Promise<boolean> {
	const existed = ((await graph.health()).nodes ?? 0) > 0 || (await graph.getMeta(STANDALONE_ID_META)) !== null;
	// The identity is the memory's first write, through a Memory's write queue (the store stays open for the caller).
	if (!existed) await resolveIdentity(new Memory({ graph, profile: loadProfileFromDisk(config.profile, config.modules) }), config);
	return !existed;
}
