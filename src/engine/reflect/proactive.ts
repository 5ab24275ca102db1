import { embedQuery } from "../embedding/dimensions";
import { isNullEmbedder } from "../embedding/null-embedding-provider";
import { NotFoundError, ValidationError, errorMessage } from "../errors";
import { DEFAULT_INSIGHTS_FOLDER } from "../plain-values";
import type { ReflectDeps } from "./reflect-deps";
import { isSystemInsight } from "../resolver/system-insight";
import { isFullScope, requireScope } from "../scope";
import { safeFileName } from "../sync/markdown-text";
import { INSIGHT_NOTE_KEY } from "../sync/note-parser";
import { normaliseVaultPath, type VaultSource } from "../sync/vault-source";
import type { NodeRecord, PartialScope } from "../types";
import type { WriteContext } from "../write/write-pipeline";
import { ABOUT, byReviewOrder, INSIGHT_LABEL, insightStatus, insightView, requireInsight, type InsightView } from "./insights";

// --- Surfacing pending Insights ---

export type InsightMatch = "text" | "entity" | "embedding";

export interface SurfacedInsight extends InsightView {
	/** How the Insight relates to the query (absent without a query). */
	readonly match?: { readonly by: InsightMatch; readonly score: number };
}

export interface SurfaceOptions {
	readonly limit?: number;
	/** Only Insights related to this text: their title or body, the entities they are about, or (with an embedder) meaning. */
	readonly query?: string;
	/** Cosine similarity an Insight needs to match a query by meaning (default 0.6). */
	readonly minSimilarity?: number;
}

export interface SurfaceResult {
	readonly query?: string;
	readonly insights: readonly SurfacedInsight[];
	/** Set when the query could not use embeddings although an embedder is configured. */
	readonly degraded?: string;
}

const CANDIDATES = 50;
/** Entities from a query whose Insights count as related (the best fulltext hits). */
const ENTITY_HITS = 5;

/**
 * Pending Insights for a person (or an agent) to review: highest confidence first; with a query,
 * only related ones, best match first. Title and body matches rank above entity matches, which
 * rank above matches by meaning.
 */
export async function surfaceInsights(memory: ReflectDeps, scope: PartialScope, options: SurfaceOptions = {}): Promise<SurfaceResult> {
	const limit = options.limit ?? 10;
	if (!Number.isInteger(limit) || limit < 1) throw new ValidationError(`limit must be a positive whole number, got ${limit}.`);
	if (!isFullScope(scope)) return { insights: [] };
	const query = options.query?.trim();
	if (!query) {
		const nodes = (await memory.graph.listNodes(scope, { label: INSIGHT_LABEL, status: ["pending"] })).filter(isSystemInsight).sort(byReviewOrder);
		return { insights: await Promise.all(nodes.slice(0, limit).map((n) => insightView(memory, scope, n))) };
	}
	const matches = new Map<string, { node: NodeRecord; by: InsightMatch; score: number }>();
	const offer = (node: NodeRecord, by: InsightMatch, score: number) => {
		if (!isPending(node)) return;
		const seen = matches.get(node.id);
		if (!seen || score > seen.score) matches.set(node.id, { node, by, score });
	};
	for (const [rank, node] of (await textMatches(memory, scope, query)).entries()) offer(node, "text", 1 - rank / (2 * CANDIDATES));
	for (const [rank, node] of (await entityMatches(memory, scope, query)).entries()) offer(node, "entity", 0.5 - rank / (4 * CANDIDATES));
	let degraded: string | undefined;
	try {
		for (const [node, similarity] of await meaningMatches(memory, scope, query, options.minSimilarity ?? 0.6)) offer(node, "embedding", 0.25 * similarity);
	} catch (error) {
		degraded = `matching by meaning failed (${errorMessage(error)}); text and entity matches only`;
	}
	const ranked = [...matches.values()].sort((a, b) => b.score - a.score || byReviewOrder(a.node, b.node)).slice(0, limit);
	const insights = await Promise.all(
		ranked.map(async (m) => ({ ...(await insightView(memory, scope, m.node)), match: { by: m.by, score: Math.round(m.score * 1000) / 1000 } })),
	);
	return { query, insights, ...(degraded ? { degraded } : {}) };
}

function isPending(node: NodeRecord): boolean {
	return node.label === INSIGHT_LABEL && isSystemInsight(node) && insightStatus(node) === "pending";
}

async function textMatches(memory: ReflectDeps, scope: PartialScope, query: string): Promise<NodeRecord[]> {
	const hits = await memory.graph.fulltext(scope, { text: query, limit: CANDIDATES, labels: [INSIGHT_LABEL] });
	return hits.map((h) => h.node);
}

