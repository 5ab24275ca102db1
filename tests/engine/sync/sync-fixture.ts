import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createNodeBackend } from "../../../src/nodejs/node-backend";
import { parseConfig, type SqliteEngine } from "../../../src/config/engrama-config";
import { Memory } from "../../../src/engine/memory";
import { loadProfile, type Profile } from "../../../src/engine/profile";
import type { EmbeddingProvider, GraphStore } from "../../../src/engine/protocols";
import type { SyncReport, SyncSettings } from "../../../src/engine/sync";
import { VaultSync } from "../../../src/engine/sync/vault-sync";
import type { EdgeRecord, NodeRecord, Scope } from "../../../src/engine/types";
import { FolderVaultSource } from "../../../src/nodejs/folder-vault-source";
import { makeTempDir } from "../../helpers/temp-dir";

export const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
export const EXAMPLE_VAULT = join(ROOT, "examples/vault");
export const BAD_VAULT = join(ROOT, "tests/fixtures/bad-vault");

const profileFile = (file: string) => ({ file, text: readFileSync(join(ROOT, "profiles", file), "utf8") });

/** base + teaching: what the example vault is written for. */
export function exampleProfile(): Profile {
	return loadProfile([profileFile("base.yaml"), profileFile("modules/teaching.yaml")]);
}

export const SCOPE: Scope = { orgId: "test-org", userId: "test-user" };

export interface SyncHarness {
	readonly vaultDir: string;
	readonly dbPath: string;
	readonly memory: Memory;
	/** The store beneath `memory` (as wrapped), for tests that build another Memory over it. */
	readonly graph: GraphStore;
	readonly source: FolderVaultSource;
	readonly sync: VaultSync;
	readonly batches: SyncReport[];
	write(path: string, text: string): void;
	read(path: string): string;
	/** Another VaultSync over the same memory and vault, with other settings. */
	makeSync(settings: Partial<SyncSettings>): VaultSync;
	/** Same vault, another (or a fresh) database file. */
	reopen(options?: { dbPath?: string; settings?: Partial<SyncSettings>; embedder?: EmbeddingProvider | null }): Promise<SyncHarness>;
	close(): Promise<void>;
}

/** A real folder vault (copied from `from`, or empty) and a real SQLite file, both in a temp dir. */
export async function openHarness(
	options: {
		from?: string;
		settings?: Partial<SyncSettings>;
		profile?: Profile;
		vaultDir?: string;
		dbPath?: string;
		/** Wraps the real store (a recorder of its calls); the memory and the sync use what it returns. */
		wrapGraph?: (graph: GraphStore) => GraphStore;
		/** Default: the plugin's (WASM). */
		sqliteEngine?: SqliteEngine;
		/** Default: none (words only). */
		embedder?: EmbeddingProvider | null;
	} = {},
): Promise<SyncHarness> {
	const temp = makeTempDir("engrama-sync-");
	const vaultDir = options.vaultDir ?? join(temp.path, "vault");
	if (!options.vaultDir) {
		mkdirSync(vaultDir, { recursive: true });
		// Times kept: which of two notes sharing an engrama_id is the original depends on them.
		if (options.from) cpSync(options.from, vaultDir, { recursive: true, preserveTimestamps: true });
	}
	const dbPath = options.dbPath ?? join(temp.path, "memory.db");
	const config = parseConfig({ backend: "sqlite", sqliteEngine: options.sqliteEngine ?? "wasm", dbPath, orgId: SCOPE.orgId, userId: SCOPE.userId });
	const { graph, vectors } = await createNodeBackend(config);
	const profile = options.profile ?? exampleProfile();
	const store = options.wrapGraph ? options.wrapGraph(graph) : graph;
	const memory = new Memory({ graph: store, vectors, embedder: options.embedder ?? null, profile });
	const source = new FolderVaultSource(vaultDir, { watchMode: "fs" });
	const batches: SyncReport[] = [];
	const makeSync = (settings: Partial<SyncSettings> = {}) =>
		new VaultSync({
			memory,
			source,
			scope: SCOPE,
			settings: { debounceMs: 40, ...settings },
			timers: { setTimeout: (fn, ms) => setTimeout(fn, ms), clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout) },
			onBatch: (report) => batches.push(report),
		});
	const sync = makeSync(options.settings);
	const harness: SyncHarness = {
		vaultDir,
		dbPath,
		memory,
		graph: store,
		source,
		sync,
		batches,
		makeSync,
		write(path, text) {
			mkdirSync(dirname(join(vaultDir, path)), { recursive: true });
			writeFileSync(join(vaultDir, path), text);
		},
		read(path) {
			return readFileSync(join(vaultDir, path), "utf8");
		},
		async reopen(more = {}) {
			const embedder = more.embedder !== undefined ? more.embedder : options.embedder;
			return openHarness({ vaultDir, dbPath: more.dbPath, profile, settings: more.settings ?? options.settings, sqliteEngine: options.sqliteEngine, embedder });
		},
		async close() {
			await sync.stop();
			await memory.close();
		},
	};
	return harness;
}

