import type { Backend } from "../../src/backends";
import type { Scope } from "../../src/engine/types";

/** `n` nodes of the scope in a chain of edges, each with a vector and a history entry: more than one commit's worth. */
export async function fillMany(backend: Backend, scope: Scope, n: number): Promise<void> {
	const at = "2026-03-01T08:00:00.000Z";
	await backend.graph.transaction(async () => {
		const ids: string[] = [];
		for (let i = 0; i < n; i++) {
			const key = `Concept ${i}`;
			const { node } = await backend.graph.mergeNode(scope, { label: "Concept", keyField: "name", key, set: { name: key, notes: `note ${i}` }, setOnCreate: { engrama_id: crypto.randomUUID() }, now: at });
			ids.push(node.id);
			await backend.graph.recordHistory(scope, [{ nodeId: node.id, at, prop: "notes", before: null, after: `note ${i}`, source: "cli" }]);
			if (i > 0) await backend.graph.mergeEdge(scope, { fromId: ids[i - 1] ?? "", type: "RELATED_TO", toId: node.id, props: { source: "cli" }, now: at });
		}
		for (const [i, id] of ids.entries()) await backend.vectors?.upsert(scope, id, Float32Array.from([Math.cos(i), Math.sin(i), 0.5, 0.25]));
	});
}

/**
 * Counts the commits the real store makes (outermost transactions; nested ones are savepoints),
 * and fails the one numbered `failAt` (from 1) as a server refusing a commit would.
 */
export function countCommits(backend: Backend, failAt = Infinity): { count: number; failAt: number } {
	const graph = backend.graph;
	const real = graph.transaction.bind(graph);
	const state = { count: 0, failAt };
	let depth = 0;
	graph.transaction = async <T>(fn: () => Promise<T>): Promise<T> => {
		if (depth === 0 && ++state.count >= state.failAt) throw new Error(`commit ${state.count} refused`);
		depth++;
		try {
			return await real(fn);
		} finally {
			depth--;
		}
	};
	return state;
}
