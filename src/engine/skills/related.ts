import { normalise } from "../embedding/dimensions";
import { isArchived } from "../node-text";
import type { PassageHit, StoredPassage } from "../protocols";
import { contentWords, isStopword } from "../search/query-text";
import { passageSnippet } from "../search/passage-hits";
import { isFullScope } from "../scope";
import type { NodeRecord, PartialScope, Scope } from "../types";
import { findNode, type NodeName } from "./find-node";
import type { SkillDeps } from "./skill-deps";
import { plainSnippetText } from "./related-snippet";

/** Why a note is related: its text is close in meaning, it shares rare words, or a relation links it. */
export type RelatedReason = "meaning" | "words" | "linked";

export interface RelatedNoteView {
	readonly node_id: string;
	readonly label: string;
	readonly name: string;
	/** The note (vault-relative). */
	readonly path: string;
	readonly score: number;
	readonly reasons: readonly RelatedReason[];
	/**
	 * The section that makes it related (none when only a relation links it): its snippet is plain
	 * text (no Markdown) with the words both notes share marked **like this**.
	 */
	readonly passage?: { readonly heading: string; readonly line: number; readonly snippet: string };
	/** The relation that links it, seen from the note asked about. */
	readonly relation?: { readonly type: string; readonly direction: "out" | "in" };
}

export interface RelatedView {
	readonly node_id: string;
	/** Notes related by text and not yet linked to or from it, best first. */
	readonly related: readonly RelatedNoteView[];
	/** Notes a relation already links (either way), apart so they do not take the list's places. */
	readonly linked: readonly RelatedNoteView[];
}

export interface RelatedOptions {
	/** How many notes at most in each list (default RELATED_LIMIT). */
	readonly limit?: number;
	/**
	 * Awaited between the channels, each a few synchronous statements (≈100 ms at 10k notes in
	 * WASM): the plugin passes a window timer so typing is handled in between.
	 */
	readonly pause?: () => Promise<void>;
}

export const RELATED_LIMIT = 8;
/**
 * Words of the note that stand for it in the words channel: its content words by sublinear
 * frequency (headings counted twice), besides its name; bm25 weighs them by rarity. 32 words found
 * more hidden links (no model: 0.373 / 0.463 against 0.303 / 0.190 with 12, summed passages) but cost
 * seconds a query at 10k notes; every word is another posting list to rank.
 */
const QUERY_WORDS = 12;
/**
 * Passages read for the words channel, each note ranked by its best one. Link recovery, no model
 * (recall@8 on obsidian-help / apuntes): 80 passages 0.320 / 0.252, 40 0.346 / 0.356, 20 0.354 /
 * 0.375, and a note's best passage beat the sum of its passages at 80 (0.303 / 0.190): both vaults
 * agree, so neither was chosen on the figure of the other.
 */
const PASSAGE_DEPTH = 20;
/** Hits read per other channel before fusion. */
const CHANNEL_DEPTH = 40;
const RRF_K = 60;
/**
 * Cosine below which a passage is not "close in meaning" (a small vault would otherwise list every
 * note). Chosen, not tuned on data.
 */
const MIN_SIMILARITY = 0.3;

interface Candidate {
	score: number;
	reasons: Set<RelatedReason>;
	passage?: StoredPassage;
	relation?: { type: string; direction: "out" | "in" };
}

/**
 * `related` for a note named the way a person or an agent names it: its vault path ("Guides/Setup.md")
 * or its name ("Setup"). Null when no note is found.
 */
export async function relatedToNote(deps: SkillDeps, scope: PartialScope, note: string, options: RelatedOptions = {}): Promise<RelatedView | null> {
	const wanted = note.trim();
	if (/\.md$/i.test(wanted)) {
		const [byPath] = isFullScope(scope) ? await deps.memory.graph.listNodes(scope, { where: { obsidian_path: wanted }, limit: 1 }) : [];
		return byPath ? related(deps, scope, { label: byPath.label, name: byPath.key }, options) : null;
	}
	return related(deps, scope, { name: wanted }, options);
}