export async function allNodes(memory: Memory, includeArchived = true): Promise<NodeRecord[]> {
	return [...(await memory.graph.listNodes(SCOPE, { includeArchived }))];
}

export async function node(memory: Memory, label: string, key: string): Promise<NodeRecord> {
	const found = await memory.graph.getNode(SCOPE, label, key);
	if (!found) throw new Error(`no ${label} "${key}"`);
	return found;
}

export async function outEdges(memory: Memory, from: NodeRecord, type?: string): Promise<{ type: string; to: NodeRecord; edge: EdgeRecord }[]> {
	const edges = await memory.graph.edgesOf(SCOPE, from.id, "out", type ? [type] : undefined);
	return edges.map((e) => ({ type: e.type, to: e.node, edge: e.edge }));
}

// note_written records a write graph → vault made: a graph rebuilt from the vault made none.
const TIMESTAMPS = new Set(["created_at", "updated_at", "valid_from", "archived_at", "obsidian_mtime", "note_written"]);

/** The graph as comparable data: nodes by label+key (stubs without ids), edges by endpoints; timestamps dropped. */
export async function graphSnapshot(memory: Memory): Promise<{ nodes: string[]; edges: string[] }> {
	const nodes = await allNodes(memory);
	const byId = new Map(nodes.map((n) => [n.id, n]));
	const nodeLines = nodes
		.map((n) => {
			const props = Object.fromEntries(
				Object.entries(n.props)
					.filter(([k]) => !TIMESTAMPS.has(k))
					.filter(([k]) => !(n.props.status === "stub" && k === "engrama_id"))
					.sort(([a], [b]) => (a < b ? -1 : 1)),
			);
			return `${n.label}|${n.key}|${JSON.stringify(props)}`;
		})
		.sort();
	const edgeLines: string[] = [];
	for (const n of nodes) {
		for (const e of await memory.graph.edgesOf(SCOPE, n.id, "out")) {
			const to = byId.get(e.node.id) ?? e.node;
			const props = Object.fromEntries(Object.entries(e.edge.props).sort(([a], [b]) => (a < b ? -1 : 1)));
			edgeLines.push(`${n.label}:${n.key} -${e.type}-> ${to.label}:${to.key} ${JSON.stringify(props)}`);
		}
	}
	return { nodes: nodeLines, edges: edgeLines.sort() };
}

/** Waits until `check` passes (file watchers are asynchronous; late on a busy machine, hence 20 s). */
export async function eventually(check: () => Promise<void> | void, timeoutMs = 20_000): Promise<void> {
	const started = Date.now();
	for (;;) {
		try {
			await check();
			return;
		} catch (error) {
			if (Date.now() - started > timeoutMs) throw error;
			await new Promise((r) => setTimeout(r, 50));
		}
	}
}
