import { ValidationError } from "../errors";
import type { LabelDef, Profile } from "../profile";
import type { KeyField, PropValue } from "../types";
import { normaliseTags, readConfidence, readDate, sanitiseKey, sanitiseProps } from "../write/sanitise";
import { isUuid } from "../write/write-pipeline";
import type { NodeProvenance } from "../write/provenance";
import { contentHash } from "./content-hash";
import { parseFrontmatterYaml, splitFrontmatter } from "./frontmatter";
import { bodyWikilinks, fileNameProblem, firstHeading, firstParagraph, inlineTags, maskCode, vaultLinkTarget, wholeWikilink } from "./markdown-text";
import { readNoteProvenance, readRelationProvenance, RELATION_ENTRY_KEYS } from "./note-provenance";
import { ENCODING_ACTIONS, looksUtf16 } from "./note-encoding";
import { folderLabelFor, type SyncSettings } from "./sync-settings";
import type { SyncProblem } from "./sync-report";
import { noteBasename } from "./vault-source";
import { splitPassages } from "./passages";
import type { PassageInput } from "../protocols";

/** One `relations:` entry: a resolved relation type and a target name (wikilink syntax removed). */
export interface ParsedRelation {
	readonly type: string;
	readonly target: string;
	/** The writer the entry states (`{to: "[[X]]", source: mcp, …}`); otherwise the note's. */
	readonly provenance?: NodeProvenance;
}

export interface ParsedNote {
	readonly path: string;
	/** The frontmatter engrama_id when it is a UUID. */
	readonly id?: string;
	/** True when the frontmatter has an engrama_id key at all (valid or not). */
	readonly hasIdKey: boolean;
	readonly label: string;
	readonly keyField: KeyField;
	readonly key: string;
	/** The key came from the file name, so a rename changes it. */
	readonly keyFromFileName: boolean;
	/** Properties the note states (already cleaned; the write pipeline sanitises again). */
	readonly props: Readonly<Record<string, PropValue>>;
	readonly relations: readonly ParsedRelation[];
	/** Relation types whose value could not be read: their stored edges are left as they are. */
	readonly frozenTypes: readonly string[];
	/** The whole `relations` value could not be read: no relation edge of this note is touched. */
	readonly relationsFrozen: boolean;
	/** Body wikilink targets (become LINKS_TO). */
	readonly links: readonly string[];
	readonly hash: string;
	/** The frontmatter as parsed ({} when the note has none), so an id write need not parse it again. */
	readonly frontmatter: Readonly<Record<string, unknown>>;
	/** The body's sections (passages.ts): what search finds besides the node's own text. */
	readonly passages: readonly PassageInput[];
	/** The file line the body starts on (after the frontmatter). */
	readonly bodyLine: number;
	/** What the note's engrama_* provenance keys state; undefined when it has none (the person's own). */
	readonly provenance?: NodeProvenance;
	readonly warnings: readonly SyncProblem[];
	/**
	 * The frontmatter is there but its YAML cannot be read: the note is read as its body alone (found
	 * by its text), its error among `warnings`; sync writes nothing into it and keeps a node it
	 * already has as it was.
	 */
	readonly frontmatterBroken?: true;
}

export type NoteParseResult =
	| { readonly kind: "note"; readonly note: ParsedNote }
	| { readonly kind: "skipped"; readonly path: string; readonly reason: "untyped" | "insight" }
	| { readonly kind: "invalid"; readonly path: string; readonly problems: readonly SyncProblem[] };

export interface NoteParseInput {
	readonly path: string;
	readonly text: string;
	readonly settings: SyncSettings;
	readonly profile: Profile;
}

/** Frontmatter key of a note Engrama created for an approved Insight: the Insight's id. */
export const INSIGHT_NOTE_KEY = "engrama_insight";

// Keys that steer sync rather than describe the entity.
const RESERVED = new Set(["engrama_id", "engrama_label", "relations", "name", "title", "tags", "tag"]);
// Valid on every label: the engine's temporal and lifecycle fields. `updated` is the date a note
// says it was last revised (reflect's stale-knowledge detector reads it; examples/README.md).
// `aliases` is Obsidian's own list of a note's other names, on any note: search and the resolver
// find a node by them (a translated vault names its notes in English there).
const ALWAYS_ALLOWED = ["description", "status", "confidence", "valid_from", "valid_to", "updated", "aliases"];

