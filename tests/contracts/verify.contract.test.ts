import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Neo4jGraphStore } from "../../src/backends/neo4j/neo4j-graph-store";
import { compactMemory, describeCompact, repairMemory, verifyMemory } from "../../src/engine/verify";
import type { WriteContext } from "../../src/engine/write/write-pipeline";
import type { OpenedMemory } from "../../src/nodejs/open-memory";
import { testBackends } from "./backends";

describe.each(testBackends())("verify contract on $name", (backend) => {
	let opened: OpenedMemory;
	let ctx: WriteContext;

	beforeEach(async () => {
		// A hash embedder so every write stores a vector and the vector checks have rows to read.
		opened = await backend.open({ config: { embedding: { provider: "hash", model: "", dimensions: 32, baseUrl: "", apiKey: "", allowRemoteModels: false, localModelPath: "", timeoutMs: 30_000 } } });
		ctx = { scope: opened.scope, source: "cli" };
	});
	afterEach(async () => {
		await opened.close();
	});

	it("finds nothing wrong after ordinary writes, archives and deletes, and changes nothing", async () => {
		const { memory, scope } = opened;
		await memory.remember(ctx, { label: "Project", key: "Billing Portal", props: { description: "Invoices" } });
		await memory.remember(ctx, { label: "Technology", key: "Python" });
		await memory.remember(ctx, { label: "Technology", key: "Rust" });
		await memory.remember(ctx, { label: "Concept", key: "Idempotency" });
		await memory.relate(ctx, { label: "Project", key: "Billing Portal" }, "USES", { label: "Technology", key: "Python" });
		await memory.relate(ctx, { label: "Project", key: "Billing Portal" }, "USES", { label: "Technology", key: "Rust" });
		await memory.forget(ctx, { label: "Technology", key: "Rust" }, { hard: true });
		await memory.forget(ctx, { label: "Concept", key: "Idempotency" });
		const before = await memory.graph.counts(scope);

		const report = await verifyMemory(memory, scope);
		expect(report.checks.filter((c) => !c.ok)).toEqual([]);
		expect(report.ok).toBe(true);
		expect(report.checks.map((c) => c.check)).toEqual(expect.arrayContaining(["storage", "edge_scope", "vector_dimensions", "vectors_missing"]));
		expect(report.vectors_missing).toBe(0);
		expect(await memory.vectors!.count(scope)).toBeGreaterThan(0);
		expect(await memory.graph.counts(scope)).toEqual(before);
		// --fix on a clean memory touches nothing.
		const repaired = await repairMemory(memory);
		expect(Object.values(repaired).every((n) => n === 0)).toBe(true);
		expect(await memory.graph.counts(scope)).toEqual(before);
	});

	it("compact rewrites the SQLite file and changes nothing stored; on Neo4j it says there is nothing to compact", async () => {
		const { memory, scope } = opened;
		await memory.remember(ctx, { label: "Project", key: "Billing Portal", props: { description: "Invoices" } });
		await memory.remember(ctx, { label: "Technology", key: "Python" });
		await memory.relate(ctx, { label: "Project", key: "Billing Portal" }, "USES", { label: "Technology", key: "Python" });
		const before = await memory.graph.edgesOf(scope, (await memory.get(scope, "Project", "Billing Portal"))?.id ?? "", "out");
		const view = await compactMemory(memory);
		if ((backend.storeName ?? backend.name) === "sqlite") {
			expect(view).toMatchObject({ backend: "sqlite", compacted: true });
			expect(view.bytes_after).toBeGreaterThan(0);
		} else {
			expect(view).toEqual({ backend: backend.name, compacted: false, bytes_before: null, bytes_after: null });
			expect(describeCompact(view)).toBe(
				"Nothing to compact: compacting rewrites the SQLite memory file, and this memory is on the neo4j backend (Neo4j manages its own store files).",
			);
		}
		expect(await memory.graph.edgesOf(scope, (await memory.get(scope, "Project", "Billing Portal"))?.id ?? "", "out")).toEqual(before);
	});
});

// Damage only another program could do to a Neo4j memory: a vector of the wrong length, a relation across scopes.
describe.each(testBackends().filter((b) => b.name === "neo4j"))("verify on $name finds damage", (backend) => {
	it("reports a vector of the wrong dimension and a relation between two scopes", async () => {
		const opened = await backend.open({ config: { embedding: { provider: "hash", model: "", dimensions: 32, baseUrl: "", apiKey: "", allowRemoteModels: false, localModelPath: "", timeoutMs: 30_000 } } });
		try {
			const { memory, scope } = opened;
			const ctx: WriteContext = { scope, source: "cli" };
			await memory.remember(ctx, { label: "Project", key: "Billing Portal" });
			await memory.remember(ctx, { label: "Technology", key: "Python" });
			await memory.relate(ctx, { label: "Project", key: "Billing Portal" }, "USES", { label: "Technology", key: "Python" });
			const graph = memory.graph as Neo4jGraphStore;
			await graph.conn.write((q) =>
				q.run("MATCH (n:Engrama {__ns: $ns, __key: 'Python'}) SET n.embedding = [0.5, 0.5], n.user_id = 'someone-else'", { ns: graph.namespace }),
			);
			const report = await verifyMemory(memory, scope);
			expect(report.ok).toBe(false);
			expect(report.checks.find((c) => c.check === "vector_dimensions")).toMatchObject({ ok: false, problems: 1 });
			expect(report.checks.find((c) => c.check === "edge_scope")).toMatchObject({ ok: false, problems: 1 });
		} finally {
			await opened.close();
		}
	});
});
