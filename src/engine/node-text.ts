import type { NodeRecord, PropValue } from "./types";

/** Text props that describe a node, in the order they matter for search and embeddings. */
export const TEXT_PROPS = [
	"description",
	"summary",
	"notes",
	"rationale",
	"solution",
	"context",
	"body",
	"alternatives",
	"role",
	"domain",
] as const;

function asText(value: PropValue | undefined): string {
	if (value === undefined || value === null) return "";
	if (Array.isArray(value)) return value.map((v) => String(v)).join(", ");
	return typeof value === "object" ? "" : String(value);
}

/** The one place that turns a node into the text we embed. */
export function nodeToText(node: Pick<NodeRecord, "label" | "key" | "props">): string {
	const parts = [`${node.label}: ${node.key}`];
	for (const prop of TEXT_PROPS) {
		const text = asText(node.props[prop]).trim();
		if (text) parts.push(text);
	}
	const tags = asText(node.props.tags);
	if (tags) parts.push(`tags: ${tags}`);
	return parts.join("\n").slice(0, 8000);
}

/** A short description for result lists. */
export function nodeSummary(node: Pick<NodeRecord, "props">): string {
	for (const prop of ["summary", "description", "notes", "body", "context"] as const) {
		const text = asText(node.props[prop]).trim();
		if (text) return text.length > 280 ? `${text.slice(0, 277)}...` : text;
	}
	return "";
}

export function nodeTags(node: Pick<NodeRecord, "props">): string[] {
	const tags = node.props.tags;
	if (Array.isArray(tags)) return tags.map((t) => String(t));
	return typeof tags === "string" && tags ? tags.split(/[,\s]+/).filter(Boolean) : [];
}

export function nodeConfidence(node: Pick<NodeRecord, "props">): number {
	const c = node.props.confidence;
	return typeof c === "number" && Number.isFinite(c) ? c : 1;
}

export function isArchived(node: Pick<NodeRecord, "props">): boolean {
	return node.props.status === "archived";
}

/** The props every backend's fulltext index holds, in the Python layout's `nodes_fts` column order. */
export const FULLTEXT_FIELDS = [
	"name",
	"title",
	"description",
	"notes",
	"rationale",
	"solution",
	"context",
	"body",
	"summary",
	"tags",
] as const;

export type FulltextField = (typeof FULLTEXT_FIELDS)[number];

/** bm25 weight per field (names and titles first, then tags and summaries): one table, so backends rank alike. */
export const FULLTEXT_WEIGHTS: Readonly<Record<FulltextField, number>> = {
	name: 8,
	title: 8,
	description: 3,
	notes: 1,
	rationale: 1,
	solution: 1,
	context: 1,
	body: 1,
	summary: 2,
	tags: 4,
};