/** Why a note cannot be synced: what is wrong, what to do, and the module to turn on when that is the cause. */
interface ParseFailure {
	readonly failed: true;
	readonly problem: string;
	readonly action: string;
	readonly module?: string;
	/** Broken YAML: the body after the frontmatter block, still the note's text. */
	readonly body?: { readonly body: string; readonly bodyLine: number };
}

type Warn = (problem: string, action: string, module?: string) => void;

function failure(problem: string, action: string, module?: string): ParseFailure {
	return { failed: true, problem, action, ...(module !== undefined ? { module } : {}) };
}

function isFailure(value: object): value is ParseFailure {
	return "failed" in value;
}

/**
 * Note text → what the graph should hold for it, or the problems that stop it. Pure: no I/O.
 * Never throws for bad input; every problem names the file, what is wrong and what to do.
 */
export function parseNote(input: NoteParseInput): NoteParseResult {
	const { path, text, settings, profile } = input;
	const warnings: SyncProblem[] = [];
	const invalid = (f: ParseFailure): NoteParseResult => ({
		kind: "invalid",
		path,
		problems: [{ path, severity: "error", problem: f.problem, action: f.action, ...(f.module !== undefined ? { module: f.module } : {}) }],
	});
	const warn: Warn = (problem, action, module) => {
		warnings.push({ path, severity: "warning", problem, action, ...(module !== undefined ? { module } : {}) });
	};

	const unreadable = unreadableText(text, settings);
	if (unreadable) return invalid(unreadable);
	const read = readFrontmatter(text);
	if (isFailure(read) && !read.body) return invalid(read);
	const broken = isFailure(read) ? read : undefined;
	// Broken YAML: the note is its body alone (no label, key, props or relations from the frontmatter).
	const split = isFailure(read) ? { data: {}, ...read.body! } : read;
	if (broken) warnings.push({ path, severity: "error", problem: broken.problem, action: broken.action });
	const { data, body, bodyLine } = split;
	const masked = maskCode(body.includes("\r") ? body.replace(/\r\n?/g, "\n") : body);
	const badName = fileNameProblem(path);
	if (badName) warn(badName.problem, badName.action);

	// A note Engrama wrote for an approved Insight is that Insight's, not a Note of its own.
	if (typeof data[INSIGHT_NOTE_KEY] === "string" && !broken) return { kind: "skipped", path, reason: "insight" };
	const labelled = readLabel(data, path, settings, profile, warn);
	if (labelled === "untyped") return broken ? invalid(broken) : { kind: "skipped", path, reason: "untyped" };
	if (isFailure(labelled)) return invalid(broken ?? labelled);
	const { def, typeIsLabel } = labelled;
	const keyed = readKey(data, def.keyField, masked, path);
	if (isFailure(keyed)) return invalid(broken ?? keyed);
	const { id, hasIdKey } = readId(data, warn);
	const props = readProps(data, def, typeIsLabel, masked, warn);
	const relations = parseRelations(data.relations, def.label, profile, warn);
	const stated = readNoteProvenance(data);
	for (const problem of stated.problems) {
		warn(problem, "Fix or remove it; removing every engrama_* provenance key makes the note your own.");
	}

	return {
		kind: "note",
		note: {
			path,
			id,
			hasIdKey,
			label: def.label,
			keyField: def.keyField,
			key: keyed.key,
			keyFromFileName: keyed.keyFromFileName,
			props,
			relations: relations.relations,
			frozenTypes: relations.frozenTypes,
			// Broken YAML: the relations it may state are unknown, so none of the node's is touched.
			relationsFrozen: relations.frozen || !!broken,
			links: bodyWikilinks(masked).map((link) => vaultLinkTarget(link, path)),
			hash: contentHash(text),
			passages: splitPassages(body, bodyLine),
			bodyLine,
			frontmatter: data,
			...(stated.provenance ? { provenance: stated.provenance } : {}),
			warnings,
			...(broken ? { frontmatterBroken: true } : {}),
		},
	};
}

