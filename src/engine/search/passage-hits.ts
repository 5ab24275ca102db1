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
	const merged = mergeNodeAndPassageRanks(
		nodeHits.map((h) => ({ id: h.node.id, score: h.score })),
		passageHits,
		named,
	);
	const unread = merged.filter((entry) => !known.has(entry.id)).map((entry) => entry.id);
	const read = unread.length > 0 ? await graph.getNodesByIds(scope, unread) : new Map<string, NodeRecord>();
	const out: FulltextHit[] = [];
	for (const entry of merged) {
		const node = known.get(entry.id) ?? read.get(entry.id);
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

/**
 * The query's words, one alternation (null when the query has no word). Word boundaries are checked
 * by `termMatches`, outside the pattern: a lookbehind and a tail of Unicode script classes in the
 * pattern, under the case-insensitive flag, cost V8 ≈2 ms to compile per snippet (one per alternative
 * before, ≈30 ms for a related note's 20 words), and every snippet has its own words.
 */
function termPattern(query: string): RegExp | null {
	const terms = visibleTerms(query);
	return terms.length === 0 ? null : new RegExp(terms.map(escapeRegExp).join("|"), "giu");
}

const LATIN_START = /^\p{Script=Latin}/u;
const LATIN_OR_DIGIT = /[\p{Script=Latin}\p{N}]$/u;
const LATIN_TAIL = /[\p{Script=Latin}\p{M}\p{N}]*/uy;

/**
 * Where the pattern's words are in the text, [start, end) left to right. Latin words match at word
 * starts and run to the word's end (prefix search: "render" marks "rendered"); a Chinese or Thai
 * letter before one is a word boundary ("迁移到PostgreSQL的").
 */
function termMatches(text: string, pattern: RegExp): [number, number][] {
	const out: [number, number][] = [];
	pattern.lastIndex = 0;
	for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
		let end = m.index + m[0].length;
		if (LATIN_START.test(m[0])) {
			if (LATIN_OR_DIGIT.test(text.slice(Math.max(0, m.index - 2), m.index))) {
				pattern.lastIndex = m.index + 1;
				continue;
			}
			LATIN_TAIL.lastIndex = end;
			end += LATIN_TAIL.exec(text)?.[0].length ?? 0;
			pattern.lastIndex = end;
		}
		out.push([m.index, end]);
	}
	return out;
}

/** A test for "this offset is inside a link" over the text's links. */
function insideLinks(text: string): (at: number) => boolean {
	const links = [...text.matchAll(LINK_TARGET)].map((m) => [m.index ?? 0, (m.index ?? 0) + m[0].length] as const);
	return (at) => links.some(([from, to]) => at >= from && at < to);
}

/** Each match of the pattern outside a link, marked **like this**. */
function markOutsideLinks(piece: string, pattern: RegExp): string {
	const inLink = insideLinks(piece);
	let out = "";
	let from = 0;
	for (const [start, end] of termMatches(piece, pattern)) {
		if (inLink(start)) continue;
		out += `${piece.slice(from, start)}**${piece.slice(start, end)}**`;
		from = end;
	}
	return out + piece.slice(from);
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
	return termMatches(text, pattern).find(([start]) => !inLink(start))?.[0] ?? -1;
}