/**
 * The notes most related to one note and not yet linked to it: its words (the name and its most
 * frequent content words, ranked by bm25 over every passage, each note by its best passage)
 * and its passages' neighbours by vector (see meaningHits), fused by reciprocal rank, each note once
 * with the passage that makes it related. Notes a relation links either way go to `linked`. Only
 * nodes with a note are listed, never the note itself or an archived node. Reads only.
 */
export async function related(deps: SkillDeps, scope: PartialScope, ref: NodeName, options: RelatedOptions = {}): Promise<RelatedView | null> {
	const { limit = RELATED_LIMIT, pause = () => Promise.resolve() } = options;
	if (!isFullScope(scope)) return null;
	const node = await findNode(deps, scope, ref).catch((error: unknown) => {
		if (error instanceof Error && "code" in error && error.code === "not_found") return null;
		throw error;
	});
	if (!node) return null;
	const { graph } = deps.memory;
	const passages = (await graph.passagesOf?.(scope, node.id)) ?? [];
	const candidates = new Map<string, Candidate>();
	const add = (id: string, rank: number, reason: RelatedReason, passage?: StoredPassage) => {
		if (id === node.id) return;
		const seen = candidates.get(id) ?? { score: 0, reasons: new Set<RelatedReason>() };
		seen.score += 1 / (RRF_K + rank);
		seen.reasons.add(reason);
		// The words' passage shows why in shared words; one found by meaning only when none did.
		if (passage && (!seen.passage || reason === "words")) seen.passage = passage;
		candidates.set(id, seen);
	};
	(await meaningHits(deps, scope, node, passages)).forEach((hit, i) => add(hit.nodeId, i + 1, "meaning", hit.passage));
	await pause();
	const words = queryWords(node, passages);
	if (words.length > 0) {
		const text = words.join(" ");
		bestPerNode((await graph.searchPassages?.(scope, { text, limit: PASSAGE_DEPTH })) ?? []).forEach((hit, i) => add(hit.nodeId, i + 1, "words", hit.passage));
		(await graph.fulltext(scope, { text, limit: CHANNEL_DEPTH / 2 })).forEach((hit, i) => add(hit.node.id, i + 1, "words"));
	}
	await pause();
	const links = new Map<string, { type: string; direction: "out" | "in" }>();
	for (const edge of await graph.edgesOf(scope, node.id, "both")) if (!links.has(edge.node.id)) links.set(edge.node.id, { type: edge.type, direction: edge.direction });
	for (const [id, relation] of links) {
		const seen = candidates.get(id) ?? { score: 0, reasons: new Set<RelatedReason>() };
		seen.reasons.add("linked");
		seen.relation = relation;
		candidates.set(id, seen);
	}
	const ranked = [...candidates].filter(([id]) => id !== node.id).sort((a, b) => b[1].score - a[1].score);
	const shared = new Set([...words, ...ownWords(passages)]);
	return {
		node_id: node.id,
		related: await views(deps, scope, ranked.filter(([id]) => !links.has(id)), limit, shared),
		linked: await views(deps, scope, ranked.filter(([id]) => links.has(id)), limit, shared),
	};
}

/** The first `limit` candidates that are live notes, as views. */
async function views(deps: SkillDeps, scope: Scope, ranked: readonly [string, Candidate][], limit: number, words: ReadonlySet<string>): Promise<RelatedNoteView[]> {
	const out: RelatedNoteView[] = [];
	for (const [id, found] of ranked) {
		if (out.length >= limit) break;
		const other = await deps.memory.graph.getNodeById(scope, id);
		const path = other?.props.obsidian_path;
		if (!other || isArchived(other) || typeof path !== "string" || !path) continue;
		out.push(relatedView(other, path, found, words));
	}
	return out;
}

