import { EngramaError } from "../engine/errors";
import type { EmbeddingProvider, GraphStore, VectorStore } from "../engine/host";

/** The person pressed Cancel; whatever was running stopped at the next safe point. */
export class CancelledError extends EngramaError {
	constructor(what: string) {
		super("cancelled", `${what} was cancelled. Nothing half-done was kept; run it again to finish.`);
	}
}

/**
 * Cooperative scheduling for engine work on Obsidian's main thread. Every call into the graph,
 * the vectors, the embedder or the vault passes through `pass()`: when the current stretch of
 * work has held the thread longer than the budget, it waits one macrotask so Obsidian can paint
 * and handle input (the UI stays responsive during a 10k-note sync), and when the running task
 * was cancelled it throws CancelledError (transactions roll back, nothing half-done is kept).
 */
export class WorkGate {
	private lastYield: number;
	private task: { readonly name: string; readonly signal: AbortSignal } | null = null;
	/** Calls that passed, per kind (progress of long work). */
	private readonly counts = new Map<string, number>();

	constructor(
		private readonly budgetMs = 25,
		private readonly now: () => number = () => performance.now(),
		private readonly yieldOnce: () => Promise<void> = () => new Promise((resolve) => window.setTimeout(resolve, 0)),
	) {
		this.lastYield = this.now();
	}

	/**
	 * `lane` "others": a call that is not the running task's (an agent's MCP request), which a
	 * cancelled task must not fail; it only yields.
	 */
	async pass(kind?: string, lane: Lane = "task"): Promise<void> {
		if (kind !== undefined) this.counts.set(kind, (this.counts.get(kind) ?? 0) + 1);
		this.throwIfCancelled(lane);
		if (this.now() - this.lastYield < this.budgetMs) return;
		await this.yieldOnce();
		this.lastYield = this.now();
		this.throwIfCancelled(lane);
	}

	private throwIfCancelled(lane: Lane): void {
		if (lane === "task" && this.task?.signal.aborted) throw new CancelledError(this.task.name);
	}

	/** Runs `work` as the cancellable task; only one at a time. */
	async run<T>(name: string, signal: AbortSignal, work: () => Promise<T>): Promise<T> {
		if (this.task) throw new EngramaError("busy", `${this.task.name} is still running. Wait for it or cancel it first.`);
		this.task = { name, signal };
		this.counts.clear();
		try {
			return await work();
		} finally {
			this.task = null;
		}
	}

	get busyWith(): string | null {
		return this.task?.name ?? null;
	}

	/** Records a figure for progress (the number of notes a sync will look at). */
	record(kind: string, value: number): void {
		this.counts.set(kind, value);
	}

	/** Adds `n` to a counter (a bulk call that stands for many single ones). */
	add(kind: string, n: number): void {
		this.counts.set(kind, (this.counts.get(kind) ?? 0) + n);
	}

	count(kind: string): number {
		return this.counts.get(kind) ?? 0;
	}
}

/**
 * Whose calls pass: "task" objects serve the plugin's own work (tasks, vault events, the panel)
 * and stop when the running task is cancelled; "others" objects serve agents (the MCP bridge).
 * JavaScript cannot tell which async chain made a call, so the lane is the object called through.
 */
export type Lane = "task" | "others";

const UNGATED = new Set<PropertyKey>(["close", "init", "health", "constructor"]);

/** A protocol object whose async methods pass the gate first (counted under `kind.method`). */
function gated<T extends object>(target: T, gate: WorkGate, kind: string, lane: Lane): T {
	return new Proxy(target, {
		get(obj, prop) {
			const value: unknown = Reflect.get(obj, prop);
			if (typeof value !== "function" || UNGATED.has(prop) || typeof prop === "symbol") return value;
			const method = value as (...args: unknown[]) => unknown;
			return async (...args: unknown[]) => {
				await gate.pass(`${kind}.${prop}`, lane);
				return method.apply(obj, args);
			};
		},
	});
}

/** Edges per mergeEdges call: a sync writes a whole chunk's edges in one call otherwise. */
export const EDGE_SLICE = 200;

/** Nodes per mergeNodes call (a first sync writes its new nodes in bulk): 100 took 50-60 ms CPU, 50 up to 54 under load. */
export const NODE_SLICE = 25;

export function gatedGraphStore(graph: GraphStore, gate: WorkGate, lane: Lane = "task"): GraphStore {
	const store = gated(graph, gate, "graph", lane);
	const mergeEdges = graph.mergeEdges?.bind(graph);
	const mergeNodes = graph.mergeNodes?.bind(graph);
	// One call with thousands of rows would hold the thread for hundreds of ms; slices with a gate
	// pass between them keep each stretch short. Same transaction (the caller's), same result.
	return new Proxy(store, {
		get(obj, prop) {
			if (prop === "mergeEdges" && mergeEdges) {
				return async (scope: Parameters<typeof mergeEdges>[0], inputs: Parameters<typeof mergeEdges>[1]) => {
					let created = 0;
					for (let i = 0; i < inputs.length; i += EDGE_SLICE) {
						await gate.pass("graph.mergeEdges", lane);
						created += (await mergeEdges(scope, inputs.slice(i, i + EDGE_SLICE))).created;
					}
					return { created };
				};
			}
			if (prop === "mergeNodes" && mergeNodes) {
				return async (scope: Parameters<typeof mergeNodes>[0], inputs: Parameters<typeof mergeNodes>[1], options?: Parameters<typeof mergeNodes>[2]) => {
					const results: Awaited<ReturnType<typeof mergeNodes>>[number][] = [];
					for (let i = 0; i < inputs.length; i += NODE_SLICE) {
						await gate.pass("graph.mergeNodes", lane);
						const slice = inputs.slice(i, i + NODE_SLICE);
						results.push(...(await mergeNodes(scope, slice, options)));
						// Progress counts nodes, whether they came one by one or in bulk.
						gate.add("graph.mergeNode", slice.length);
					}
					return results;
				};
			}
			return Reflect.get(obj, prop) as unknown;
		},
	});
}

export function gatedVectorStore(vectors: VectorStore, gate: WorkGate, lane: Lane = "task"): VectorStore {
	return gated(vectors, gate, "vectors", lane);
}

export function gatedEmbedder(embedder: EmbeddingProvider, gate: WorkGate, lane: Lane = "task"): EmbeddingProvider {
	return gated(embedder, gate, "embedder", lane);
}