/** The file line a note's body starts on (after its frontmatter block, if it has one). */
export function bodyLineOf(text: string): number {
	const bom = text.startsWith("\uFEFF") ? 1 : 0;
	const split = splitFrontmatter(bom ? text.slice(1) : text);
	return split.kind === "block" ? lineAt(text, split.bodyStart + bom) : 1;
}

/** The 1-based line on which `offset` of `text` stands. */
export function lineAt(text: string, offset: number): number {
	let line = 1;
	for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) line++;
	return line;
}

/** Too large, or not text at all. */
function unreadableText(text: string, settings: SyncSettings): ParseFailure | undefined {
	if (text.length > settings.maxNoteBytes) {
		return failure(
			`The note is ${formatSize(text.length)}, over the ${formatSize(settings.maxNoteBytes)} sync limit.`,
			"Split it into smaller notes, or raise the maximum note size in the sync settings.",
		);
	}
	if (looksUtf16((i) => text.charCodeAt(i), text.length)) {
		return failure("The note is UTF-16 text; Engrama reads and writes notes only as UTF-8.", ENCODING_ACTIONS.utf16);
	}
	if (looksBinary(text)) {
		return failure("The file is not text (it looks binary) although its name ends in .md.", "Rename it to its real extension or move it out of the vault.");
	}
	return undefined;
}

/** The frontmatter as data ({} when there is none) and the body after it. */
function readFrontmatter(text: string): { data: Record<string, unknown>; body: string; bodyLine: number } | ParseFailure {
	// A UTF-8 byte-order mark (Windows editors) is not part of the note.
	const bom = text.startsWith("\uFEFF");
	const split = splitFrontmatter(bom ? text.slice(1) : text);
	if (split.kind === "unclosed") {
		return failure("The frontmatter starts with --- on the first line but is never closed.", "Add a line with just --- after the last frontmatter key.");
	}
	if (split.kind !== "block") return { data: {}, body: text, bodyLine: 1 };
	const parsed = parseFrontmatterYaml(split.yaml, 1);
	if (!parsed.ok) {
		const where = parsed.error.line !== undefined ? ` (line ${parsed.error.line})` : "";
		const bodyStart = split.bodyStart + (bom ? 1 : 0);
		return {
			...failure(
				`The frontmatter YAML is broken${where}: ${parsed.error.message}.`,
				"Fix the YAML (quotes, colons, indentation); until then the note is found by its text only, its stored node is kept as it was and nothing is written into it.",
			),
			body: { body: text.slice(bodyStart), bodyLine: lineAt(text, bodyStart) },
		};
	}
	const bodyStart = split.bodyStart + (bom ? 1 : 0);
	return { data: parsed.data, body: text.slice(bodyStart), bodyLine: lineAt(text, bodyStart) };
}

/** Label: engrama_label, else `type` naming a label, else the folder mapping, else Note ("untyped" when untyped notes are not indexed). */
function readLabel(
	data: Record<string, unknown>,
	path: string,
	settings: SyncSettings,
	profile: Profile,
	warn: Warn,
): { def: LabelDef; typeIsLabel: boolean } | ParseFailure | "untyped" {
	const rawLabel = data.engrama_label;
	const hasLabel = rawLabel !== undefined && rawLabel !== null && rawLabel !== "";
	if (hasLabel) {
		const def = typeof rawLabel === "string" ? profile.resolveLabel(rawLabel) : undefined;
		if (def) return { def, typeIsLabel: false };
		const module = typeof rawLabel === "string" ? moduleOf(rawLabel, settings) : undefined;
		if (module) {
			return failure(
				`engrama_label ${JSON.stringify(rawLabel)} is a label of module ${module[1]}, which is off, so the note is not synced.`,
				`Turn on module ${module[1]} (plugin settings, or --modules ${module[1]} on the command line) to sync it as ${module[0]}.`,
				module[1],
			);
		}
		return failure(
			`engrama_label ${JSON.stringify(rawLabel)} is not a label of profile ${profile.name}.`,
			`Use one of: ${profile.labels().map((l) => l.label).join(", ")} (or add the label to your profile).`,
		);
	}
	const byType = typeof data.type === "string" ? profile.resolveLabel(data.type) : undefined;
	if (byType) return { def: byType, typeIsLabel: true };
	const mapped = folderLabelFor(path, settings);
	if (mapped !== undefined) {
		const def = profile.resolveLabel(mapped);
		if (def) return { def, typeIsLabel: false };
		return failure(
			`The folder mapping gives label "${mapped}", which profile ${profile.name} does not define.`,
			"Fix the folder → label mapping in the sync settings.",
		);
	}
	if (!settings.indexUntypedNotes) return "untyped";
	const note = profile.resolveLabel("Note");
	if (!note) return failure("The profile has no Note label for untyped notes.", "Add engrama_label to the note.");
	unusableType(data.type, profile, settings, warn);
	return { def: note, typeIsLabel: false };
}