function relatedView(node: NodeRecord, path: string, found: Candidate, words: ReadonlySet<string>): RelatedNoteView {
	const passage = found.passage;
	return {
		node_id: node.id,
		label: node.label,
		name: node.key,
		path,
		score: Math.round(found.score * 1e6) / 1e6,
		reasons: (["meaning", "words", "linked"] as const).filter((r) => found.reasons.has(r)),
		...(passage ? { passage: { heading: passage.heading, line: passage.line, snippet: whySnippet(passage, node.key, words) } } : {}),
		...(found.relation ? { relation: found.relation } : {}),
	};
}

/** The passage as plain text without the note's own title, the content words both notes hold marked. */
function whySnippet(passage: StoredPassage, name: string, words: ReadonlySet<string>): string {
	const text = plainSnippetText(passage.text, name);
	const marked = [...new Set(contentWords(text))].filter((w) => words.has(w) && isContentWord(w));
	return passageSnippet(text, marked.join(" "));
}

/**
 * Passages of other notes nearest to the mean direction of this note's passage vectors (one query:
 * each costs a scan of every passage vector, ≈100 ms at 10k notes in WASM), or to its node vector
 * when its passages have none; each note once, by its closest passage.
 */
async function meaningHits(deps: SkillDeps, scope: Scope, node: NodeRecord, passages: readonly StoredPassage[]): Promise<PassageHit[]> {
	const { graph, vectors } = deps.memory;
	if (!graph.passageKnn) return [];
	const own = passages.length > 0 ? await graph.passageVectorsOf?.(scope, node.id) : undefined;
	const list = own && own.size > 0 ? [...own.values()] : [...((await vectors?.vectorsOf?.(scope, [node.id]))?.values() ?? [])];
	const centre = meanDirection(list);
	if (!centre) return [];
	return bestPerNode((await graph.passageKnn(scope, centre, CHANNEL_DEPTH)).filter((h) => h.nodeId !== node.id && h.score >= MIN_SIMILARITY));
}

function meanDirection(vectors: readonly Float32Array[]): Float32Array | null {
	if (vectors.length === 0) return null;
	const sum = new Float32Array(vectors[0].length);
	for (const v of vectors) {
		const unit = normalise(Float32Array.from(v));
		for (let i = 0; i < sum.length; i++) sum[i] += unit[i];
	}
	return sum.some((x) => x !== 0) ? normalise(sum) : null;
}

/** A word that says what a note is about: not a function word, not a bare number, not one Latin letter or two. */
function isContentWord(word: string): boolean {
	return !isStopword(word) && !/^\p{N}+$/u.test(word) && !(/^\p{Script=Latin}+$/u.test(word) && word.length <= 2);
}

/** Every content word of the note's passages. */
function ownWords(passages: readonly StoredPassage[]): string[] {
	return passages.flatMap((p) => contentWords(`${p.heading} ${p.text}`)).filter(isContentWord);
}

/** The note's name words, then its content words by sublinear frequency (headings counted twice). */
function queryWords(node: NodeRecord, passages: readonly StoredPassage[]): string[] {
	const counts = new Map<string, number>();
	const count = (text: string, weight: number) => {
		for (const word of contentWords(text)) if (isContentWord(word)) counts.set(word, (counts.get(word) ?? 0) + weight);
	};
	for (const p of passages) {
		count(p.heading, 2);
		count(p.text, 1);
	}
	const nameWords = contentWords(node.key).filter(isContentWord);
	const top = [...counts].filter(([w]) => !nameWords.includes(w)).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, QUERY_WORDS).map(([w]) => w);
	return [...new Set([...nameWords, ...top])];
}

/** Each node's best hit, in order. */
function bestPerNode(hits: readonly PassageHit[]): PassageHit[] {
	const seen = new Set<string>();
	const out: PassageHit[] = [];
	for (const hit of hits) {
		if (seen.has(hit.nodeId)) continue;
		seen.add(hit.nodeId);
		out.push(hit);
	}
	return out;
}
