import { normalise } from "../embedding/dimensions";
import { isArchived } from "../node-text";
import type { PassageHit, StoredPassage } from "../protocols";
import { contentWords, isStopword } from "../search/query-text";
import { passageSnippet } from "../search/passage-hits";
import { isFullScope } from "../scope";
import type { NodeRecord, PartialScope, Scope } from "../types";
import { findNode, type NodeName } from "./find-node";
import type { SkillDeps } from "./skill-deps";

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
	/** The section that makes it related (none when only a relation links it). */
	readonly passage?: { readonly heading: string; readonly line: number; readonly snippet: string };
	/** The relation that links it, seen from the note asked about. */
	readonly relation?: { readonly type: string; readonly direction: "out" | "in" };
}

export interface RelatedView {
	readonly node_id: string;
	readonly related: readonly RelatedNoteView[];
}

export interface RelatedOptions {
	/** How many notes at most (default RELATED_LIMIT). */
	readonly limit?: number;
	/**
	 * Awaited between the channels, each a few synchronous statements (≈100 ms at 10k notes in
	 * WASM): the plugin passes a window timer so typing is handled in between.
	 */
	readonly pause?: () => Promise<void>;
}

export const RELATED_LIMIT = 8;
/**
 * Words of the note that stand for it in the words channel (its most frequent content words, and
 * its headings'), besides its name: each more word is another posting list to rank (on a 2k-note
 * vault, 16 words cost 125 ms a query, 6 cost 50 ms; npm run bench -- related-notes).
 */
const QUERY_WORDS = 4;
/** Hits read per channel before fusion. */
const CHANNEL_DEPTH = 40;
const RRF_K = 60;
/** A relation counts a little less than text: the Context tab already lists the relations. */
const LINK_WEIGHT = 0.6;
/**
 * Cosine below which a passage is not "close in meaning" (a small vault would otherwise list every
 * note). Chosen, not tuned on data.
 */
const MIN_SIMILARITY = 0.3;

interface Candidate {
	score: number;
	reasons: Set<RelatedReason>;
	passage?: { passage: StoredPassage; query: string };
	relation?: { type: string; direction: "out" | "in" };
}

/**
 * The notes most related to one note: its passages' neighbours by vector (see meaningHits) and by
 * words (its name and most frequent content words, one passage and one node query), and the notes
 * its relations reach; fused by reciprocal rank, each note once, with the passage that makes it
 * related (the words' passage when both found one: its words are marked). Only nodes with a note
 * are listed, never the note itself or an archived node. Reads only.
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
	const add = (id: string, rank: number, weight: number, reason: RelatedReason, extra: Partial<Candidate> = {}) => {
		if (id === node.id) return;
		const seen = candidates.get(id) ?? { score: 0, reasons: new Set<RelatedReason>() };
		seen.score += weight / (RRF_K + rank);
		seen.reasons.add(reason);
		// A passage found by words shows why in marked words; one found by meaning, only its start.
		if (extra.passage && (!seen.passage || (reason === "words" && !seen.passage.query))) seen.passage = extra.passage;
		seen.relation ??= extra.relation;
		candidates.set(id, seen);
	};
	const byNode = (hits: readonly PassageHit[]) => bestPerNode(hits.filter((h) => h.nodeId !== node.id));
	(await meaningHits(deps, scope, node, passages)).forEach((hit, i) => add(hit.nodeId, i + 1, 1, "meaning", { passage: { passage: hit.passage, query: "" } }));
	await pause();
	const query = wordsOf(node, passages);
	if (query) {
		byNode((await graph.searchPassages?.(scope, { text: query, limit: CHANNEL_DEPTH / 2 })) ?? []).forEach((hit, i) => add(hit.nodeId, i + 1, 1, "words", { passage: { passage: hit.passage, query } }));
		(await graph.fulltext(scope, { text: query, limit: CHANNEL_DEPTH / 2 })).forEach((hit, i) => add(hit.node.id, i + 1, 0.5, "words"));
	}
	await pause();
	(await graph.edgesOf(scope, node.id, "both")).forEach((edge, i) =>
		add(edge.node.id, i + 1, LINK_WEIGHT, "linked", { relation: { type: edge.type, direction: edge.direction } }),
	);
	const ranked = [...candidates].sort((a, b) => b[1].score - a[1].score);
	const out: RelatedNoteView[] = [];
	for (const [id, found] of ranked) {
		if (out.length >= limit) break;
		const other = await graph.getNodeById(scope, id);
		const path = other?.props.obsidian_path;
		if (!other || isArchived(other) || typeof path !== "string" || !path) continue;
		out.push(relatedView(other, path, found));
	}
	return { node_id: node.id, related: out };
}

function relatedView(node: NodeRecord, path: string, found: Candidate): RelatedNoteView {
	const passage = found.passage?.passage;
	return {
		node_id: node.id,
		label: node.label,
		name: node.key,
		path,
		score: Math.round(found.score * 1e6) / 1e6,
		reasons: (["meaning", "words", "linked"] as const).filter((r) => found.reasons.has(r)),
		...(passage && found.passage ? { passage: { heading: passage.heading, line: passage.line, snippet: passageSnippet(passage.text, found.passage.query) } } : {}),
		...(found.relation ? { relation: found.relation } : {}),
	};
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

/** The note's most frequent content words (headings counted twice), its name first. */
function wordsOf(node: NodeRecord, passages: readonly StoredPassage[]): string {
	const counts = new Map<string, number>();
	const count = (text: string, weight: number) => {
		for (const word of contentWords(text)) if (word.length > 2 && !isStopword(word)) counts.set(word, (counts.get(word) ?? 0) + weight);
	};
	for (const p of passages) {
		count(p.heading, 2);
		count(p.text, 1);
	}
	const nameWords = contentWords(node.key);
	const top = [...counts].filter(([w]) => !nameWords.includes(w)).sort((a, b) => b[1] - a[1]).slice(0, QUERY_WORDS).map(([w]) => w);
	return [...nameWords, ...top].join(" ");
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