/** Key: the label's key field, then the other one, then the first H1, then the file name. */
function readKey(data: Record<string, unknown>, keyField: KeyField, masked: string, path: string): { key: string; keyFromFileName: boolean } | ParseFailure {
	const other: KeyField = keyField === "name" ? "title" : "name";
	let keyFromFileName = false;
	// The heading is looked for only when the frontmatter names nothing.
	let rawKey = keyCandidate(data[keyField]) ?? keyCandidate(data[other]) ?? keyCandidate(firstHeading(masked));
	if (rawKey === undefined) {
		rawKey = noteBasename(path);
		keyFromFileName = true;
	}
	try {
		return { key: sanitiseKey(rawKey, keyField), keyFromFileName };
	} catch (error) {
		return failure(
			`The note's ${keyField} cannot be used: ${(error as Error).message}`,
			`Give the note a ${keyField} with letters or digits in its frontmatter (${keyField}: ...).`,
		);
	}
}

/** A usable key: non-blank text as it is, a number as text. */
function keyCandidate(value: unknown): string | undefined {
	if (typeof value === "string" && value.trim() !== "") return value;
	return typeof value === "number" ? String(value) : undefined;
}

/** engrama_id when it is a UUID; a warning when the key is there but holds something else. */
function readId(data: Record<string, unknown>, warn: Warn): { id: string | undefined; hasIdKey: boolean } {
	const rawId = data.engrama_id;
	const hasIdKey = rawId !== undefined && rawId !== null && rawId !== "";
	if (!hasIdKey) return { id: undefined, hasIdKey };
	if (typeof rawId === "string" && isUuid(rawId.trim())) return { id: rawId.trim().toLowerCase(), hasIdKey };
	warn(`engrama_id ${JSON.stringify(rawId).slice(0, 60)} is not a UUID.`, "Nothing to do: sync gives the note a new id.");
	return { id: undefined, hasIdKey };
}

/** Properties the profile knows for this label, the description (else the first paragraph) and the tags. */
function readProps(data: Record<string, unknown>, def: LabelDef, typeIsLabel: boolean, masked: string, warn: Warn): Record<string, PropValue> {
	const known = knownProps(def);
	const props: Record<string, PropValue> = {};
	for (const [name, value] of Object.entries(data)) {
		if (RESERVED.has(name) || (name === "type" && typeIsLabel) || !known.has(name) || name === def.keyField) continue;
		if (value === null || value === undefined) continue;
		// Status is a word from the label's vocabulary; `status: 42` is kept as text (then status_note).
		const raw = name === "status" && (typeof value === "number" || typeof value === "boolean") ? String(value) : value;
		const cleaned = cleanProp(name, flattenWikilinks(raw));
		if (cleaned.ok) props[name] = cleaned.value;
		else warn(`Property "${name}": ${cleaned.message}`, `Fix "${name}" in the frontmatter; the rest of the note was synced.`);
	}
	if (props.description === undefined && typeof data.summary !== "string") {
		const paragraph = firstParagraph(masked);
		if (paragraph) props.description = paragraph;
	}
	const tags = normaliseTags([...tagList(data.tags), ...tagList(data.tag), ...inlineTags(masked)]) ?? [];
	const uniqueTags = dedupeCaseless(tags);
	if (uniqueTags.length > 0) props.tags = uniqueTags;
	return props;
}

