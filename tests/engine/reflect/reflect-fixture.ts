import { cpSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createBackend } from "../../../src/backends/factory";
import { parseConfig } from "../../../src/config/engrama-config";
import type { Clock } from "../../../src/engine/clock";
import type { EmbeddingProvider } from "../../../src/engine/protocols";
import { Memory } from "../../../src/engine/memory";
import { loadProfile, type Profile } from "../../../src/engine/profile";
import { VaultSync } from "../../../src/engine/sync/vault-sync";
import type { NodeRecord, Scope } from "../../../src/engine/types";
import type { WriteContext } from "../../../src/engine/write/write-pipeline";
import { FolderVaultSource } from "../../../src/nodejs/folder-vault-source";
import { makeTempDir } from "../../helpers/temp-dir";

export const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
export const EXAMPLE_VAULT = join(ROOT, "examples/vault");
export const APPROVED_TITLES = join(ROOT, "tests/engine/reflect/__approved__/example-vault.insights.txt");

const profileFile = (file: string) => ({ file, text: readFileSync(join(ROOT, "profiles", file), "utf8") });

/** base + teaching + hacking: the example vault's labels plus Vulnerability and Technique. */
export function reflectProfile(): Profile {
	return loadProfile([profileFile("base.yaml"), profileFile("modules/teaching.yaml"), profileFile("modules/hacking.yaml")]);
}

export const SCOPE: Scope = { orgId: "reflect-org", userId: "reflect-user" };
export const CTX: WriteContext = { scope: SCOPE, source: "cli" };

/** A movable clock: tests pin "now" and step it forward. */
export function testClock(iso: string): Clock & { set(iso: string): void } {
	let now = new Date(iso);
	return { now: () => new Date(now), set: (next) => (now = new Date(next)) };
}

export interface ReflectHarness {
	readonly memory: Memory;
	readonly dir: string;
	readonly vaultDir: string;
	readonly clock: ReturnType<typeof testClock>;
	/** MERGE an entity (props as a note or agent would give them). */
	node(label: string, key: string, props?: Record<string, unknown>): Promise<NodeRecord>;
	rel(fromLabel: string, fromKey: string, type: string, toLabel: string, toKey: string): Promise<void>;
	/** Copies the example vault into the temp dir and syncs it through the real sync service. */
	syncExampleVault(): Promise<FolderVaultSource>;
	close(): Promise<void>;
}

/** A real SQLite file in a temp dir, a Memory on it with a pinned clock, and no embedder unless given. */
export async function openReflectHarness(options: { now?: string; embedder?: EmbeddingProvider | null } = {}): Promise<ReflectHarness> {
	const temp = makeTempDir("engrama-reflect-");
	const config = parseConfig({ backend: "sqlite", dbPath: join(temp.path, "memory.db"), orgId: SCOPE.orgId, userId: SCOPE.userId });
	const { graph, vectors } = await createBackend(config);
	const clock = testClock(options.now ?? "2026-03-15T10:00:00.000Z");
	const memory = new Memory({ graph, vectors, embedder: options.embedder ?? null, profile: reflectProfile(), clock });
	const vaultDir = join(temp.path, "vault");
	let sync: VaultSync | undefined;
	return {
		memory,
		dir: temp.path,
		vaultDir,
		clock,
		async node(label, key, props = {}) {
			return (await memory.remember(CTX, { label, key, props })).node;
		},
		async rel(fromLabel, fromKey, type, toLabel, toKey) {
			await memory.relate(CTX, { label: fromLabel, key: fromKey }, type, { label: toLabel, key: toKey });
		},
		async syncExampleVault() {
			mkdirSync(vaultDir, { recursive: true });
			cpSync(EXAMPLE_VAULT, vaultDir, { recursive: true });
			const source = new FolderVaultSource(vaultDir, { watchMode: "poll" });
			sync = new VaultSync({ memory, source, scope: SCOPE, settings: { writeGraphToVault: false } });
			const report = await sync.fullSync();
			if (report.problems.some((p) => p.severity === "error")) throw new Error(`sync failed: ${JSON.stringify(report.problems)}`);
			return source;
		},
		async close() {
			await sync?.stop();
			await memory.close();
			temp.cleanup();
		},
	};
}

export interface ApprovedInsight {
	readonly detector: string;
	readonly confidence: number;
	readonly title: string;
}

/** The example vault's expected Insights: `detector<TAB>confidence<TAB>title`; `#` comments and blank lines ignored. */
export function approvedInsights(): ApprovedInsight[] {
	return readFileSync(APPROVED_TITLES, "utf8")
		.split("\n")
		.filter((line) => line.trim() !== "" && !line.startsWith("#"))
		.map((line) => {
			const [detector, confidence, title] = line.split("\t");
			return { detector, confidence: Number(confidence), title };
		});
}
