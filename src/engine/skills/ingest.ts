import { ValidationError } from "../errors";
import type { Profile } from "../profile";
import { indexedNames, isSystemInsight, normaliseName } from "../resolver";
import { isFullScope } from "../scope";
import type { PartialScope } from "../types";
import { LIMITS } from "../write/sanitise";
import type { SkillDeps } from "./skill-deps";
import { nodeRef, roundScore, type NodeRefView } from "./node-refs";

export type IngestKind = "note" | "text" | "conversation";

export interface IngestInput {
	readonly content: string;
	/** Guessed from the content when absent. */
	readonly kind?: IngestKind;
	/** Where the content came from (a note path, a title), echoed back. */
	readonly source?: string;
}

export interface LabelGuidance {
	readonly label: string;
	readonly key_field: string;
	readonly description?: string;
	readonly properties: readonly string[];
	readonly anchor: boolean;
	readonly status_values?: readonly string[];
}

export interface RelationGuidance {
	readonly type: string;
	readonly from: readonly string[];
	readonly to: readonly string[];
}

export interface DedupHint extends NodeRefView {
	/** The phrase in the content that points at this node. */
	readonly mention: string;
	readonly score: number;
	readonly reason: "exact" | "similar_name" | "fulltext";
}

export interface IngestResult {
	readonly kind: IngestKind;
	readonly source?: string;
	readonly content: string;
	readonly characters: number;
	readonly guidance: {
		readonly instructions: readonly string[];
		readonly labels: readonly LabelGuidance[];
		readonly relations: readonly RelationGuidance[];
		readonly anchors: readonly string[];
	};
	/** Names spotted in the content (wikilinks, tags, headings, code, capitalised phrases). */
	readonly mentions: readonly string[];
	/** Existing nodes that look related: reuse their exact names in remember. */
	readonly dedup_hints: readonly DedupHint[];
}

const MAX_MENTIONS = 40;
const MAX_HINTS = 25;
const FULLTEXT_MENTIONS = 8;
const SYSTEM_LABELS = new Set(["Insight"]);
const SYSTEM_RELATIONS = new Set(["ABOUT", "LINKS_TO"]);
/** Fulltext passes over the content's own words (each a slice of distinct words), hits read per pass. */
const CONTENT_PASSES = 4;
const WORDS_PER_PASS = 24;
const HITS_PER_PASS = 10;

