import { join } from "node:path";
import { parseConfig, type EngramaConfig } from "../../src/config/engrama-config";
import type { Profile } from "../../src/engine/profile";
import { loadProfileFromDisk } from "../../src/node/profile-files";
import { openMemory, type OpenedMemory } from "../../src/node/open-memory";
import { makeTempDir } from "../helpers/temp-dir";

export interface TestBackend {
	readonly name: string;
	/** A fresh, empty memory on this backend. */
	open(options?: { profile?: Profile; config?: Partial<EngramaConfig> }): Promise<OpenedMemory>;
}

let sharedProfile: Profile | undefined;
export function testProfile(): Profile {
	sharedProfile ??= loadProfileFromDisk("base", ["teaching", "hacking"]);
	return sharedProfile;
}

export const sqliteTestBackend: TestBackend = {
	name: "sqlite",
	async open(options = {}) {
		const dir = makeTempDir("engrama-contract-");
		const config = parseConfig({ backend: "sqlite", dbPath: process.env.ENGRAMA_TEST_SQLITE_MEMORY ? ":memory:" : join(dir.path, "memory.db"), ...options.config });
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

const ALL: Record<string, TestBackend> = { sqlite: sqliteTestBackend };

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
