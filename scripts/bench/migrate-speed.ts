// `engrama migrate` between two SQLite engines: a memory built once with the native engine through the
// write pipeline (384-d hash vectors, ~2 relations per node, a hub every 50 nodes, the same shape as
// neo4j-search), then copied into a new WASM file, `--runs` times; wall time and process CPU per copy.
// Usage: npm run bench -- migrate-speed [--size 10000] [--runs 3] [--keep <dir>] [--batch 500] (records per commit and nodes per page)
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createBackend, migrateMemory } from "../../src/backends";
import { openNativeDatabase } from "../../src/backends/native";
import { parseConfig } from "../../src/config/engrama-config";
import { HashEmbeddingProvider } from "../../src/engine/embedding/hash-embedding-provider";
import { Memory } from "../../src/engine/memory";
import type { WriteContext } from "../../src/engine/write/write-pipeline";
import { loadProfileFromDisk } from "../../src/nodejs/profile-files";
import { arg } from "./args";
import { seededRandom, sentence } from "./stats";

const size = Number(arg("size", "10000"));
const runs = Number(arg("runs", "3"));
const LABELS = ["Project", "Concept", "Technology", "Problem", "Decision", "Person"] as const;
const scope = { orgId: "bench", userId: "migrate" };
const keep = arg("keep", "");
const batchSize = Number(arg("batch", "500"));
const dir = keep || mkdtempSync(join(tmpdir(), "engrama-migrate-speed-"));
mkdirSync(dir, { recursive: true });
const sourcePath = join(dir, `source-${size}.db`);
const native = (path: string) => createBackend(parseConfig({ backend: "sqlite", dbPath: path }), { sqliteEngine: "native", openNative: openNativeDatabase });
const wasm = (path: string) => createBackend(parseConfig({ backend: "sqlite", dbPath: path }), { sqliteEngine: "wasm" });

/** The memory to copy, built once per size (kept with --keep so later runs skip it). */
async function build(path: string): Promise<void> {
	const lite = await native(path);
	const memory = new Memory({ graph: lite.graph, vectors: lite.vectors, embedder: new HashEmbeddingProvider(384), profile: loadProfileFromDisk("base", []) });
	const ctx: WriteContext = { scope, source: "cli", agent: "bench", session: "s-1" };
	const rand = seededRandom(size);
	const refs: { label: string; key: string }[] = [];
	for (let start = 0; start < size; start += 500) {
		await memory.pipeline.transaction(async () => {
			for (let i = start; i < Math.min(size, start + 500); i++) {
				const label = LABELS[i % LABELS.length];
				refs.push({ label, key: `${label} ${i} ${sentence(rand, 2)}` });
				await memory.remember(ctx, { label, key: refs[i].key, props: { description: sentence(rand, 12) } });
				for (let e = 0; e < 2 && i > 0; e++) await memory.relate(ctx, refs[i], "RELATED_TO", refs[Math.floor(rand() * i)]);
			}
		});
	}
	await memory.pipeline.transaction(async () => {
		for (let h = 0; h < size; h += 50) for (let e = 0; e < 100; e++) await memory.relate(ctx, refs[Math.floor(rand() * size)], "RELATED_TO", refs[h]);
	});
	await lite.graph.close();
}

if (!existsSync(sourcePath)) await build(sourcePath);
for (let run = 0; run < runs; run++) {
	// A copy of the source per run: the native engine's open leaves the file as it found it, but a run never depends on that.
	const copy = join(dir, `run-${run}.db`);
	copyFileSync(sourcePath, copy);
	const target = join(dir, `target-${run}.db`);
	rmSync(target, { force: true });
	const source = await native(copy);
	const into = await wasm(target);
	const cpu0 = process.cpuUsage();
	const t0 = performance.now();
	const report = await migrateMemory(source, into, { batchSize });
	const wall = (performance.now() - t0) / 1000;
	const cpu = process.cpuUsage(cpu0);
	await into.graph.close();
	await source.graph.close();
	const counts = report.scopes.map((s) => `${s.target.nodes} nodes, ${s.target.edges} edges, ${s.target.vectors} vectors, ${s.target.history} history`).join("; ");
	console.log(
		`run ${run + 1}: native → WASM ${size} nodes, batch ${batchSize}: wall ${wall.toFixed(2)} s, CPU ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s, verified ${report.verified} (${counts})`,
	);
	rmSync(copy, { force: true });
	rmSync(target, { force: true });
}
if (!keep) rmSync(dir, { recursive: true, force: true });
