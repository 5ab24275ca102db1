import { join } from "node:path";
import { parseConfig, type EngramaConfig, type SqliteEngine } from "../../src/config/engrama-config";
import type { Profile } from "../../src/engine/profile";
import { loadProfileFromDisk } from "../../src/nodejs/profile-files";
import { openMemory, type OpenedMemory } from "../../src/nodejs/open-memory";
import { makeTempDir } from "../helpers/temp-dir";

export interface TestBackend {
	readonly name: string;
	/** The store's own name (GraphStore.name) where the test backend's differs: sqlite-native is "sqlite". */
	readonly storeName?: string;
	/** A fresh, empty memory on this backend. */
	open(options?: { profile?: Profile; config?: Partial<EngramaConfig> }): Promise<OpenedMemory>;
}

let sharedProfile: Profile | undefined;
export function testProfile(): Profile {
	sharedProfile ??= loadProfileFromDisk("base", ["teaching", "hacking"]);
	return sharedProfile;
}

/** SQLite on one engine: `sqlite` is the WASM engine (the plugin's), `sqlite-native` the command line's. */
function sqliteBackend(name: string, sqliteEngine: SqliteEngine): TestBackend {
	return {
		name,
		storeName: "sqlite",
		async open(options = {}) {
			const dir = makeTempDir("engrama-contract-");
			const dbPath = process.env.ENGRAMA_TEST_SQLITE_MEMORY ? ":memory:" : join(dir.path, "memory.db");
			const config = parseConfig({ backend: "sqlite", sqliteEngine, dbPath, ...options.config });
			const opened = await openMemory(config, { profile: options.profile ?? testProfile() });
			return {
				...opened,
				close: async () => {
					await opened.close();
					dir.cleanup();
				},
			};
		},
	};
}

export const sqliteTestBackend = sqliteBackend("sqlite", "wasm");
export const sqliteNativeTestBackend = sqliteBackend("sqlite-native", "native");

const ALL: Record<string, TestBackend> = { sqlite: sqliteTestBackend, "sqlite-native": sqliteNativeTestBackend };

/** Register another backend for the contract suite (Neo4j adds itself when its server is up). */
export function registerTestBackend(backend: TestBackend): void {
	ALL[backend.name] = backend;
}

function wantedBackends(): string[] {
	return (process.env.ENGRAMA_TEST_BACKENDS ?? "sqlite").split(",").map((s) => s.trim()).filter(Boolean);
}

/** Backends named in ENGRAMA_TEST_BACKENDS (default: sqlite). */
export function testBackends(): TestBackend[] {
	const wanted = wantedBackends();
	return wanted.map((name) => {
		const backend = ALL[name];
		if (!backend) throw new Error(`ENGRAMA_TEST_BACKENDS names "${name}", which has no test backend (known: ${Object.keys(ALL).join(", ")}).`);
		return backend;
	});
}

// Neo4j registers itself (tests/contracts/neo4j-backend.ts) only when asked for: it needs the test server.
if (wantedBackends().includes("neo4j")) await import("./neo4j-backend");
