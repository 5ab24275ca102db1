import { ValidationError } from "../../engine/errors";
import { loadMemoryCopy, type GraphReads, type VectorReads } from "../../engine/backend-kit";
import type { NodeRecord, Scope } from "../../engine/types";
import type { Backend } from "../backend";

/**
 * `engrama migrate`: copies a whole memory between any two backends the factory opens, then
 * verifies that both sides count the same and that every node (props, times, vector) reads back
 * identical. The copy is the source's export streamed into the target's import through the
 * target's write door (engine/transfer/memory-copy.ts): nodes with their props, provenance and
 * timestamps, edges, vectors, history and the memory's settings. Node ids (engrama_id) are kept,
 * so notes' frontmatter stays valid. No backend is named here: the stores' protocols only.
 */

export interface MigrationOptions {
	/** Forget the scopes in the target first (otherwise a target scope must be empty). */
	readonly replace?: boolean;
	/** Records (nodes, relations, history entries) per commit of the target, and nodes per page read. */
	readonly batchSize?: number;
	readonly onProgress?: (line: string) => void;
}

export interface ScopeCounts {
	readonly nodes: number;
	readonly edges: number;
	readonly vectors: number;
	readonly history: number;
	readonly labels: Readonly<Record<string, number>>;
	/** Insights per review status (pending, approved, dismissed, ...). */
	readonly insights: Readonly<Record<string, number>>;
}

export interface ScopeReport {
	readonly orgId: string;
	readonly userId: string;
	readonly source: ScopeCounts;
	readonly target: ScopeCounts;
	/** The counts are equal. */
	readonly identical: boolean;
	/**
	 * Every node reads back the same from the target as from the source: label, key, props,
	 * created/updated times, and its vector (compared after the copy, node by node).
	 */
	readonly contentIdentical: boolean;
	/** The first few nodes that differ (`Label:key: what`), when any do. */
	readonly differences: readonly string[];
}

