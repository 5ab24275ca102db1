import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { createBackend } from "../backends/factory";
import type { EngramaConfig } from "../config/engrama-config";
import { resolveIdentity } from "../engine/identity";
import { Memory } from "../engine/memory";
import type { Profile } from "../engine/profile";
import type { EmbeddingProvider } from "../engine/protocols";
import type { Scope } from "../engine/types";
import { loadProfileFromDisk } from "./profile-files";

export interface OpenedMemory {
	readonly memory: Memory;
	readonly scope: Scope;
	readonly config: EngramaConfig;
	close(): Promise<void>;
}

/** Builds the whole engine in a Node process (command line, MCP serve, tests, benchmarks). */
export async function openMemory(
	config: EngramaConfig,
	options: { profile?: Profile; embedder?: EmbeddingProvider | null } = {},
): Promise<OpenedMemory> {
	const profile = options.profile ?? loadProfileFromDisk(config.profile, config.modules);
	if (config.backend === "sqlite" && config.dbPath !== ":memory:") mkdirSync(dirname(config.dbPath), { recursive: true });
	const { graph, vectors } = await createBackend(config);
	try {
		const scope = await resolveIdentity(graph, config);
		const memory = new Memory({ graph, vectors, embedder: options.embedder ?? null, profile });
		return { memory, scope, config, close: () => memory.close() };
	} catch (error) {
		await graph.close();
		throw error;
	}
}
