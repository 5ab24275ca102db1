import { renameSync, rmSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { GraphStore } from "../../../src/engine/protocols";
import { GRAPH_STORE_WRITES } from "../../../src/engine/protocols/graph-store";
import { node, openHarness, outEdges, SCOPE, type SyncHarness } from "./sync-fixture";

// docs/ARCHITECTURE.md: the write pipeline is the only writer. Vault sync used to write edges,
// renames and its note bookkeeping straight to the store; these tests watch the real store while
// a sync runs every kind of write and fail on any store write made outside a pipeline call.

/** The store's methods that change what is stored (transaction() only groups them). */
const STORE_WRITES: ReadonlySet<string> = new Set([...GRAPH_STORE_WRITES].filter((method) => method !== "transaction"));

interface Recorder {
	/** Every store write while recording: its method and whether a pipeline call was running. */
	readonly writes: { method: string; inPipeline: boolean }[];
	recording: boolean;
	depth: number;
	wrap(graph: GraphStore): GraphStore;
}

function recorder(): Recorder {
	const rec: Recorder = {
		writes: [],
		recording: false,
		depth: 0,
		wrap: (graph) =>
			new Proxy(graph, {
				get(target, name, receiver) {
					const value: unknown = Reflect.get(target, name, receiver);
					if (typeof value !== "function") return value;
					const fn = value as (...args: unknown[]) => unknown;
					if (typeof name !== "string" || !STORE_WRITES.has(name)) return fn.bind(target);
					return (...args: unknown[]) => {
						if (rec.recording) rec.writes.push({ method: name, inPipeline: rec.depth > 0 });
						return fn.apply(target, args);
					};
				},
			}),
	};
	return rec;
}

/** Counts the pipeline calls running (sync awaits one thing at a time, so a counter is exact). */
function watchPipeline(h: SyncHarness, rec: Recorder): void {
	const pipeline = h.memory.pipeline as unknown as Record<string, unknown>;
	const proto = Object.getPrototypeOf(pipeline) as object;
	for (const name of Object.getOwnPropertyNames(proto)) {
		// Methods only (getters answer questions, they do not write).
		const fn: unknown = Object.getOwnPropertyDescriptor(proto, name)?.value;
		if (name === "constructor" || typeof fn !== "function") continue;
		pipeline[name] = (...args: unknown[]) => {
			rec.depth++;
			let result: unknown;
			try {
				result = (fn as (...a: unknown[]) => unknown).apply(pipeline, args);
			} catch (error) {
				rec.depth--;
				throw error;
			}
			if (!(result instanceof Promise)) {
				rec.depth--;
				return result;
			}
			return result.finally(() => rec.depth--);
		};
	}
}

const open: SyncHarness[] = [];
afterEach(async () => {
	for (const h of open.splice(0)) await h.close();
});

async function scenario(): Promise<{ h: SyncHarness; rec: Recorder }> {
	const rec = recorder();
	const h = await openHarness({ wrapGraph: (graph) => rec.wrap(graph), settings: { writeGraphToVault: false } });
	open.push(h);
	watchPipeline(h, rec);
	rec.recording = true;
	h.write("Ada.md", "---\nengrama_label: Person\n---\nWorks on [[Engine]] and [[Loom]].\n");
	h.write("Loom.md", "Weaving.\n");
	await h.sync.fullSync();
	return { h, rec };
}

describe("vault sync writes only through the write pipeline", () => {
	it("creates, links, absorbs a stub, renames, unlinks, touches and archives without a store write of its own", async () => {
		const { h, rec } = await scenario();
		// A note for the stub [[Engine]]: the stub's edges move onto the note's node.
		h.write("Engine.md", "---\nengrama_label: Project\n---\nThe engine.\n");
		// A rename: the node is rekeyed.
		renameSync(join(h.vaultDir, "Loom.md"), join(h.vaultDir, "Loom 2.md"));
		// A link removed: its edge is deleted.
		h.write("Ada.md", h.read("Ada.md").replace(" and [[Loom]]", ""));
		await h.sync.fullSync();
		// Same text, new mtime: the note bookkeeping is updated.
		const later = new Date(Date.now() + 60_000);
		utimesSync(join(h.vaultDir, "Engine.md"), later, later);
		// A new note without an id on a known graph: its id is written after, then its hash recorded.
		h.write("Babbage.md", "Knew [[Ada]].\n");
		await h.sync.fullSync();
		// A note deleted: its node is archived.
		rmSync(join(h.vaultDir, "Babbage.md"));
		await h.sync.fullSync();

		expect((await node(h.memory, "Note", "Babbage")).props.status).toBe("archived");
		const ada = await node(h.memory, "Person", "Ada");
		expect((await outEdges(h.memory, ada)).map((e) => `${e.type} ${e.to.label}:${e.to.key}`)).toEqual(["LINKS_TO Project:Engine"]);
		await node(h.memory, "Note", "Loom 2");
		const methods = new Set(rec.writes.map((w) => w.method));
		// The scenario ran every kind of write sync makes.
		for (const m of ["mergeNodes", "mergeNode", "mergeEdges", "deleteEdge", "rekeyNode", "updateNode", "deleteNode", "recordHistory"]) {
			expect(methods, m).toContain(m);
		}
		expect(rec.writes.filter((w) => !w.inPipeline)).toEqual([]);
	});

	it("records a renamed note's old name in the node's history, as any pipeline write of a key", async () => {
		const { h } = await scenario();
		const before = await node(h.memory, "Note", "Loom");
		renameSync(join(h.vaultDir, "Loom.md"), join(h.vaultDir, "Loom 2.md"));
		await h.sync.fullSync();
		const after = await node(h.memory, "Note", "Loom 2");
		expect(after.id).toBe(before.id);
		const history = await h.memory.graph.nodeHistory(SCOPE, after.id, { limit: 50 });
		expect(history).toContainEqual(expect.objectContaining({ prop: "name", before: "Loom", after: "Loom 2", source: "sync" }));
	});
});