const KNOWN_PROPS = new WeakMap<LabelDef, ReadonlySet<string>>();

/** The props a note of this label may state (made once per label, not per note). */
function knownProps(def: LabelDef): ReadonlySet<string> {
	let known = KNOWN_PROPS.get(def);
	if (!known) {
		known = new Set([...def.properties, ...ALWAYS_ALLOWED]);
		KNOWN_PROPS.set(def, known);
	}
	return known;
}

/** [label, module] when `label` belongs to a shipped module that is off. */
function moduleOf(label: string, settings: SyncSettings): [string, string] | undefined {
	const wanted = label.trim().toLowerCase();
	return Object.entries(settings.moduleLabels).find(([known]) => known.toLowerCase() === wanted);
}

/** Warns when `type:` was meant as a label but is none (a list, or a word the profile lacks): the note is a Note. */
function unusableType(type: unknown, profile: Profile, settings: SyncSettings, warn: Warn): void {
	if (type === undefined || type === null || type === "") return;
	const labels = profile.labels().map((l) => l.label).join(", ");
	const shown = JSON.stringify(type).slice(0, 80);
	if (typeof type !== "string") {
		warn(
			`type: ${shown} is ${Array.isArray(type) ? "a list" : `a ${typeof type}`}, not one label, so the note is indexed as Note.`,
			`Set engrama_label to one label (${labels}) if the note describes one; otherwise nothing to do.`,
		);
		return;
	}
	const module = moduleOf(type, settings);
	warn(
		module
			? `type: ${shown} is a label of module ${module[1]}, which is off, so the note is indexed as Note.`
			: `type: ${shown} is not a label of profile ${profile.name}, so the note is indexed as Note.`,
		module
			? `Turn on module ${module[1]} (plugin settings, or --modules ${module[1]} on the command line) to index it as ${module[0]}; or set engrama_label to one of: ${labels}.`
			: `If the note describes one of ${labels}, set engrama_label (or type) to it; otherwise nothing to do.`,
		module?.[1],
	);
}

function parseRelations(
	value: unknown,
	label: string,
	profile: Profile,
	warn: (problem: string, action: string) => void,
): { relations: ParsedRelation[]; frozenTypes: string[]; frozen: boolean } {
	const relations: ParsedRelation[] = [];
	const frozenTypes: string[] = [];
	if (value === undefined || value === null) return { relations, frozenTypes, frozen: false };
	if (typeof value !== "object" || Array.isArray(value)) {
		warn(
			`"relations" must be a map of relation type to targets, got ${Array.isArray(value) ? "a list" : typeof value}.`,
			'Write it as relations: {USES: [Python, "[[Neo4j]]"]}; until then the note\'s stored relations are kept.',
		);
		return { relations, frozenTypes, frozen: true };
	}
	const seen = new Set<string>();
	for (const [rawType, targets] of Object.entries(value as Record<string, unknown>)) {
		const type = profile.resolveRelationType(rawType);
		if (!type) {
			const allowed = [...new Set(profile.relationDefs().filter((r) => r.from === label || r.from === "*").map((r) => r.type))];
			warn(`Unknown relation type "${rawType}" in relations.`, `Use one the profile allows from ${label}: ${allowed.join(", ")}.`);
			continue;
		}
		if (profile.allowedTargets(type, label).length === 0) {
			warn(`${type} cannot start from a ${label} in profile ${profile.name}.`, `Remove it, or change the note's engrama_label.`);
			continue;
		}
		const items = targets === null || targets === undefined ? [] : Array.isArray(targets) ? targets : [targets];
		let bad = false;
		for (const item of items) {
			const entry = isEntryMap(item) ? item : undefined;
			const target = targetName(entry ? entry[RELATION_ENTRY_KEYS.to] : item);
			if (target === undefined) {
				bad = true;
				continue;
			}
			if (target === "") continue;
			const dedupe = `${type}|${target.toLowerCase()}`;
			if (seen.has(dedupe)) continue;
			seen.add(dedupe);
			const problems: string[] = [];
			const provenance = entry ? readRelationProvenance(entry, problems) : undefined;
			for (const problem of problems) warn(`relations.${rawType} → "${target}": ${problem}`, "Fix or remove it on that relation's line.");
			relations.push({ type, target, ...(provenance ? { provenance } : {}) });
		}
		if (bad) {
			frozenTypes.push(type);
			warn(
				`relations.${rawType} has a value that is not a name or a [[link]].`,
				`List names or "[[links]]" only (quote numbers), or {to: "[[link]]", source: …} maps, e.g. ${rawType}: [Python, "[[Neo4j]]"]; until then its stored ${type} relations are kept.`,
			);
		}
	}
	return { relations, frozenTypes, frozen: false };
}