export interface MigrationReport {
	readonly from: string;
	readonly to: string;
	readonly scopes: readonly ScopeReport[];
	readonly meta: readonly string[];
	/** Node ids that were not UUIDs (Python-era rows) and got new ones. */
	readonly renumbered: number;
	readonly verified: boolean;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The memory's stores as verification reads them. */
interface Reads {
	readonly graph: GraphReads;
	readonly vectors: VectorReads | null;
}

/** The stored vectors of these nodes, where the store keeps any. */
async function vectorsOf(backend: Reads, scope: Scope, ids: readonly string[]): Promise<ReadonlyMap<string, Float32Array>> {
	const { vectors } = backend;
	if (!vectors?.vectorsOf || (await vectors.dimensions()) === 0) return new Map();
	return vectors.vectorsOf(scope, ids);
}

async function nodesOf(graph: GraphReads, scope: Scope, batch: number, each: (page: readonly NodeRecord[]) => Promise<void>): Promise<void> {
	for (let offset = 0; ; offset += batch) {
		const page = await graph.listNodes(scope, { includeArchived: true, limit: batch, offset });
		if (page.length === 0) return;
		await each(page);
		if (page.length < batch) return;
	}
}

async function countsOf(backend: Reads, scope: Scope): Promise<ScopeCounts> {
	const { nodes, edges } = await backend.graph.counts(scope);
	const insights: Record<string, number> = {};
	for (const insight of await backend.graph.listNodes(scope, { label: "Insight", includeArchived: true })) {
		const status = typeof insight.props.status === "string" ? insight.props.status : "";
		insights[status] = (insights[status] ?? 0) + 1;
	}
	return {
		nodes,
		edges,
		vectors: backend.vectors ? await backend.vectors.count(scope) : 0,
		history: (await backend.graph.scopeFootprint(scope)).history,
		labels: sortedKeys(await backend.graph.labelCounts(scope)),
		insights: sortedKeys(insights),
	};
}

/** Same keys in the same order on both sides, whatever order a backend lists them in. */
function sortedKeys(counts: Readonly<Record<string, number>>): Record<string, number> {
	return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Each node of the scope as one canonical string (props with sorted keys, its vector), by id. */
async function contentOf(
	backend: Reads,
	scope: Scope,
	batch: number,
	idOf: (id: string) => string = (id) => id,
): Promise<Map<string, { name: string; node: string; vector: string }>> {
	const out = new Map<string, { name: string; node: string; vector: string }>();
	await nodesOf(backend.graph, scope, batch, async (page) => {
		const vectors = await vectorsOf(backend, scope, page.map((n) => n.id));
		for (const n of page) {
			const props: Record<string, unknown> = { ...n.props };
			delete props.engrama_id;
			const node = canonical([n.label, n.keyField, n.key, props, n.createdAt, n.updatedAt]);
			const vector = vectors.get(n.id);
			out.set(idOf(n.id), { name: `${n.label}:${n.key}`, node, vector: vector ? Array.from(vector).join(",") : "" });
		}
	});
	return out;
}

function canonical(value: unknown): string {
	if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
	if (value !== null && typeof value === "object") {
		const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
		return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
	}
	return JSON.stringify(value) ?? "undefined";
}

/**
 * Reads every node of `scope` (label, key, props, times, vector) from both memories and lists the
 * nodes that differ: the content half of a migration's verification. `idOf` maps source ids to
 * target ids (nodes renumbered by the copy).
 */
export async function compareContent(
	source: Backend,
	target: Backend,
	scope: Scope,
	options: { batchSize?: number; idOf?: (id: string) => string; max?: number } = {},
): Promise<{ count: number; lines: string[] }> {
	const batch = options.batchSize ?? 500;
	return contentDifferences(
		await contentOf(source, scope, batch, options.idOf),
		await contentOf(target, scope, batch),
		options.max,
	);
}

/** What differs between the source's and the target's nodes (at most `max` lines). */
function contentDifferences(
	source: Map<string, { name: string; node: string; vector: string }>,
	target: Map<string, { name: string; node: string; vector: string }>,
	max = 5,
): { count: number; lines: string[] } {
	const lines: string[] = [];
	let count = 0;
	const note = (line: string) => {
		count++;
		if (lines.length < max) lines.push(line);
	};
	for (const [id, a] of source) {
		const b = target.get(id);
		if (!b) note(`${a.name}: missing in the target`);
		else if (a.node !== b.node) note(`${a.name}: label, key, props or times differ`);
		else if (a.vector !== b.vector) note(`${a.name}: vector differs`);
	}
	for (const [id, b] of target) if (!source.has(id)) note(`${b.name}: only in the target`);
	return { count, lines };
}

function sameCounts(a: ScopeCounts, b: ScopeCounts): boolean {
	return JSON.stringify(a) === JSON.stringify(b);
}

/** Copies `source` into `target` (all scopes), then verifies counts and content per scope. Throws on a non-empty target scope. */
export async function migrateMemory(source: Backend, target: Backend, options: MigrationOptions = {}): Promise<MigrationReport> {
	const batch = options.batchSize ?? 500;
	const progress = options.onProgress ?? (() => undefined);
	if (source.graph === target.graph) throw new ValidationError("The source and the target are the same memory.");
	const { copyMemory } = await loadMemoryCopy();
	const copy = await copyMemory(source, target, { replace: options.replace, pageSize: batch, commitEvery: batch, keepsId: (id) => UUID.test(id), onProgress: progress });
	const idOf = (id: string) => copy.newIds.get(id) ?? id;

	const scopeReports: ScopeReport[] = [];
	for (const scope of copy.scopes) {
		progress(`${scope.orgId}/${scope.userId}: edges, vectors and history copied`);
		const [sourceCounts, targetCounts] = [await countsOf(source, scope), await countsOf(target, scope)];
		const diff = await compareContent(source, target, scope, { batchSize: batch, idOf });
		if (diff.count > 0) progress(`${scope.orgId}/${scope.userId}: ${diff.count} nodes differ after the copy`);
		scopeReports.push({
			orgId: scope.orgId,
			userId: scope.userId,
			source: sourceCounts,
			target: targetCounts,
			identical: sameCounts(sourceCounts, targetCounts),
			contentIdentical: diff.count === 0,
			differences: diff.count > diff.lines.length ? [...diff.lines, `… and ${diff.count - diff.lines.length} more`] : diff.lines,
		});
	}
	return {
		from: source.graph.name,
		to: target.graph.name,
		scopes: scopeReports,
		meta: copy.meta,
		renumbered: copy.newIds.size,
		verified: scopeReports.every((s) => s.identical && s.contentIdentical),
	};
}
