import { describe, expect, test } from "vitest";
import { EngramaError } from "../../src/engine/errors";
import { CancelledError, EDGE_SLICE, NODE_SLICE, WorkGate, gatedGraphStore } from "../../src/plugin/work-gate";
import type { GraphStore } from "../../src/engine/protocols";

function clockGate(budget: number) {
	let now = 0;
	let yields = 0;
	const gate = new WorkGate(
		budget,
		() => now,
		() => {
			yields++;
			return Promise.resolve();
		},
	);
	return { gate, advance: (ms: number) => (now += ms), yields: () => yields };
}

describe("WorkGate", () => {
	test("yields to the UI only once the budget of main-thread time is spent", async () => {
		const { gate, advance, yields } = clockGate(25);
		await gate.pass();
		advance(10);
		await gate.pass();
		expect(yields()).toBe(0);
		advance(20);
		await gate.pass();
		expect(yields()).toBe(1);
		await gate.pass();
		expect(yields()).toBe(1);
	});

	test("one cancellable task at a time; cancelling throws at the next pass", async () => {
		const { gate } = clockGate(25);
		const controller = new AbortController();
		const running = gate.run("Reindexing", controller.signal, async () => {
			await gate.pass("graph.mergeNode");
			await expect(gate.run("Another", new AbortController().signal, () => Promise.resolve(1))).rejects.toThrow(
				"Reindexing is still running. Wait for it or cancel it first.",
			);
			controller.abort();
			await gate.pass("graph.mergeNode");
		});
		await expect(running).rejects.toBeInstanceOf(CancelledError);
		await expect(running).rejects.toThrow("Reindexing was cancelled.");
		expect(gate.count("graph.mergeNode")).toBe(2);
		// Outside a task nothing is cancelled.
		await gate.pass();
		expect(await gate.run("Again", new AbortController().signal, () => Promise.resolve("done"))).toBe("done");
	});

	test("a cancelled task fails only calls on the task lane: the others lane (agents) keeps working", async () => {
		const { gate } = clockGate(25);
		const store = { counts: () => Promise.resolve({ nodes: 1, edges: 0 }) } as unknown as GraphStore;
		const forTask = gatedGraphStore(store, gate);
		const forAgents = gatedGraphStore(store, gate, "others");
		const controller = new AbortController();
		let unwound!: () => void;
		const running = gate.run("Syncing the vault", controller.signal, async () => {
			controller.abort();
			// Still unwinding (a note read, a rollback) when an agent calls.
			await new Promise<void>((resolve) => (unwound = resolve));
			await forTask.counts({ orgId: "o", userId: "u" });
		});
		await expect(forAgents.counts({ orgId: "o", userId: "u" })).resolves.toEqual({ nodes: 1, edges: 0 });
		await expect(forTask.counts({ orgId: "o", userId: "u" })).rejects.toBeInstanceOf(CancelledError);
		unwound();
		await expect(running).rejects.toBeInstanceOf(CancelledError);
	});

	test("a gated store passes the gate on every async call, keeps properties and identity checks", async () => {
		const { gate } = clockGate(25);
		class Store {
			readonly name = "memory";
			calls = 0;
			counts(): Promise<{ nodes: number; edges: number }> {
				this.calls++;
				return Promise.resolve({ nodes: this.calls, edges: 0 });
			}
			close(): Promise<void> {
				return Promise.resolve();
			}
		}
		const inner = new Store();
		const store = gatedGraphStore(inner as unknown as GraphStore, gate);
		expect(store.name).toBe("memory");
		expect(store).toBeInstanceOf(Store);
		expect(await store.counts({ orgId: "o", userId: "u" })).toEqual({ nodes: 1, edges: 0 });
		expect(gate.count("graph.counts")).toBe(1);
		const controller = new AbortController();
		controller.abort();
		await expect(gate.run("Sync", controller.signal, () => store.counts({ orgId: "o", userId: "u" }))).rejects.toBeInstanceOf(EngramaError);
		// close is never cancelled: a cancelled task must still be able to release the database.
		await expect(gate.run("Sync", controller.signal, () => store.close())).resolves.toBeUndefined();
		expect(inner.calls).toBe(1);
	});

	test("a large mergeEdges is written in slices with a gate pass between them", async () => {
		const { gate } = clockGate(25);
		const sizes: number[] = [];
		const inner = {
			mergeEdges(_scope: unknown, inputs: readonly unknown[]) {
				sizes.push(inputs.length);
				return Promise.resolve({ created: inputs.length - 1 });
			},
		};
		const store = gatedGraphStore(inner as unknown as GraphStore, gate);
		const edges = Array.from({ length: EDGE_SLICE * 2 + 50 }, (_, i) => ({ fromId: "a", type: "USES", toId: `t${i}`, now: "" }));
		expect(await store.mergeEdges!({ orgId: "o", userId: "u" }, edges)).toEqual({ created: EDGE_SLICE * 2 + 50 - 3 });
		expect(sizes).toEqual([EDGE_SLICE, EDGE_SLICE, 50]);
		expect(gate.count("graph.mergeEdges")).toBe(3);
	});

	test("a bulk mergeNodes is written in slices, in order, and counts every node for progress", async () => {
		const { gate } = clockGate(25);
		const sizes: number[] = [];
		const inner = {
			mergeNodes(_scope: unknown, inputs: readonly { key: string }[]) {
				sizes.push(inputs.length);
				return Promise.resolve(inputs.map((input) => ({ id: input.key, created: true })));
			},
		};
		const store = gatedGraphStore(inner as unknown as GraphStore, gate);
		const nodes = Array.from({ length: NODE_SLICE + 7 }, (_, i) => ({ key: `n${i}` }));
		const results = await store.mergeNodes!({ orgId: "o", userId: "u" }, nodes as never);
		expect(results.map((r) => (r as unknown as { id: string }).id)).toEqual(nodes.map((n) => n.key));
		expect(sizes).toEqual([NODE_SLICE, 7]);
		expect(gate.count("graph.mergeNodes")).toBe(2);
		expect(gate.count("graph.mergeNode")).toBe(NODE_SLICE + 7);
	});
});
