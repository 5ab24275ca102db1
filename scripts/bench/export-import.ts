/**
 * engrama export → import of a generated SQLite memory: time, file size and the process's peak
 * RSS for each direction, so the streaming claim (no whole-memory string) has a number.
 *
 *   npm run bench -- export-import [--nodes 50000]
 */
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from "node:fs";
import { once } from "node:events";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { parseConfig } from "../../src/config/engrama-config";
import { exportMemory } from "../../src/engine/transfer/memory-export";
import { importMemory } from "../../src/engine/transfer/memory-import";
import { openMemory } from "../../src/nodejs/open-memory";
import { arg } from "./args";

const NODES = Number(arg("nodes", "50000"));
const dir = mkdtempSync(join(tmpdir(), "engrama-export-bench-"));
let peak = 0;
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
const mb = (n: number) => `${(n / 1048576).toFixed(0)} MB`;

try {
	const source = await openMemory(parseConfig({ backend: "sqlite", dbPath: join(dir, "a.db") }));
	const { graph } = source.stores;
	const scope = source.scope;
	const now = new Date().toISOString();
	for (let i = 0; i < NODES; i += 1000) {
		await graph.transaction(async () => {
			const inputs = Array.from({ length: Math.min(1000, NODES - i) }, (_, j) => ({
				label: "Concept",
				keyField: "name" as const,
				key: `Concept ${i + j}`,
				set: { description: `Generated concept number ${i + j} about graph memory and export`, source: "mcp", source_agent: "bench", trust_level: 0.5 },
				setOnCreate: { engrama_id: crypto.randomUUID() },
				now,
			}));
			const results = await graph.mergeNodes!(scope, inputs);
			const edges = results.slice(1).map((r, k) => ({ fromId: results[k].node.id, type: "RELATED_TO", toId: r.node.id, now }));
			await graph.mergeEdges!(scope, edges);
		});
	}
	const file = join(dir, "memory.ndjson");
	peak = process.memoryUsage().rss;
	const before = peak;
	let t = performance.now();
	const out = createWriteStream(file);
	for await (const line of exportMemory(graph, source.memory.vectors, { vectors: false, embeddingModel: "", version: "bench", now })) {
		if (!out.write(`${JSON.stringify(line)}\n`)) await once(out, "drain");
	}
	await new Promise<void>((done) => out.end(() => done()));
	const exportMs = performance.now() - t;
	console.log(`export: ${NODES} nodes in ${(exportMs / 1000).toFixed(1)} s, file ${mb(statSync(file).size)}, peak RSS ${mb(peak)} (before ${mb(before)}), load ${loadavg()[0].toFixed(1)}`);
	await source.close();

	const target = await openMemory(parseConfig({ backend: "sqlite", dbPath: join(dir, "b.db") }));
	peak = process.memoryUsage().rss;
	const beforeImport = peak;
	t = performance.now();
	const report = await importMemory(target.memory, () => createInterface({ input: createReadStream(file, { encoding: "utf8" }), crlfDelay: Infinity }), {
		merge: false,
		dryRun: false,
		callerScope: target.scope,
		embeddingModel: "",
		newId: () => crypto.randomUUID(),
		now,
	});
	const importMs = performance.now() - t;
	const counts = await target.memory.graph.counts(scope);
	console.log(
		`import: ${report.nodes.created} nodes, ${report.relations} relations in ${(importMs / 1000).toFixed(1)} s, peak RSS ${mb(peak)} (before ${mb(beforeImport)}), load ${loadavg()[0].toFixed(1)}; memory holds ${counts.nodes} nodes, ${counts.edges} edges`,
	);
	await target.close();
} finally {
	clearInterval(sampler);
	rmSync(dir, { recursive: true, force: true });
}