/** Insights ABOUT the entities the query finds best. */
async function entityMatches(memory: ReflectDeps, scope: PartialScope, query: string): Promise<NodeRecord[]> {
	const hits = (await memory.graph.fulltext(scope, { text: query, limit: ENTITY_HITS * 2 })).filter((h) => h.node.label !== INSIGHT_LABEL).slice(0, ENTITY_HITS);
	return insightsAbout(memory, scope, hits.map((h) => h.node));
}

async function insightsAbout(memory: ReflectDeps, scope: PartialScope, nodes: readonly Pick<NodeRecord, "id" | "label">[]): Promise<NodeRecord[]> {
	const out: NodeRecord[] = [];
	for (const node of nodes) {
		for (const edge of await memory.graph.edgesOf(scope, node.id, "in", [ABOUT])) out.push(edge.node);
	}
	return out;
}

async function meaningMatches(memory: ReflectDeps, scope: PartialScope, query: string, minSimilarity: number): Promise<[NodeRecord, number][]> {
	const { embedder, vectors } = memory;
	if (isNullEmbedder(embedder) || !embedder || !vectors || embedder.dimensions === 0) return [];
	const vector = await embedQuery(embedder, query);
	const hits = await vectors.knn(scope, vector, CANDIDATES);
	const out: [NodeRecord, number][] = [];
	for (const hit of hits) {
		if (hit.similarity < minSimilarity) continue;
		const node = await memory.graph.getNodeById(scope, hit.nodeId);
		if (node) out.push([node, hit.similarity]);
	}
	return out;
}

/**
 * The `proactive_hint` a search answer carries when pending Insights relate to its query (by
 * title, body or the entities they are about); undefined otherwise. Cheap: one indexed read when
 * the scope has no pending Insight (the usual case); else one fulltext lookup over the Insights
 * and the edges of the search's top results (or one more fulltext lookup without them). No
 * embedding. The face (`Skills.search`) computes it once per search; callers reuse `proactive_hint`,
 * and each adapter says how to review there (the engine names no command or tool).
 */
export async function searchProactiveHint(
	memory: ReflectDeps,
	scope: PartialScope,
	query: string,
	/** The search's own best results, when known: their Insights count as related (saves a fulltext query). */
	results?: readonly Pick<NodeRecord, "id" | "label">[],
): Promise<string | undefined> {
	if (!isFullScope(scope) || !query.trim()) return undefined;
	if ((await memory.graph.listNodes(scope, { label: INSIGHT_LABEL, status: ["pending"], limit: 1 })).length === 0) return undefined;
	const related = new Map<string, NodeRecord>();
	const about = results ? await insightsAbout(memory, scope, results.filter((n) => n.label !== INSIGHT_LABEL).slice(0, ENTITY_HITS)) : await entityMatches(memory, scope, query);
	for (const node of [...(await textMatches(memory, scope, query)), ...about]) {
		if (isPending(node)) related.set(node.id, node);
	}
	if (related.size === 0) return undefined;
	const titles = [...related.values()].sort(byReviewOrder).map((n) => `"${n.key}"`);
	const shown = titles.slice(0, 3).join(", ") + (titles.length > 3 ? ` and ${titles.length - 3} more` : "");
	return `${titles.length} pending Insight${titles.length === 1 ? " relates" : "s relate"} to this search: ${shown}. Review ${titles.length === 1 ? "it" : "them"} and approve or dismiss.`;
}

// --- Writing an approved Insight into the vault ---

export interface WriteInsightOptions {
	/** Vault path of an existing note to append a dated section to. */
	readonly note?: string;
	/** Without `note`: the folder where the Insight gets a note of its own (default DEFAULT_INSIGHTS_FOLDER). */
	readonly folder?: string;
}

export interface WriteInsightResult {
	readonly title: string;
	/** Vault path of the note written. */
	readonly path: string;
	/** True when a new note was created (false: a section was appended). */
	readonly created: boolean;
	/** False when the note already holds this Insight (nothing written again). */
	readonly written: boolean;
	readonly insight: InsightView;
}

/** Marker that makes writing the same Insight twice a no-op (an Obsidian comment: hidden when reading). */
function marker(id: string): string {
	return `%% engrama-insight: ${id} %%`;
}

/**
 * Writes an approved Insight into the vault: a dated section appended to `note`, or a new note
 * in the Insights folder. Links point at the entities' notes. Refuses pending and dismissed
 * Insights: a person must approve first.
 */