/** A relation entry that states its writer: a map with a `to` target. */
function isEntryMap(item: unknown): item is Record<string, unknown> {
	return !!item && typeof item === "object" && !Array.isArray(item) && RELATION_ENTRY_KEYS.to in item;
}

/** A relation target: a name or a wikilink; `[[X]]` written unquoted in YAML arrives as [["X"]]. */
function targetName(item: unknown): string | undefined {
	// A bare number is almost always a slip (an unquoted year or id); quoting it says it is a name.
	if (typeof item === "string") {
		const link = wholeWikilink(item);
		return (link ?? item).replace(/\s+/g, " ").trim();
	}
	if (Array.isArray(item) && item.length === 1 && Array.isArray(item[0]) && item[0].length === 1 && typeof item[0][0] === "string") {
		return targetName(`[[${item[0][0]}]]`);
	}
	if (Array.isArray(item) && item.length === 1 && typeof item[0] === "string") return targetName(`[[${item[0]}]]`);
	return undefined;
}

/** Unquoted `[[X]]` in YAML is a nested list; turn it back into the "[[X]]" the user meant. */
function flattenWikilinks(value: unknown): unknown {
	const single = (item: unknown): item is [string] => Array.isArray(item) && item.length === 1 && typeof item[0] === "string";
	if (!Array.isArray(value)) return value;
	const list = value as unknown[];
	if (list.length === 1 && single(list[0])) return `[[${list[0][0]}]]`;
	return list.map((item): unknown => (single(item) ? `[[${item[0]}]]` : item));
}

function cleanProp(name: string, value: unknown): { ok: true; value: PropValue } | { ok: false; message: string } {
	try {
		if (name === "confidence") {
			const n = readConfidence(value as PropValue);
			return n === undefined ? { ok: false, message: "empty" } : { ok: true, value: n };
		}
		if (name === "valid_from" || name === "valid_to") {
			const date = readDate(name, value as PropValue);
			return date === undefined ? { ok: false, message: "empty" } : { ok: true, value: date };
		}
		const cleaned = sanitiseProps({ [name]: value })[name];
		return cleaned === undefined ? { ok: false, message: "empty" } : { ok: true, value: cleaned };
	} catch (error) {
		if (error instanceof ValidationError) return { ok: false, message: error.message };
		throw error;
	}
}

function tagList(value: unknown): string[] {
	if (typeof value === "string") return value.split(/[,\s]+/).filter(Boolean);
	if (Array.isArray(value)) return value.filter((t): t is string | number => typeof t === "string" || typeof t === "number").map(String);
	return [];
}

function dedupeCaseless(values: readonly string[]): string[] {
	const seen = new Set<string>();
	return values.filter((v) => {
		const k = v.toLowerCase();
		if (seen.has(k)) return false;
		seen.add(k);
		return true;
	});
}

function looksBinary(text: string): boolean {
	const head = text.length > 8192 ? text.slice(0, 8192) : text;
	if (head.includes("\u0000")) return true;
	// Invalid UTF-8 decodes to U+FFFD; a few are typos, many mean the file is not text.
	let replacement = 0;
	for (let at = head.indexOf("\uFFFD"); at >= 0; at = head.indexOf("\uFFFD", at + 1)) replacement++;
	return head.length > 0 && replacement / head.length > 0.05;
}

function formatSize(bytes: number): string {
	return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${Math.ceil(bytes / 1024)} KB`;
}
