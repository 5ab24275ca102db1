// Related notes (the Context tab's list, skills.related): latency per active note on a synced vault.
// Generates a vault (generate-vault.mjs), syncs it with a 384-d hash embedder (so every passage has
// a vector, as with the local model), then asks related() for --queries notes.
// Usage: npm run bench -- related-notes [--notes 10000] [--queries 100] [--engine wasm|native]
//   [--vault DIR]: a real vault instead (read only: no id is written), e.g. obsidian-hub from
//   scripts/bench/vault-retrieval/get-obsidian-hub.sh
//   [--db FILE]: keep the synced memory in FILE and, when FILE exists, ask it without syncing again
//   (to compare code on the same memory; the memory's format must not have changed in between)
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseConfig, type SqliteEngine } from "../../src/config/engrama-config";
import { VaultSync } from "../../src/engine";
import { createSkills } from "../../src/engine/host";
import { HashEmbeddingProvider } from "../../src/engine/embedding/hash-embedding-provider";
import { FolderVaultSource } from "../../src/nodejs/folder-vault-source";
import { openMemory } from "../../src/nodejs/open-memory";
import { arg } from "./args";
import { fmt, percentile, seededRandom } from "./stats";

const notes = Number(arg("notes", "10000"));
const queries = Number(arg("queries", "100"));
const engine = arg("engine", "wasm") as SqliteEngine;
const realVault = arg("vault", "");
/** Print the lists of the first N notes asked about (to read what it finds). */
const show = Number(arg("show", "0"));
const keptDb = arg("db", "");

const dir = mkdtempSync(join(tmpdir(), "engrama-related-"));
try {
	const vault = realVault || join(dir, "vault");
	const kept = keptDb !== "" && existsSync(keptDb);
	if (!realVault && !kept) execFileSync(process.execPath, ["scripts/bench/generate-vault.mjs", "--notes", String(notes), "--out", vault, "--seed", "7"], { stdio: "ignore" });
	const opened = await openMemory(parseConfig({ backend: "sqlite", sqliteEngine: engine, dbPath: keptDb || join(dir, "m.db"), orgId: "b", userId: "b" }), {
		embedder: new HashEmbeddingProvider(384),
	});
	const { memory, scope } = opened;
	const source = new FolderVaultSource(vault, { watchMode: "fs" });
	const sync = new VaultSync({ memory, source, scope, settings: { writeEngramaIds: false } });
	const started = performance.now();
	if (kept) console.log(`asking the kept memory ${keptDb} (not synced again)`);
	else await sync.fullSync();
	if (!kept) console.log(`synced ${realVault || `${notes} generated notes`} in ${((performance.now() - started) / 1000).toFixed(1)} s (load ${loadavg()[0].toFixed(1)})`);
	const skills = createSkills(memory);
	const all = (await memory.graph.listNodes(scope, {})).filter((n) => typeof n.props.obsidian_path === "string");
	const rand = seededRandom(3);
	const samples: number[] = []; // each note's first question
	/** CPU time of this process per question: steadier than wall time on a shared machine. */
	const cpu: number[] = [];
	let listed = 0;
	// Distinct notes: a note asked twice is answered from its kept list (reported apart, below).
	const asked = new Set<number>();
	while (asked.size < Math.min(queries, all.length)) asked.add(Math.floor(rand() * all.length));
	for (const [i, at] of [...asked].entries()) {
		const node = all[at];
		const t0 = performance.now();
		const c0 = process.cpuUsage();
		const view = await skills.related(scope, { label: node.label, name: node.key });
		samples.push(performance.now() - t0);
		const used = process.cpuUsage(c0);
		cpu.push((used.user + used.system) / 1000);
		listed += view?.related.length ?? 0;
		if (i < show) console.log(`${node.props.obsidian_path as string}\n${(view?.related ?? []).map((r) => `  ${r.path} [${r.reasons.join(", ")}] ${r.passage?.heading ?? ""}`).join("\n")}`);
	}
	console.log(
		`related notes, ${engine}, ${all.length} notes, first question per note: p50 ${fmt(percentile(samples, 50))}, p95 ${fmt(percentile(samples, 95))}, max ${fmt(Math.max(...samples))}; CPU p50 ${fmt(percentile(cpu, 50))}, p95 ${fmt(percentile(cpu, 95))}; ${(listed / asked.size).toFixed(1)} notes listed on average (load ${loadavg()[0].toFixed(1)})`,
	);
	const again: number[] = [];
	for (const at of asked) {
		const t0 = performance.now();
		await skills.related(scope, { label: all[at].label, name: all[at].key });
		again.push(performance.now() - t0);
	}
	console.log(`the same notes asked again (kept lists): p50 ${fmt(percentile(again, 50))}, p95 ${fmt(percentile(again, 95))} (load ${loadavg()[0].toFixed(1)})`);
	await sync.stop();
	await opened.close();
} finally {
	rmSync(dir, { recursive: true, force: true });
}