export async function writeInsightToNote(
	memory: ReflectDeps,
	ctx: WriteContext,
	vault: VaultSource,
	title: string,
	options: WriteInsightOptions = {},
): Promise<WriteInsightResult> {
	const scope = requireScope(ctx.scope);
	return memory.write(async () => {
		const node = await requireInsight(memory, scope, title);
		const status = insightStatus(node);
		if (status !== "approved") {
			throw new ValidationError(
				status === "dismissed"
					? `Insight "${node.key}" was dismissed, so it is not written to the vault. Approve it first if you changed your mind.`
					: `Insight "${node.key}" is ${status}: only approved Insights are written to the vault. Approve it first (engrama approve).`,
				{ title: node.key, status },
			);
		}
		const about = await memory.graph.edgesOf(scope, node.id, "out", [ABOUT]);
		const day = memory.clock.now().toISOString().slice(0, 10);
		const section = renderSection(node, about.map((e) => e.node), day);

		let path: string;
		let created = false;
		let written = true;
		if (options.note !== undefined) {
			path = notePath(options.note);
			if (!(await vault.stat(path))) {
				throw new NotFoundError(`The note "${path}" does not exist in the vault. Check the path, or leave the note out to create one in ${options.folder ?? DEFAULT_INSIGHTS_FOLDER}/.`, {
					path,
				});
			}
		} else {
			const folder = normaliseVaultPath(options.folder ?? DEFAULT_INSIGHTS_FOLDER);
			path = notePath(`${folder ? `${folder}/` : ""}${safeFileName(node.key)}`);
		}
		const existing = (await vault.stat(path)) ? await vault.read(path) : null;
		if (existing === null) {
			// engrama_insight names the Insight this note belongs to: sync leaves it to that Insight
			// instead of reading it back as a new Note beside it.
			await vault.create(path, `---\ntags: [insight]\n${INSIGHT_NOTE_KEY}: ${node.id}\n---\n# ${headingText(node.key)}\n\n${section}`);
			created = true;
		} else if (existing.includes(marker(node.id))) {
			written = false;
		} else {
			// Appended against the text as it is at write time: a user may have typed since the read.
			await vault.process(path, (current) => (current.includes(marker(node.id)) ? current : `${current.replace(/\s+$/, "")}\n\n${section}`));
		}
		const updated = written
			? (await memory.pipeline.mergeEntity(ctx, { label: INSIGHT_LABEL, key: node.key, props: { written_to: path, written_at: memory.clock.now().toISOString() } }))
					.node
			: node;
		return { title: node.key, path, created, written, insight: await insightView(memory, scope, updated) };
	});
}

function notePath(path: string): string {
	const clean = normaliseVaultPath(path);
	if (!clean) throw new ValidationError("The note path is empty. Give a vault-relative path such as Projects/Billing Portal.md.");
	// Said plainly here: the vault would only answer "does not exist" for a path that leaves it.
	if (clean.split("/").includes("..")) {
		throw new ValidationError(`"${path}" is outside the vault. Give a vault-relative path such as Projects/Billing Portal.md.`, { path });
	}
	return /\.md$/i.test(clean) ? clean : `${clean}.md`;
}

/** `## Insight (2026-03-15): title`, the body, links to the entities' notes, and the marker. */
function renderSection(node: NodeRecord, entities: readonly NodeRecord[], day: string): string {
	const confidence = typeof node.props.confidence === "number" ? node.props.confidence : 1;
	const detector = typeof node.props.source_query === "string" ? node.props.source_query.replace(/_/g, " ") : "reflect";
	const body = typeof node.props.body === "string" ? node.props.body : "";
	const links = [...entities].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)).map(wikilink);
	return [
		`## Insight (${day}): ${headingText(node.key)}`,
		"",
		`*Approved Insight from Engrama reflect (${detector}), confidence ${confidence}.*`,
		"",
		body,
		...(links.length > 0 ? ["", `Related: ${links.join(", ")}`] : []),
		"",
		marker(node.id),
		"",
	].join("\n");
}

/** A link to the entity's note when sync knows its path, else to its name. */
function wikilink(node: NodeRecord): string {
	const name = linkText(node.key);
	const path = typeof node.props.obsidian_path === "string" ? node.props.obsidian_path.replace(/\.md$/i, "") : "";
	if (!path || (!path.includes("/") && linkText(path) === name)) return `[[${name}]]`;
	return `[[${linkText(path)}|${name}]]`;
}

/** Characters that would break a wikilink or a heading become spaces. */
function linkText(text: string): string {
	return text.replace(/[[\]|#^\n\r]/g, " ").replace(/\s+/g, " ").trim();
}

function headingText(text: string): string {
	return text.replace(/[\n\r]/g, " ");
}