const SPEAKER = /^\s*(user|assistant|human|ai|system|me|you|[A-Z][\w .'-]{0,30})\s*:\s+\S/;

export function guessKind(content: string): IngestKind {
	const lines = content.split("\n");
	if (lines.filter((l) => SPEAKER.test(l)).length >= 2 && /^\s*(user|assistant|human|ai)\s*:/im.test(content)) return "conversation";
	if (/^---\r?\n/.test(content) || /^#{1,6}\s/m.test(content) || /\[\[[^\]]+\]\]/.test(content)) return "note";
	return "text";
}

const STOP = new Set(
	"The A An And Or But If Then When While This That These Those It Its We I You He She They Our My Your Their In On At To For Of With By From As Is Are Was Were Be Been Do Does Did Not No Yes So Also Note Notes Today Yesterday Tomorrow User Assistant Human AI System Me".split(
		" ",
	),
);

/** Candidate entity names, most telling first: wikilinks, tags, headings, code spans, then capitalised phrases by frequency. */
export function extractMentions(content: string): string[] {
	const ordered: string[] = [];
	const add = (raw: string) => {
		const value = raw.replace(/\s+/g, " ").trim();
		if (value.length < 2 || value.length > 80 || !/[\p{L}\p{N}]/u.test(value)) return;
		if (!ordered.some((m) => m.toLowerCase() === value.toLowerCase())) ordered.push(value);
	};
	for (const m of content.matchAll(/\[\[([^\]|#]+)(?:[#|][^\]]*)?\]\]/g)) add(m[1]);
	for (const m of content.matchAll(/(?:^|\s)#([\p{L}\p{N}_/-]{2,})/gu)) add(m[1].split("/").pop() ?? m[1]);
	for (const m of content.matchAll(/^(?:title|name):\s*["']?(.+?)["']?\s*$/gm)) add(m[1]);
	for (const m of content.matchAll(/^#{1,6}\s+(.+)$/gm)) add(m[1]);
	for (const m of content.matchAll(/`([^`\n]{2,60})`/g)) add(m[1]);
	const counts = new Map<string, number>();
	for (const m of content.matchAll(/\b(\p{Lu}[\p{L}\p{N}+#.-]*(?:\s+\p{Lu}[\p{L}\p{N}+#.-]*){0,3})/gu)) {
		const words = m[1].replace(/[.]+$/, "").split(/\s+/);
		while (words.length > 0 && STOP.has(words[0])) words.shift();
		if (words.length === 0) continue;
		const phrase = words.join(" ");
		// A lone capitalised word must look like a name (inner capital or digit) or recur.
		counts.set(phrase, (counts.get(phrase) ?? 0) + 1);
	}
	const phrases = [...counts.entries()]
		.filter(([p, n]) => p.includes(" ") || n > 1 || /\p{Lu}.*[\p{Lu}\p{N}]/u.test(p.slice(1)) || /[\p{N}+#]/u.test(p))
		.sort((a, b) => b[1] - a[1]);
	for (const [phrase] of phrases) add(phrase);
	return ordered.slice(0, MAX_MENTIONS);
}

export function extractionGuidance(profile: Profile, kind: IngestKind): IngestResult["guidance"] {
	const labels = profile
		.labels()
		.filter((d) => !SYSTEM_LABELS.has(d.label))
		.map((d) => ({
			label: d.label,
			key_field: d.keyField,
			...(d.description ? { description: d.description } : {}),
			properties: d.properties,
			anchor: d.anchor,
			...(d.status ? { status_values: d.status.values } : {}),
		}));
	const grouped = new Map<string, { from: Set<string>; to: Set<string> }>();
	for (const r of profile.relationDefs()) {
		if (SYSTEM_RELATIONS.has(r.type)) continue;
		const g = grouped.get(r.type) ?? { from: new Set<string>(), to: new Set<string>() };
		g.from.add(r.from);
		g.to.add(r.to);
		grouped.set(r.type, g);
	}
	const relations = [...grouped.entries()].map(([type, g]) => ({ type, from: [...g.from], to: [...g.to] }));
	const source =
		kind === "conversation"
			? "Read the conversation for decisions taken, problems met, and the technologies, concepts and people discussed; ignore small talk."
			: kind === "note"
				? "Read the note: its title is usually the main entity; wikilinks and tags name related ones."
				: "Read the text and pick out the entities worth remembering.";
	return {
		instructions: [
			source,
			`Use only these labels (profile ${profile.name}); a Decision, Problem or Insight is keyed by title, the others by name.`,
			"For each entity call remember once, with a summary, and its relations inline: relations {TYPE: [name | {name, label}]}. Relations must be among those listed.",
			"Before naming an entity, check dedup_hints: reuse an existing node's exact name and label instead of creating a near-duplicate.",
			"Link every new entity to at least one anchor (" + profile.anchorLabels().join(", ") + ") or existing node; an entity with no relations is only reachable by search.",
			"Prefer a specific relation type; RELATED_TO is the fallback.",
		],
		labels,
		relations,
		anchors: profile.anchorLabels(),
	};
}

/**
 * ingest: returns the content with extraction guidance built from the active profile and dedup
 * hints (existing nodes the content seems to mention). No LLM runs here: the calling agent
 * extracts and then calls remember.
 */
export async function ingest(deps: SkillDeps, scope: PartialScope, input: IngestInput): Promise<IngestResult> {
	if (typeof input.content !== "string" || input.content.trim().length === 0) {
		throw new ValidationError("ingest needs some content: a note, raw text or a conversation.");
	}
	if (input.content.length > LIMITS.stringLength) {
		throw new ValidationError(`The content is ${input.content.length} characters; ingest takes up to ${LIMITS.stringLength}. Split it into parts.`);
	}
	const kind = input.kind ?? guessKind(input.content);
	const mentions = extractMentions(input.content);
	const hints = new Map<string, DedupHint>();
	const add = (hint: DedupHint) => {
		const prev = hints.get(hint.node_id);
		if (!prev || hint.score > prev.score) hints.set(hint.node_id, hint);
	};
	if (isFullScope(scope)) {
		const { resolver, memory } = deps;
		for (const mention of mentions) {
			for (const c of await resolver.candidates(scope, mention)) {
				if (!c.live || c.score < resolver.settings.suggest) continue;
				add({ ...nodeRef(c.node), mention, score: roundScore(c.score), reason: c.exact ? "exact" : "similar_name" });
			}
		}
		for (const hint of await namesInContent(deps, scope, input.content)) add(hint);
		for (const mention of mentions.slice(0, FULLTEXT_MENTIONS)) {
			const hits = await memory.graph.fulltext(scope, { text: mention, limit: 3 });
			const top = hits[0]?.score ?? 0;
			for (const hit of hits) add({ ...nodeRef(hit.node), mention, score: roundScore(top > 0 ? (0.5 * hit.score) / top : 0), reason: "fulltext" });
		}
	}
	return {
		kind,
		...(input.source ? { source: input.source } : {}),
		content: input.content,
		characters: input.content.length,
		guidance: extractionGuidance(deps.memory.profile, kind),
		mentions,
		dedup_hints: [...hints.values()].sort((a, b) => b.score - a.score).slice(0, MAX_HINTS),
	};
}

/** Words only: normalised (accents, case, separators), every other character a space. */
function plainWords(text: string): string {
	return normaliseName(text).replace(/[^\p{L}\p{N}]+/gu, " ").trim();
}

/**
 * Existing nodes named in the content as plain words, whatever their case ("the billing portal
 * is slow" names Billing Portal, which no capitalised phrase gives away): fulltext passes over the
 * content's first distinct words (as prefixes, so "postgres" reaches PostgreSQL) find the nodes
 * those words describe; a node counts only when one of its names (key or alias) occurs in the
 * content word for word. Bounded: at most
 * CONTENT_PASSES × HITS_PER_PASS nodes are examined, whatever the size of the content.
 */
async function namesInContent(deps: SkillDeps, scope: PartialScope, content: string): Promise<DedupHint[]> {
	const words = plainWords(content);
	const distinct = [...new Set(words.split(" ").filter((w) => w.length >= 3))];
	const haystack = ` ${words} `;
	const found = new Map<string, DedupHint>();
	for (let pass = 0; pass < CONTENT_PASSES && pass * WORDS_PER_PASS < distinct.length; pass++) {
		const text = distinct.slice(pass * WORDS_PER_PASS, (pass + 1) * WORDS_PER_PASS).join(" ");
		for (const hit of await deps.memory.graph.fulltext(scope, { text, limit: HITS_PER_PASS, prefix: true })) {
			if (found.has(hit.node.id) || isSystemInsight(hit.node)) continue;
			const name = indexedNames(hit.node.key, hit.node.props).map(plainWords).find((n) => n.length >= 3 && haystack.includes(` ${n} `));
			if (name) found.set(hit.node.id, { ...nodeRef(hit.node), mention: name, score: 1, reason: "exact" });
		}
	}
	return [...found.values()];
}
