import { normalise } from "../embedding/dimensions";
import { isArchived } from "../node-text";
import type { GraphReads, PassageHit, StoredPassage } from "../protocols";
import { contentWords } from "../search/query-text";
import { passageSnippet } from "../search/passage-hits";
import { isFullScope } from "../scope";
import type { NodeRecord, PartialScope, Scope } from "../types";
import { findNode, type NodeName } from "./find-node";
import type { SkillDeps } from "./skill-deps";
import { plainSnippetText } from "./related-snippet";
import { cosine, heaviest, IdfCache, isContentWord, mentionsIn, nameDictionary, notesNamedBy, termCounts, termVector, type NameDictionary, type TermVector } from "./related-terms";

/** Why a note is related: the note names it, its text is close in meaning, it shares rare words, or a relation links it. */
export type RelatedReason = "mentioned" | "meaning" | "words" | "linked";

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
 * The note's heaviest words (tf·idf) that stand for it in the words channel, besides its name.
 * Link recovery, no model: 8 words 0.808 / 0.975, 12 words 0.828 / 1.000 (each word is another
 * posting list to rank: the words channel is most of a query's time at 10k notes). They are ranked
 * by bm25 over passages, and matched against the note names in memory (notesNamedBy): a fulltext
 * query over node rows (which hold a note's name and frontmatter, not its text) found the same
 * names for ≈40 ms of CPU per question at 10k notes; link recovery 0.828 / 1.000 either way, and
 * without the mentions channel 0.464 / 0.475 against 0.398 / 0.475.
 */
const QUERY_WORDS = 12;
/** Passages read for the words channel, each note ranked by its best one. */
const PASSAGE_DEPTH = 20;
/** Hits read per other channel before fusion. */
const CHANNEL_DEPTH = 40;
const RRF_K = 60;
/**
 * Weights of the channels in the fusion. Link recovery, no model (recall@8 obsidian-help /
 * apuntes), weights meaning, words, mentioned, cosine: 1,1,1,1 0.643 / 0.771; 1,1,2,1 0.759 /
 * 1.000; 1,1,1,2 0.631 / 0.696; 1,1,2,0 0.767 / 1.000; 1,0.5,2,0.5 0.822 / 1.000; 1,0.5,2,1 0.828 /
 * 1.000. Both vaults want a named note first; apuntes is then full, so the words' half weight is
 * obsidian-help's choice that apuntes does not contradict.
 */
const WEIGHTS = { meaning: 1, words: 0.5, mentioned: 2, cosine: 1 } as const;
/**
 * Cosine below which a passage is not "close in meaning" (a small vault would otherwise list every
 * note). Chosen, not tuned on data.
 */
const MIN_SIMILARITY = 0.3;
/** Whole-note term cosine below which two notes share nothing worth showing. */
const MIN_COSINE = 0.02;
/** The note's heaviest words a snippet may mark (with its name's words). */
const MARKED_WORDS = 40;
/** A name more notes bear than this says nothing about which one is meant. */
const MAX_NAMESAKES = 3;
/** The note names of a memory are read again after this long (a rename keeps the node count). */
const NAMES_TTL_MS = 120_000;

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
 * The notes most related to one note and not yet linked to it, by four channels fused by reciprocal
 * rank: the notes its text names (unlinked mentions, rare names first), its heaviest words (tf·idf)
 * ranked by bm25 over every passage and found in other notes' names, its passages' neighbours by
 * vector (see meaningHits), and the cosine of whole-note tf·idf vectors over the notes the others
 * found. Each note once, with the passage that makes it related. Notes a relation links either
 * way go to `linked`. Only nodes with a note are listed, never the note itself or an archived node.
 * Reads only.
 */
export async function related(deps: SkillDeps, scope: PartialScope, ref: NodeName, options: RelatedOptions = {}): Promise<RelatedView | null> {
	const { limit = RELATED_LIMIT, pause = () => Promise.resolve() } = options;
	if (!isFullScope(scope)) return null;
	const node = await findNode(deps, scope, ref).catch((error: unknown) => {
		if (error instanceof Error && "code" in error && error.code === "not_found") return null;
		throw error;
	});
	if (!node) return null;
	return keptView(deps, scope, node.id, limit) ?? keepView(deps, scope, limit, await relatedTo(deps, scope, node, limit, pause));
}

/** Related notes of a found note (see related). */
async function relatedTo(deps: SkillDeps, scope: Scope, node: NodeRecord, limit: number, pause: () => Promise<void>): Promise<{ jobs: number; view: RelatedView }> {
	const { graph, writeStats } = deps.memory;
	const jobs = writeStats.jobs;
	const passages = (await graph.passagesOf?.(scope, node.id)) ?? [];
	const idfs = idfCache(graph);
	const counts = termCounts(passages);
	const own = termVector(counts, await idfs.idf(graph, scope, counts.keys()));
	const candidates = new Map<string, Candidate>();
	const add = (id: string, rank: number, reason: RelatedReason, weight: number, passage?: StoredPassage) => {
		if (id === node.id) return;
		const seen = candidates.get(id) ?? { score: 0, reasons: new Set<RelatedReason>() };
		seen.score += weight / (RRF_K + rank);
		seen.reasons.add(reason);
		// The words' passage shows why in shared words; one found by meaning only when none did.
		if (passage && (!seen.passage || reason === "words")) seen.passage = passage;
		candidates.set(id, seen);
	};
	(await meaningHits(deps, scope, node, passages)).forEach((hit, i) => add(hit.nodeId, i + 1, "meaning", WEIGHTS.meaning, hit.passage));
	await pause();
	(await mentionedNotes(deps, scope, node, passages)).forEach((id, i) => add(id, i + 1, "mentioned", WEIGHTS.mentioned));
	const words = queryWords(node, own);
	if (words.length > 0) {
		const text = words.join(" ");
		bestPerNode((await graph.searchPassages?.(scope, { text, limit: PASSAGE_DEPTH })) ?? []).forEach((hit, i) => add(hit.nodeId, i + 1, "words", WEIGHTS.words, hit.passage));
		const titled = notesNamedBy(await idfs.idf(graph, scope, words), await noteNames(deps, scope));
		titled.slice(0, CHANNEL_DEPTH / 2).forEach((id, i) => add(id, i + 1, "words", WEIGHTS.words));
	}
	await pause();
	const texts = await candidateTexts(deps, scope, [...candidates.keys()]);
	(await byCosine(deps, scope, own, texts)).forEach(([id, score], i) => {
		if (score >= MIN_COSINE) add(id, i + 1, "words", WEIGHTS.cosine);
	});
	const links = new Map<string, { type: string; direction: "out" | "in" }>();
	for (const edge of await graph.edgesOf(scope, node.id, "both")) if (!links.has(edge.node.id)) links.set(edge.node.id, { type: edge.type, direction: edge.direction });
	for (const [id, relation] of links) {
		const seen = candidates.get(id) ?? { score: 0, reasons: new Set<RelatedReason>() };
		seen.reasons.add("linked");
		seen.relation = relation;
		candidates.set(id, seen);
	}
	const ranked = [...candidates].filter(([id]) => id !== node.id).sort((a, b) => b[1].score - a[1].score);
	const marked = new Set([...contentWords(node.key).filter(isContentWord), ...meaningful(own)]);
	const why = { words: marked, own, texts };
	const view = {
		node_id: node.id,
		related: await views(deps, scope, ranked.filter(([id]) => !links.has(id)), limit, why),
		linked: await views(deps, scope, ranked.filter(([id]) => links.has(id)), limit, why),
	};
	return { jobs, view };
}

interface KeptView {
	readonly at: number;
	/** The memory's write jobs when the list was made (Memory.writeStats). */
	readonly jobs: number;
	readonly view: RelatedView;
}

/**
 * Related lists of each graph, by scope, note and limit: a note opened again is answered from its
 * list while this memory wrote nothing since (a write anywhere may change any list: a note edited,
 * added, linked or archived, or the words' counts) and for at most NAMES_TTL_MS (what another
 * process wrote is seen after that, as with the note names). At most KEPT_VIEWS lists, the oldest
 * dropped first.
 */
const keptViews = new WeakMap<object, Map<string, KeptView>>();
const KEPT_VIEWS = 256;

function viewKey(scope: Scope, nodeId: string, limit: number): string {
	return `${scope.orgId}\u0000${scope.userId}\u0000${nodeId}\u0000${limit}`;
}

function keptView(deps: SkillDeps, scope: Scope, nodeId: string, limit: number): RelatedView | null {
	const hit = keptViews.get(deps.memory.graph)?.get(viewKey(scope, nodeId, limit));
	return hit && hit.jobs === deps.memory.writeStats.jobs && Date.now() - hit.at < NAMES_TTL_MS ? hit.view : null;
}

/** Keeps the list made while the memory was at `jobs` write jobs; a write during it makes it stale at once. */
function keepView(deps: SkillDeps, scope: Scope, limit: number, made: { readonly jobs: number; readonly view: RelatedView }): RelatedView {
	const { graph } = deps.memory;
	const kept = keptViews.get(graph) ?? new Map<string, KeptView>();
	keptViews.set(graph, kept);
	const key = viewKey(scope, made.view.node_id, limit);
	kept.delete(key);
	if (kept.size >= KEPT_VIEWS) kept.delete(kept.keys().next().value as string);
	kept.set(key, { at: Date.now(), jobs: made.jobs, view: made.view });
	return made.view;
}

/** What a listed note's snippet is chosen and marked by: the asking note's words and the candidates' passages. */
interface Why {
	readonly words: ReadonlySet<string>;
	readonly own: TermVector;
	readonly texts: ReadonlyMap<string, readonly StoredPassage[]>;
}

/** The first `limit` candidates that are live notes, as views. */
async function views(deps: SkillDeps, scope: Scope, ranked: readonly [string, Candidate][], limit: number, why: Why): Promise<RelatedNoteView[]> {
	const out: RelatedNoteView[] = [];
	for (const [id, found] of ranked) {
		if (out.length >= limit) break;
		const other = await deps.memory.graph.getNodeById(scope, id);
		const path = other?.props.obsidian_path;
		if (!other || isArchived(other) || typeof path !== "string" || !path) continue;
		const passage = found.passage ?? (found.reasons.size > 0 && !found.relation ? sharedPassage(why.texts.get(id) ?? [], why.own) : undefined);
		out.push(relatedView(other, path, { ...found, passage }, why.words));
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
		reasons: (["mentioned", "meaning", "words", "linked"] as const).filter((r) => found.reasons.has(r)),
		...(passage ? { passage: { heading: passage.heading, line: passage.line, snippet: whySnippet(passage, node.key, words) } } : {}),
		...(found.relation ? { relation: found.relation } : {}),
	};
}

/** The passage as plain text without the note's own title, the asking note's meaningful words it holds marked. */
function whySnippet(passage: StoredPassage, name: string, words: ReadonlySet<string>): string {
	const text = plainSnippetText(passage.text, name);
	const marked = [...new Set(contentWords(text))].filter((w) => words.has(w));
	return passageSnippet(text, marked.join(" "));
}

/** The passage sharing the most weight of the asking note's words (a note found by name or whole-note cosine). */
function sharedPassage(passages: readonly StoredPassage[], own: TermVector): StoredPassage | undefined {
	let best: StoredPassage | undefined;
	let bestScore = 0;
	for (const p of passages) {
		let score = 0;
		for (const word of new Set(contentWords(`${p.heading} ${p.text}`))) score += own.get(word) ?? 0;
		if (score > bestScore) [best, bestScore] = [p, score];
	}
	return best;
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

/** The store's idf cache, one per graph (the counts are the store's, every scope's). */
const idfCaches = new WeakMap<object, IdfCache>();
function idfCache(graph: GraphReads): IdfCache {
	let cache = idfCaches.get(graph);
	if (!cache) idfCaches.set(graph, (cache = new IdfCache()));
	return cache;
}

interface CachedNames {
	readonly at: number;
	readonly nodes: number;
	/** The memory's write jobs when the names were read (Memory.writeStats). */
	readonly jobs: number;
	readonly dictionary: NameDictionary;
}

/**
 * Note names of each graph and scope, read again after NAMES_TTL_MS (a rename, or a note another
 * process added) or, once this memory wrote since they were read, when the scope's node count
 * changed (a note added or deleted): reading them costs a list of every node, and counting costs a
 * scan of every edge (≈75 ms at 10k notes in WASM), so neither runs while nothing was written.
 */
const nameCaches = new WeakMap<object, Map<string, CachedNames>>();
async function noteNames(deps: SkillDeps, scope: Scope): Promise<NameDictionary> {
	const { graph, writeStats } = deps.memory;
	const byScope = nameCaches.get(graph) ?? new Map<string, CachedNames>();
	nameCaches.set(graph, byScope);
	const key = `${scope.orgId}\u0000${scope.userId}`;
	const hit = byScope.get(key);
	const fresh = hit && Date.now() - hit.at < NAMES_TTL_MS;
	if (fresh && hit.jobs === writeStats.jobs) return hit.dictionary;
	const { nodes: count } = await graph.counts(scope);
	if (fresh && hit.nodes === count) {
		byScope.set(key, { ...hit, jobs: writeStats.jobs });
		return hit.dictionary;
	}
	const nodes = (await graph.listNodes(scope, {})).filter((n) => typeof n.props.obsidian_path === "string");
	const dictionary = nameDictionary(nodes);
	byScope.set(key, { at: Date.now(), nodes: count, jobs: writeStats.jobs, dictionary });
	return dictionary;
}

/**
 * Notes the text names (title or alias) without linking them, the rarest names first: the sum of
 * their words' idf, more for a name said more often. What Obsidian lists as unlinked mentions.
 */
async function mentionedNotes(deps: SkillDeps, scope: Scope, node: NodeRecord, passages: readonly StoredPassage[]): Promise<string[]> {
	const { graph } = deps.memory;
	const text = passages.map((p) => `${p.heading}\n${p.text}`).join("\n");
	const mentions = mentionsIn(text, await noteNames(deps, scope)).filter((m) => m.ids.length <= MAX_NAMESAKES && !m.ids.includes(node.id));
	const idf = await idfCache(graph).idf(graph, scope, mentions.flatMap((m) => m.words));
	const scored = new Map<string, number>();
	for (const m of mentions) {
		const score = m.words.reduce((sum, w) => sum + (idf.get(w) ?? 0), 0) * (1 + Math.log(m.count));
		for (const id of m.ids) scored.set(id, Math.max(scored.get(id) ?? 0, score));
	}
	return [...scored].filter(([, score]) => score > 0).sort((a, b) => b[1] - a[1]).slice(0, CHANNEL_DEPTH).map(([id]) => id);
}

/** Passages of each candidate note. */
async function candidateTexts(deps: SkillDeps, scope: Scope, ids: readonly string[]): Promise<Map<string, readonly StoredPassage[]>> {
	const out = new Map<string, readonly StoredPassage[]>();
	for (const id of ids) out.set(id, (await deps.memory.graph.passagesOf?.(scope, id)) ?? []);
	return out;
}

/** Candidates by the cosine of their whole-note term vector with the asking note's, best first. */
async function byCosine(deps: SkillDeps, scope: Scope, own: TermVector, texts: ReadonlyMap<string, readonly StoredPassage[]>): Promise<[string, number][]> {
	const { graph } = deps.memory;
	const counts = new Map([...texts].map(([id, passages]) => [id, termCounts(passages)] as const));
	const idf = await idfCache(graph).idf(graph, scope, [...counts.values()].flatMap((c) => [...c.keys()]));
	return [...counts].map(([id, c]) => [id, cosine(own, termVector(c, idf))] as [string, number]).sort((a, b) => b[1] - a[1]);
}

/** The note's words a snippet marks: its heaviest, each weighing a quarter of the heaviest or more (a word every note holds weighs nothing). */
function meaningful(own: TermVector): string[] {
	const top = heaviest(own, MARKED_WORDS);
	const floor = (own.get(top[0]) ?? 0) / 4;
	return top.filter((w) => (own.get(w) ?? 0) >= floor);
}

/** The note's name words, then its heaviest words by tf·idf. */
function queryWords(node: NodeRecord, own: TermVector): string[] {
	const nameWords = contentWords(node.key).filter(isContentWord);
	const top = heaviest(own, QUERY_WORDS + nameWords.length).filter((w) => !nameWords.includes(w)).slice(0, QUERY_WORDS);
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
