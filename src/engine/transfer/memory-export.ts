import { ValidationError } from "../errors";
import type { GraphReads, VectorReads } from "../protocols";
import type { NodeRecord, Scope } from "../types";
import { EXPORT_FORMAT, PRODUCER, type EndLine, type Envelope, type ExportLine } from "./export-format";

export interface ExportOptions {
	/** Include the stored vectors (with the model name and dimension in the envelope). */
	readonly vectors: boolean;
	/** The embedding model that made the stored vectors ("" when unknown). */
	readonly embeddingModel: string;
	/** This program's version, recorded in the envelope. */
	readonly version: string;
	readonly now: string;
	/** Nodes read per page (bounds memory: a page, its edges, history and vectors). */
	readonly pageSize?: number;
}

export type ExportCounts = Omit<EndLine, "type">;

const ALL_HISTORY = 1_000_000;

/**
 * The whole memory (every scope) as export lines, envelope first, `end` last, read page by page
 * through the store interfaces so nothing holds the whole memory. The caller writes each line.
 */
export async function* exportMemory(graph: GraphReads, vectors: VectorReads | null, options: ExportOptions): AsyncGenerator<Envelope | ExportLine> {
	if (!graph.listScopes || !graph.listMeta) throw new ValidationError(`The ${graph.name} backend cannot be exported: use sqlite or neo4j.`);
	const withVectors = options.vectors && !!vectors?.vectorsOf;
	if (options.vectors && !withVectors) throw new ValidationError("This memory has no vector store to export vectors from: leave out --vectors.");
	const dimensions = withVectors && vectors ? await vectors.dimensions() : 0;
	yield {
		engrama_export: EXPORT_FORMAT,
		format_version: EXPORT_FORMAT,
		producer: PRODUCER,
		version: options.version,
		exported_at: options.now,
		source_backend: graph.name,
		embedding_model: withVectors ? options.embeddingModel : "",
		embedding_dimensions: dimensions,
	};
	const counts: ExportCounts = { nodes: 0, relations: 0, vectors: 0, history: 0, meta: 0 };
	const count = (k: keyof ExportCounts) => ((counts as Record<keyof ExportCounts, number>)[k] += 1);

	for (const [key, value] of await graph.listMeta()) {
		// The dimension follows the vectors imported, not the file.
		if (key === "embedding_dimensions") continue;
		count("meta");
		yield { type: "meta", key, value };
	}
	const page = options.pageSize ?? 500;
	for (const scope of await graph.listScopes()) {
		const byId = new Map<string, { label: string; keyField: "name" | "title"; key: string }>();
		// Nodes first (engrama-py's importer needs a relation's ends before the relation).
		for await (const nodes of pages(graph, scope, page)) {
			for (const n of nodes) {
				byId.set(n.id, { label: n.label, keyField: n.keyField, key: n.key });
				count("nodes");
				yield { type: "node", label: n.label, key_field: n.keyField, key_value: n.key, properties: { ...n.props, created_at: n.createdAt, updated_at: n.updatedAt } };
			}
		}
		for await (const nodes of pages(graph, scope, page)) {
			for (const n of nodes) {
				for (const e of await graph.edgesOf(scope, n.id, "out")) {
					const to = byId.get(e.edge.toId) ?? { label: e.node.label, keyField: e.node.keyField, key: e.node.key };
					count("relations");
					yield {
						type: "relation",
						from_label: n.label,
						from_key: n.keyField,
						from_value: n.key,
						rel_type: e.type,
						to_label: to.label,
						to_key: to.keyField,
						to_value: to.key,
						org_id: scope.orgId,
						user_id: scope.userId,
						created_at: e.edge.createdAt,
						properties: { ...e.edge.props },
					};
				}
				for (const h of await graph.nodeHistory(scope, n.id, { limit: ALL_HISTORY })) {
					count("history");
					yield { type: "history", label: n.label, key_value: n.key, org_id: scope.orgId, user_id: scope.userId, at: h.at, prop: h.prop, before: h.before, after: h.after, source: h.source };
				}
			}
			if (withVectors && vectors?.vectorsOf) {
				const found = await vectors.vectorsOf(scope, nodes.map((n) => n.id));
				for (const n of nodes) {
					const v = found.get(n.id);
					if (!v) continue;
					count("vectors");
					yield { type: "vector", label: n.label, key_field: n.keyField, key_value: n.key, org_id: scope.orgId, user_id: scope.userId, vector: Array.from(v) };
				}
			}
		}
	}
	yield { type: "end", ...counts };
}

async function* pages(graph: GraphReads, scope: Scope, size: number): AsyncGenerator<readonly NodeRecord[]> {
	for (let offset = 0; ; offset += size) {
		const page = await graph.listNodes(scope, { includeArchived: true, limit: size, offset });
		if (page.length > 0) yield page;
		if (page.length < size) return;
	}
}
