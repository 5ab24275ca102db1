import type { GraphReads, PassageHit } from "../protocols";
import type { FulltextHit, NodeRecord, PartialScope } from "../types";
import { nameWords, queryNames } from "./graph-rerank";
import { isStopword } from "./query-text";
import { queryTerms } from "./words";

/**
 * Passages in search: a passage hit counts for its note's node. The node list and the passage list
 * of a channel become one list of nodes, each node once, ordered by its best score in either (bm25
 * for words, cosine for vectors: the same scale in both lists), ties by the sum of its reciprocal
 * ranks (see PASSAGE_WEIGHT). Ordering by reciprocal rank alone found 24 of 67 obsidian-hub
 * questions in the top 5 without a model; by best score, see docs/benchmarks-search.md. The node
 * keeps the passages that matched, best first. A node the query names (its whole name or an alias)
 * comes before every other: bm25 favours a short section that mentions the name ("Met with Ana
 * about the Billing Portal rollout") over the named node's own longer row.
 */

/** Passages kept per result (the best ones). */
export const PASSAGES_PER_RESULT = 2;
const MERGE_K = 60;
/**
 * A passage's rank weighs a little less than a node's: on a tie (a note named for the query and a
 * short note that mentions the name) the node named wins, and a note found only by its body enters
 * the list between the 7th and 8th node hits.
 */
const PASSAGE_WEIGHT = 0.9;

export interface ChannelEntry {
	readonly id: string;
	readonly score: number;
}

/** One list of node ids from a channel's node hits and passage hits, best first (the `named` nodes first of all). */
export function mergeNodeAndPassageRanks(nodes: readonly ChannelEntry[], passages: readonly PassageHit[], named: ReadonlySet<string> = new Set()): ChannelEntry[] {
	const score = new Map<string, { fused: number; raw: number; first: number }>();
	const add = (id: string, weight: number, rank: number, raw: number, order: number) => {
		const seen = score.get(id);
		if (seen) {
			seen.fused += weight / (MERGE_K + rank);
			seen.raw = Math.max(seen.raw, raw);
		} else score.set(id, { fused: weight / (MERGE_K + rank), raw, first: order });
	};
	nodes.forEach((hit, i) => add(hit.id, 1, i + 1, hit.score, i));
	const seenPassageNodes = new Set<string>();
	for (const hit of passages) {
		if (seenPassageNodes.has(hit.nodeId)) continue;
		seenPassageNodes.add(hit.nodeId);
		add(hit.nodeId, PASSAGE_WEIGHT, seenPassageNodes.size, hit.score, nodes.length + seenPassageNodes.size);
	}
	const isNamed = (id: string) => (named.has(id) ? 1 : 0);
	return [...score]
		.sort((a, b) => isNamed(b[0]) - isNamed(a[0]) || b[1].raw - a[1].raw || b[1].fused - a[1].fused || a[1].first - b[1].first)
		.map(([id, s]) => ({ id, score: s.raw }));
}

/** The passage hits of each node, best first, at most PASSAGES_PER_RESULT (one list after another: words first). */
export function passagesByNode(...lists: readonly (readonly PassageHit[])[]): Map<string, PassageHit[]> {
	const out = new Map<string, PassageHit[]>();
	for (const list of lists) {
		for (const hit of list) {
			const kept = out.get(hit.nodeId) ?? [];
			if (kept.length >= PASSAGES_PER_RESULT || kept.some((p) => p.passage.id === hit.passage.id)) continue;
			kept.push(hit);
			out.set(hit.nodeId, kept);
		}
	}
	return out;
}

/** The fulltext channel's hits with the passage hits merged in (nodes found only by a passage are read). */
export async function mergeFulltextHits(
	graph: GraphReads,
	scope: PartialScope,
	nodeHits: readonly FulltextHit[],
	passageHits: readonly PassageHit[],
	query = "",
): Promise<FulltextHit[]> {
	if (passageHits.length === 0) return [...nodeHits];
	const known = new Map<string, NodeRecord>(nodeHits.map((h) => [h.node.id, h.node]));
	const words = nameWords(query);
	const named = new Set(nodeHits.filter((h) => queryNames(words, h.node)).map((h) => h.node.id));
	const out: FulltextHit[] = [];
	for (const entry of mergeNodeAndPassageRanks(
		nodeHits.map((h) => ({ id: h.node.id, score: h.score })),
		passageHits,
		named,
	)) {
		const node = known.get(entry.id) ?? (await graph.getNodeById(scope, entry.id));
		if (node) out.push({ node, score: entry.score });
	}
	return out;
}

