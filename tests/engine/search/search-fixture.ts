import { join } from "node:path";
import { createBackend } from "../../../src/backends/factory";
import { parseConfig } from "../../../src/config/engrama-config";
import type { Clock } from "../../../src/engine/clock";
import { resolveIdentity } from "../../../src/engine/standalone-identity";
import { Memory } from "../../../src/engine/memory";
import type { EmbeddingProvider } from "../../../src/engine/protocols";
import type { SearchSettings } from "../../../src/engine/search/hybrid-search";
import type { Scope } from "../../../src/engine/types";
import type { WriteContext } from "../../../src/engine/write/write-pipeline";
import { testProfile } from "../../contracts/backends";
import { makeTempDir } from "../../helpers/temp-dir";

/** A clock the test moves by hand. */
export class ManualClock implements Clock {
	constructor(public time = Date.parse("2026-03-01T12:00:00Z")) {}
	now(): Date {
		return new Date(this.time);
	}
	advanceDays(days: number): void {
		this.time += days * 86_400_000;
	}
}

export interface SearchMemory {
	readonly memory: Memory;
	readonly scope: Scope;
	readonly ctx: WriteContext;
	readonly dbPath: string;
	remember(label: string, key: string, props?: Record<string, unknown>, source?: WriteContext["source"]): Promise<string>;
	relate(from: [string, string], type: string, to: [string, string]): Promise<void>;
	/** The same database file, reopened with another embedder. */
	reopen(embedder: EmbeddingProvider | null): Promise<SearchMemory>;
	close(): Promise<void>;
}

/** A real SQLite memory (WASM, file in a temp dir) with the given embedder, clock and settings. */
export async function openSearchMemory(
	options: { embedder?: EmbeddingProvider | null; clock?: Clock; search?: Partial<SearchSettings>; dbPath?: string } = {},
): Promise<SearchMemory> {
	const dir = options.dbPath ? undefined : makeTempDir("engrama-search-");
	const dbPath = options.dbPath ?? join(dir?.path ?? "", "memory.db");
	const config = parseConfig({ backend: "sqlite", dbPath, orgId: "test-org", userId: "test-user" });
	const { graph, vectors } = await createBackend(config);
	const memory = new Memory({ graph, vectors, embedder: options.embedder ?? null, profile: testProfile(), clock: options.clock, search: options.search });
	const scope = await resolveIdentity(memory, config);
	const ctx: WriteContext = { scope, source: "cli" };
	const self: SearchMemory = {
		memory,
		scope,
		ctx,
		dbPath,
		async remember(label, key, props = {}, source = "cli") {
			const { node } = await memory.remember({ scope, source }, { label, key, props });
			return node.id;
		},
		async relate(from, type, to) {
			await memory.relate(ctx, { label: from[0], key: from[1] }, type, { label: to[0], key: to[1] });
		},
		async reopen(embedder) {
			await memory.close();
			return openSearchMemory({ ...options, embedder, dbPath });
		},
		async close() {
			await memory.close();
			dir?.cleanup();
		},
	};
	return self;
}
