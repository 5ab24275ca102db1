import { ValidationError } from "../../engine/errors";
import type { GraphStore, HistoryEntry, MergeEdgeInput } from "../../engine/backend-kit";
import type { NodeRecord, Scope } from "../../engine/types";
import type { Backend } from "../backend";
import { writeVectors } from "../neo4j/vector-batches";
import { Neo4jGraphStore } from "../neo4j/neo4j-graph-store";
import { FILE_ONLY_META } from "../sqlite/file-only-meta";
import { SqliteGraphStore } from "../sqlite/sqlite-graph-store";

/**
 * Copies a whole memory between backends (`engrama migrate`): every scope's nodes with their
 * props and timestamps, edges, vectors, history and the memory's settings, then verifies that
 * both sides count the same and that every node (props, times, vector) reads back identical. Node ids (engrama_id) are kept, so notes' frontmatter stays valid.
 * Backend-neutral: everything goes through the GraphStore/VectorStore protocols (the whole-memory
 * reads listScopes, listMeta and vectorsOf included); what is backend-specific lives with its
 * backend (sqlite/file-only-meta.ts: settings never copied; neo4j/vector-batches.ts: bulk vector writes).
 */

export interface MigrationOptions {
	/** Forget the scopes in the target first (otherwise a target scope must be empty). */
	readonly replace?: boolean;
	/** Nodes per target transaction. */
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

/** The reads no protocol offers, per backend. */
interface BackendInternals {
	scopes(): Promise<Scope[]>;
	meta(): Promise<[string, string][]>;
	vectors(scope: Scope, ids: readonly string[]): Promise<Map<string, Float32Array>>;
}

const DIMENSIONS_KEY = "embedding_dimensions";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ALL_HISTORY = 1_000_000;

function internalsOf(backend: Backend): BackendInternals {
	const { graph, vectors } = backend;
	if (!(graph instanceof SqliteGraphStore || graph instanceof Neo4jGraphStore)) {
		throw new ValidationError(`Cannot migrate from or to the ${graph.name} backend: use sqlite or neo4j.`);
	}
	return {
		scopes: async () => [...(await graph.listScopes())],
		meta: async () => (await graph.listMeta()).map(([k, v]) => [k, v] as [string, string]),
		async vectors(scope, ids) {
			if (!vectors?.vectorsOf || (await vectors.dimensions()) === 0) return new Map();
			return new Map(await vectors.vectorsOf(scope, ids));
		},
	};
}

async function nodesOf(graph: GraphStore, scope: Scope, batch: number, each: (page: readonly NodeRecord[]) => Promise<void>): Promise<void> {
	for (let offset = 0; ; offset += batch) {
		const page = await graph.listNodes(scope, { includeArchived: true, limit: batch, offset });
		if (page.length === 0) return;
		await each(page);
		if (page.length < batch) return;
	}
}

async function countsOf(backend: Backend, scope: Scope): Promise<ScopeCounts> {
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
	backend: Backend,
	internals: BackendInternals,
	scope: Scope,
	batch: number,
	idOf: (id: string) => string = (id) => id,
): Promise<Map<string, { name: string; node: string; vector: string }>> {
	const out = new Map<string, { name: string; node: string; vector: string }>();
	await nodesOf(backend.graph, scope, batch, async (page) => {
		const vectors = backend.vectors ? await internals.vectors(scope, page.map((n) => n.id)) : new Map<string, Float32Array>();
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
		await contentOf(source, internalsOf(source), scope, batch, options.idOf),
		await contentOf(target, internalsOf(target), scope, batch),
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

/** Copies the scope's nodes, with their own created/updated times; returns how many got a new id. */
async function copyNodes(source: Backend, target: Backend, scope: Scope, batch: number, ids: Map<string, string>, progress: (line: string) => void): Promise<number> {
	let renumbered = 0;
	let copied = 0;
	await nodesOf(source.graph, scope, batch, async (page) => {
		await target.graph.transaction(async () => {
			for (const node of page) {
				const id = UUID.test(node.id) ? node.id : crypto.randomUUID();
				if (id !== node.id) renumbered++;
				ids.set(node.id, id);
				const props = { ...node.props };
				delete props.engrama_id;
				const { node: written } = await target.graph.mergeNode(scope, {
					label: node.label,
					keyField: node.keyField,
					key: node.key,
					set: props,
					setOnCreate: { engrama_id: id },
					now: node.createdAt,
				});
				if (node.updatedAt !== written.updatedAt) await target.graph.updateNode(scope, id, {}, [], node.updatedAt);
			}
		});
		copied += page.length;
		progress(`${scope.orgId}/${scope.userId}: ${copied} nodes`);
	});
	return renumbered;
}

/** Copies edges (each once, from its source end), vectors and history, page by page. */
async function copyLinks(source: Backend, target: Backend, from: BackendInternals, scope: Scope, batch: number, idOf: (id: string) => string): Promise<void> {
	await nodesOf(source.graph, scope, batch, async (page) => {
		const vectors = target.vectors ? await from.vectors(scope, page.map((n) => n.id)) : new Map<string, Float32Array>();
		const edges: MergeEdgeInput[] = [];
		const history: HistoryEntry[] = [];
		for (const node of page) {
			for (const e of await source.graph.edgesOf(scope, node.id, "out")) {
				edges.push({ fromId: idOf(e.edge.fromId), type: e.type, toId: idOf(e.edge.toId), props: e.edge.props, now: e.edge.createdAt });
			}
			for (const h of await source.graph.nodeHistory(scope, node.id, { limit: ALL_HISTORY })) history.push({ ...h, nodeId: idOf(h.nodeId) });
		}
		await target.graph.transaction(async () => {
			if (target.graph.mergeEdges) await target.graph.mergeEdges(scope, edges);
			else for (const edge of edges) await target.graph.mergeEdge(scope, edge);
			if (history.length > 0) await target.graph.recordHistory(scope, history);
		});
		const entries = [...vectors].map(([id, vector]) => [idOf(id), vector] as const);
		await writeVectors(target.vectors, scope, entries);
	});
}

/** Copies `source` into `target` scope by scope and verifies the counts. Throws on a non-empty target scope. */
export async function migrateMemory(source: Backend, target: Backend, options: MigrationOptions = {}): Promise<MigrationReport> {
	const batch = options.batchSize ?? 500;
	const progress = options.onProgress ?? (() => undefined);
	const from = internalsOf(source);
	internalsOf(target); // refuses a target it cannot verify
	if (source.graph === target.graph) throw new ValidationError("The source and the target are the same memory.");
	const scopes = await from.scopes();

	for (const scope of scopes) {
		const existing = await target.graph.counts(scope);
		if (existing.nodes > 0 && !options.replace) {
			throw new ValidationError(
				`The ${target.graph.name} memory already holds ${existing.nodes} nodes of ${scope.orgId}/${scope.userId}. Add --replace to forget them there first, or migrate into an empty memory.`,
				{ scope },
			);
		}
	}

	let renumbered = 0;
	const scopeReports: ScopeReport[] = [];
	for (const scope of scopes) {
		if (options.replace) {
			// Vectors first: on SQLite they live in their own table, keyed by the rows about to go.
			const vectors = target.vectors;
			if (vectors) await nodesOf(target.graph, scope, batch, async (page) => void (await vectors.delete(scope, page.map((n) => n.id))));
			await target.graph.forgetScope(scope);
		}
		const ids = new Map<string, string>();
		const idOf = (id: string) => ids.get(id) ?? id;

		renumbered += await copyNodes(source, target, scope, batch, ids, progress);
		await copyLinks(source, target, from, scope, batch, idOf);
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

	// The memory's own settings (standalone identity, counters); the vector dimension follows the
	// vectors, and a SQLite file's schema version describes that file only.
	const meta: string[] = [];
	for (const [key, value] of await from.meta()) {
		if (key === DIMENSIONS_KEY || FILE_ONLY_META.has(key)) continue;
		await target.graph.setMeta(key, value);
		meta.push(key);
	}
	return {
		from: source.graph.name,
		to: target.graph.name,
		scopes: scopeReports,
		meta,
		renumbered,
		verified: scopeReports.every((s) => s.identical && s.contentIdentical),
	};
}