const SNIPPET_CHARS = 180;

/**
 * The words a query matches in text as the reader sees it: a phrase of pairs ("数据 据库") back to
 * "数据库". Function words ("the", "how", "de") are left out when the query has any other word:
 * they match everywhere and marking them says nothing about why the passage was found.
 */
function visibleTerms(query: string): string[] {
	const out: string[] = [];
	for (const term of queryTerms(query)) {
		const parts = term.split(" ");
		const word = parts.length > 1 && parts.every((p) => Array.from(p).length === 2) ? parts[0] + parts.slice(1).map((p) => Array.from(p)[1]).join("") : term;
		if (!out.includes(word)) out.push(word);
	}
	const content = out.filter((w) => !isStopword(w));
	return (content.length > 0 ? content : out).sort((a, b) => b.length - a.length);
}

function escapeRegExp(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Links a reader does not read as words: a bare URL, or the target of a Markdown link. */
const LINK_TARGET = /(?:https?:\/\/|www\.)[^\s)\]]+|\]\([^)\s]*\)/giu;
/** Markdown emphasis around words (`**Pin**`, `__Pin__`): dropped, so a marked word is marked once. */
const EMPHASIS = /(\*\*|__)(\S(?:.*?\S)?)\1/gu;

/** The query's words in a passage, as a pattern (null when the query has no word). */
function termPattern(query: string): RegExp | null {
	const terms = visibleTerms(query);
	if (terms.length === 0) return null;
	// Latin words match at word starts (prefix search: "render" marks "rendered"); a Chinese or Thai
	// letter before one is a word boundary ("迁移到PostgreSQL的").
	const parts = terms.map((t) => (/^[\p{L}\p{N}_]/u.test(t) && /^\p{Script=Latin}/u.test(t) ? `(?<![\\p{Script=Latin}\\p{N}])${escapeRegExp(t)}[\\p{Script=Latin}\\p{M}\\p{N}]*` : escapeRegExp(t)));
	return new RegExp(parts.join("|"), "giu");
}

/** A test for "this offset is inside a link" over the text's links. */
function insideLinks(text: string): (at: number) => boolean {
	const links = [...text.matchAll(LINK_TARGET)].map((m) => [m.index ?? 0, (m.index ?? 0) + m[0].length] as const);
	return (at) => links.some(([from, to]) => at >= from && at < to);
}

/** Each match of the pattern outside a link, marked **like this**. */
function markOutsideLinks(piece: string, pattern: RegExp): string {
	const inLink = insideLinks(piece);
	return piece.replace(pattern, (m: string, at: number) => (inLink(at) ? m : `**${m}**`));
}

/**
 * About SNIPPET_CHARS of a passage around its first matched word, each matched content word marked
 * **like this** (never inside a link); the passage's start when no word matches (a hit by meaning).
 */
export function passageSnippet(text: string, query: string): string {
	const flat = text.replace(/\s+/g, " ").trim().replace(EMPHASIS, "$2");
	const pattern = termPattern(query);
	const first = pattern ? firstOutsideLinks(flat, pattern) : -1;
	let start = first <= 40 ? 0 : first - 40;
	if (start > 0) {
		const space = flat.indexOf(" ", start);
		if (space !== -1 && space < first) start = space + 1;
	}
	let end = Math.min(flat.length, start + SNIPPET_CHARS);
	if (end < flat.length) {
		const space = flat.lastIndexOf(" ", end);
		if (space > start + SNIPPET_CHARS / 2) end = space;
	}
	const piece = flat.slice(start, end);
	const marked = pattern ? markOutsideLinks(piece, pattern) : piece;
	return `${start > 0 ? "…" : ""}${marked}${end < flat.length ? "…" : ""}`;
}

/** Where the first match outside a link starts (-1: none). */
function firstOutsideLinks(text: string, pattern: RegExp): number {
	const inLink = insideLinks(text);
	for (const m of text.matchAll(pattern)) if (!inLink(m.index ?? 0)) return m.index ?? 0;
	return -1;
}
