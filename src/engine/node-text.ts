import { NOTE_PROPS } from "./system-props";
import type { NodeRecord, PropValue, Props } from "./types";

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

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

/**
 * An item's own day as words ("8 May 2023"), from the date part of its `valid_from` as written
 * (no time zone shift), so "what happened in May 2023" finds it by fulltext and by meaning. None
 * for a person's note unless its frontmatter states the date: otherwise its valid_from is only
 * when sync first saw it (an agent's memory written out as a note keeps its source, and its day).
 */
export function itemDay(props: Props): string | null {
	const date = props.valid_from;
	if (typeof date !== "string" || (isPersonNote(props) && !statesDate(props))) return null;
	const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(date.trim());
	if (!m) return null;
	const month = MONTHS[Number(m[2]) - 1];
	const day = Number(m[3]);
	return month && day >= 1 && day <= 31 ? `${day} ${month} ${m[1]}` : null;
}

/** The note's frontmatter names valid_from (sync's `note_props`: the props the note stated). */
function statesDate(props: Props): boolean {
	const stated = props[NOTE_PROPS.stated];
	return Array.isArray(stated) && stated.includes("valid_from");
}

/** A node sync made from a note a person wrote (the author stated in the note, else `sync`). */
function isPersonNote(props: Props): boolean {
	const path = props[NOTE_PROPS.path];
	if (typeof path !== "string" || path === "") return false;
	return props.source === undefined || props.source === null || props.source === "sync";
}

/** The one place that turns a node into the text we embed: the header, the item's day, its text props. */
export function nodeToText(node: Pick<NodeRecord, "label" | "key" | "props">): string {
	const parts = [`${node.label}: ${node.key}`];
	const day = itemDay(node.props);
	if (day) parts.push(`[${day}]`);
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

/**
 * The text a prop outside the fulltext columns adds to a node's body in every backend's index:
 * a text prop as it is, and the node's aliases (its other names: Obsidian's `aliases:` list, a
 * person's nicknames), so a note is found by the name the person knows it by. Other lists are not
 * words to search (a stack, a list of ids).
 */
export function extraFulltext(name: string, value: PropValue | undefined): string | null {
	if (typeof value === "string") return value.length > 0 ? value : null;
	if (name !== "aliases" || !Array.isArray(value)) return null;
	const names = value.filter((v): v is string => typeof v === "string" && v.length > 0);
	return names.length > 0 ? names.join("\n") : null;
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
