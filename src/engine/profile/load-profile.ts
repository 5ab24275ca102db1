import { isNode, LineCounter, parseDocument, type Document } from "yaml";
import type { KeyField } from "../types";
import { Profile, statusKey, type LabelDef, type RelationDef } from "./profile";
import { ProfileError, type ProfileIssue } from "./profile-error";
import { ANY_LABEL, profileFileSchema, type NodeEntry, type ProfileFile } from "./profile-schema";

/** The text of one profile file; `file` only names it in error messages (e.g. "modules/hacking.yaml"). */
export interface ProfileSource {
	readonly file: string;
	readonly text: string;
	/**
	 * `text` already turned from YAML into data (what `parseDocument(text).toJS()` gives), e.g. the
	 * shipped profiles parsed when the command line was built: skips the YAML parser. Still
	 * validated; on any issue the file is parsed from `text` so errors carry their line.
	 */
	readonly data?: unknown;
	/**
	 * `data` is already what the profile schema gives for it (the command line's build checks the
	 * shipped files it carries): used as it is, without building or running the schema.
	 */
	readonly checked?: boolean;
}

export type ProfileResult = { readonly ok: true; readonly profile: Profile } | { readonly ok: false; readonly issues: readonly ProfileIssue[] };

/** Labels keyed by `title` unless a profile says otherwise. */
const TITLE_KEYED = new Set(["Decision", "Problem", "Insight"]);

const BUILTIN = "(built-in)";

// Sync and reflect rely on these, so they exist whatever the profile files say.
const SYSTEM_NODES: readonly NodeEntry[] = [
	{
		label: "Insight",
		key: "title",
		properties: ["title", "body", "confidence", "status", "source_query", "reason"],
		required: ["title"],
		description: "A pattern found across entities, proposed for a human to approve or dismiss.",
		status: { values: ["pending", "approved", "dismissed"], default: "pending", synonyms: {} },
	},
	{
		label: "Note",
		key: "name",
		properties: ["name", "description", "tags"],
		required: ["name"],
		description: "A note without a specific type.",
	},
];
const SYSTEM_RELATIONS: readonly RelationDef[] = [
	{ type: "ABOUT", from: "Insight", to: ANY_LABEL },
	{ type: "LINKS_TO", from: ANY_LABEL, to: ANY_LABEL },
];

type PathPart = string | number;

interface Origin {
	readonly file: string;
	readonly path: readonly PathPart[];
}

interface Draft {
	readonly label: string;
	readonly origin: Origin;
	keyField: KeyField;
	keyOrigin?: Origin;
	properties: string[];
	required: { name: string; origin: Origin }[];
	description?: string;
	descriptionIsBuiltin: boolean;
	anchor: boolean;
	status?: {
		values: string[];
		origin: Origin;
		default?: { value: string; origin: Origin };
		synonyms: Map<string, { value: string; origin: Origin }>;
	};
}

interface EndpointRef {
	readonly label: string;
	readonly origin: Origin;
}

interface Parsed {
	readonly source: ProfileSource;
	/** The parsed YAML, for line numbers; absent when the source came pre-parsed. */
	readonly yaml?: { readonly doc: Document; readonly lines: LineCounter };
	readonly data: ProfileFile;
}

/**
 * Parses, validates and merges profile files: the first is `base` or a standalone profile, the rest
 * are modules applied in order. Never throws for bad input; every issue found is returned.
 */
export function parseProfile(sources: readonly ProfileSource[]): ProfileResult {
	if (sources.length === 0) {
		return { ok: false, issues: [{ file: "(none)", path: "", message: "no profile files given; pass a base or standalone profile first" }] };
	}
	const result = parseSources(sources);
	// Issues are reported as the YAML text has them (with lines): read pre-parsed files again.
	if (!result.ok && sources.some((s) => s.data !== undefined)) return parseSources(sources.map(({ file, text }) => ({ file, text })));
	return result;
}

function parseSources(sources: readonly ProfileSource[]): ProfileResult {
	const issues: ProfileIssue[] = [];
	const parsed: Parsed[] = [];
	const docs = new Map<string, { doc: Document; lines: LineCounter }>();
	for (const source of sources) {
		const file = parseFile(source, issues);
		if (file === undefined) continue;
		parsed.push(file);
		if (file.yaml) docs.set(source.file, file.yaml);
	}
	// Cross-file checks on half-parsed input would only add noise.
	if (issues.length > 0) return { ok: false, issues };

	const report = (origin: Origin, message: string): void => {
		issues.push(issueAt(origin, message, docs.get(origin.file)));
	};
	const merged = mergeFiles(parsed, report);
	if (issues.length > 0) return { ok: false, issues };
	return { ok: true, profile: new Profile(merged.name, merged.labels, merged.relations) };
}

/** `parseProfile` for callers that want an exception: throws `ProfileError` listing every issue. */
export function loadProfile(sources: readonly ProfileSource[]): Profile {
	const result = parseProfile(sources);
	if (!result.ok) throw new ProfileError(result.issues);
	return result.profile;
}

function parseFile(source: ProfileSource, issues: ProfileIssue[]): Parsed | undefined {
	if (source.data !== undefined && source.checked === true) return { source, data: source.data as ProfileFile };
	if (source.data !== undefined) {
		const result = profileFileSchema().safeParse(source.data);
		if (result.success) return { source, data: result.data };
		issues.push({ file: source.file, path: "", message: "pre-parsed data is not a valid profile" });
		return undefined;
	}
	const lines = new LineCounter();
	const doc = parseDocument(source.text, { lineCounter: lines, prettyErrors: false });
	if (doc.errors.length > 0) {
		for (const error of doc.errors) {
			const pos = lines.linePos(error.pos[0]);
			const message = error.message.split("\n")[0];
			issues.push({ file: source.file, path: `line ${pos.line}, column ${pos.col}`, message: `YAML syntax error: ${message}` });
		}
		return undefined;
	}
	let data: unknown;
	try {
		data = doc.toJS({ maxAliasCount: 100 });
	} catch (error) {
		// Too many alias (*name) expansions: the YAML library's guard against a billion-laughs file.
		const message = error instanceof Error ? error.message : String(error);
		issues.push({ file: source.file, path: "", message: `the YAML cannot be read as data: ${message}; write the values out instead of repeating aliases (*name)` });
		return undefined;
	}
	const result = profileFileSchema().safeParse(data);
	if (!result.success) {
		for (const issue of result.error.issues) {
			const path = issue.path.filter((p): p is PathPart => typeof p !== "symbol");
			if (issue.code === "unrecognized_keys") {
				for (const key of issue.keys) {
					issues.push(issueAt({ file: source.file, path: [...path, key] }, `unknown key ${JSON.stringify(key)}${suggest(key, knownKeysAt(path))}`, { doc, lines }));
				}
			} else {
				issues.push(issueAt({ file: source.file, path }, issue.message, { doc, lines }));
			}
		}
		return undefined;
	}
	return { source, yaml: { doc, lines }, data: result.data };
}

function mergeFiles(parsed: readonly Parsed[], report: (origin: Origin, message: string) => void): { name: string; labels: LabelDef[]; relations: RelationDef[] } {
	const drafts = new Map<string, Draft>();
	const order: string[] = [];
	const names = new Map<string, string>();
	const builtinOrigin = (label: string): Origin => ({ file: BUILTIN, path: [label] });

	for (const node of SYSTEM_NODES) drafts.set(node.label.toLowerCase(), newDraft(node, builtinOrigin(node.label), true));

	for (const { source, data } of parsed) {
		const earlier = names.get(data.name);
		if (earlier !== undefined) report({ file: source.file, path: ["name"] }, `profile ${JSON.stringify(data.name)} is already loaded from ${earlier}`);
		names.set(data.name, source.file);

		const seenHere = new Map<string, number>();
		data.nodes.forEach((node, i) => {
			const origin: Origin = { file: source.file, path: ["nodes", i] };
			const folded = node.label.toLowerCase();
			const first = seenHere.get(folded);
			if (first !== undefined) {
				report(at(origin, "label"), `duplicate label ${JSON.stringify(node.label)} (first defined at nodes[${first}]); define each label once per file`);
				return;
			}
			seenHere.set(folded, i);
			const draft = drafts.get(folded);
			if (draft === undefined) {
				drafts.set(folded, newDraft(node, origin, false));
				order.push(folded);
				return;
			}
			if (draft.label !== node.label) {
				report(at(origin, "label"), `label ${JSON.stringify(node.label)} differs only in case from ${JSON.stringify(draft.label)} (${describe(draft.origin)}); use the same spelling`);
				return;
			}
			if (!order.includes(folded)) order.push(folded);
			mergeInto(draft, node, origin, report);
		});
	}
	for (const node of SYSTEM_NODES) {
		const folded = node.label.toLowerCase();
		if (!order.includes(folded)) order.push(folded);
	}

	const labels = order.map((folded) => finish(drafts.get(folded) as Draft, report));
	const defined = new Set(labels.map((l) => l.label));

	const relations: RelationDef[] = [];
	const seen = new Set<string>();
	const endpoints: EndpointRef[] = [];
	const add = (rel: RelationDef): void => {
		const id = `${rel.type}\u0000${rel.from}\u0000${rel.to}`;
		if (seen.has(id)) return;
		seen.add(id);
		relations.push(rel);
	};
	for (const { source, data } of parsed) {
		data.relations.forEach((rel, i) => {
			const froms = expand(rel.from, { file: source.file, path: ["relations", i, "from"] });
			const tos = expand(rel.to, { file: source.file, path: ["relations", i, "to"] });
			endpoints.push(...froms, ...tos);
			for (const from of froms) for (const to of tos) add({ type: rel.type, from: from.label, to: to.label });
		});
	}
	for (const rel of SYSTEM_RELATIONS) add(rel);

	for (const ref of endpoints) {
		if (ref.label === ANY_LABEL || defined.has(ref.label)) continue;
		report(ref.origin, `unknown label ${JSON.stringify(ref.label)}${suggest(ref.label, [...defined])}; define it under nodes or fix the name`);
	}

	return { name: parsed.map((p) => p.data.name).join("+"), labels, relations };
}

function newDraft(node: NodeEntry, origin: Origin, builtin: boolean): Draft {
	const draft: Draft = {
		label: node.label,
		origin,
		keyField: node.key ?? (TITLE_KEYED.has(node.label) ? "title" : "name"),
		keyOrigin: node.key === undefined ? undefined : at(origin, "key"),
		properties: [],
		required: [],
		descriptionIsBuiltin: builtin,
		anchor: false,
	};
	mergeInto(draft, { ...node, key: undefined }, origin, () => undefined);
	return draft;
}

function mergeInto(draft: Draft, node: NodeEntry, origin: Origin, report: (origin: Origin, message: string) => void): void {
	if (node.key !== undefined && node.key !== draft.keyField) {
		const where = draft.keyOrigin === undefined ? "by default" : draft.keyOrigin.file === BUILTIN ? "as a system label" : `in ${draft.keyOrigin.file}`;
		report(at(origin, "key"), `${draft.label} is keyed by "${draft.keyField}" ${where}; a later definition cannot change it to "${node.key}"`);
	}
	for (const p of node.properties) if (!draft.properties.includes(p)) draft.properties.push(p);
	node.required.forEach((name, j) => {
		if (!draft.required.some((r) => r.name === name)) draft.required.push({ name, origin: at(origin, "required", j) });
	});
	if (node.description !== undefined && node.description.trim() !== "" && (draft.description === undefined || draft.descriptionIsBuiltin)) {
		draft.description = node.description.trim();
		draft.descriptionIsBuiltin = origin.file === BUILTIN;
	}
	draft.anchor ||= node.anchor === true;
	if (node.status !== undefined) mergeStatus(draft, node.status, at(origin, "status"), report);
}

function mergeStatus(draft: Draft, status: NonNullable<NodeEntry["status"]>, origin: Origin, report: (origin: Origin, message: string) => void): void {
	draft.status ??= { values: [], origin, synonyms: new Map() };
	const vocabulary = draft.status;
	for (const v of status.values) if (!vocabulary.values.includes(v)) vocabulary.values.push(v);
	if (status.default !== undefined) {
		if (vocabulary.default === undefined) vocabulary.default = { value: status.default, origin: at(origin, "default") };
		else if (vocabulary.default.value !== status.default) {
			report(at(origin, "default"), `${draft.label} already has default status "${vocabulary.default.value}" (${describe(vocabulary.default.origin)}); a later definition cannot change it to "${status.default}"`);
		}
	}
	for (const [synonym, value] of Object.entries(status.synonyms)) {
		const key = statusKey(synonym);
		const existing = vocabulary.synonyms.get(key);
		if (existing === undefined) vocabulary.synonyms.set(key, { value, origin: at(origin, "synonyms", synonym) });
		else if (existing.value !== value) {
			report(at(origin, "synonyms", synonym), `synonym "${synonym}" already maps to "${existing.value}" (${describe(existing.origin)}); it cannot also map to "${value}"`);
		}
	}
}

function finish(draft: Draft, report: (origin: Origin, message: string) => void): LabelDef {
	// The key is always a property and always required, whether or not the file lists it.
	const properties = draft.properties.includes(draft.keyField) ? [...draft.properties] : [draft.keyField, ...draft.properties];
	for (const r of draft.required) {
		if (!properties.includes(r.name)) report(r.origin, `required property "${r.name}" is not among ${draft.label}'s properties; add it to properties or fix the name`);
	}
	const required = [draft.keyField, ...draft.required.map((r) => r.name).filter((n) => n !== draft.keyField)];
	const def: { -readonly [K in keyof LabelDef]: LabelDef[K] } = {
		label: draft.label,
		keyField: draft.keyField,
		properties: Object.freeze(properties),
		required: Object.freeze(required),
		anchor: draft.anchor,
	};
	if (draft.description !== undefined) def.description = draft.description;
	if (draft.status !== undefined) {
		const { values, origin } = draft.status;
		if (values.length === 0) report(origin, `${draft.label} has a status vocabulary without values; list them under status.values`);
		const known = (v: string): boolean => values.includes(v);
		const fallback = draft.status.default;
		if (fallback !== undefined && values.length > 0 && !known(fallback.value)) {
			report(fallback.origin, `default status "${fallback.value}" is not one of ${draft.label}'s values (${values.join(", ")})`);
		}
		const synonyms: Record<string, string> = {};
		for (const [key, { value, origin: where }] of draft.status.synonyms) {
			if (values.length > 0 && !known(value)) report(where, `synonym maps to "${value}", which is not one of ${draft.label}'s values (${values.join(", ")})`);
			else if (known(key) && key !== value) report(where, `"${key}" is already a ${draft.label} status value; it cannot be a synonym of "${value}"`);
			else synonyms[key] = value;
		}
		def.status = Object.freeze({
			values: Object.freeze([...values]),
			...(fallback === undefined ? {} : { default: fallback.value }),
			synonyms: Object.freeze(synonyms),
		});
	}
	return Object.freeze(def);
}

function expand(endpoint: string | string[], origin: Origin): EndpointRef[] {
	if (typeof endpoint === "string") return [{ label: endpoint, origin }];
	return endpoint.map((label, j) => ({ label, origin: at(origin, j) }));
}

function at(origin: Origin, ...parts: PathPart[]): Origin {
	return { file: origin.file, path: [...origin.path, ...parts] };
}

function describe(origin: Origin): string {
	return origin.file === BUILTIN ? "built-in system label" : `${origin.file}: ${formatPath(origin.path)}`;
}

function formatPath(path: readonly PathPart[]): string {
	let out = "";
	for (const part of path) {
		if (typeof part === "number") out += `[${part}]`;
		else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(part)) out += out === "" ? part : `.${part}`;
		else out += `[${JSON.stringify(part)}]`;
	}
	return out;
}

function issueAt(origin: Origin, message: string, source: { doc: Document; lines: LineCounter } | undefined): ProfileIssue {
	const issue: ProfileIssue = { file: origin.file, path: formatPath(origin.path), message };
	const line = source === undefined ? undefined : lineOf(source.doc, source.lines, origin.path);
	return line === undefined ? issue : { ...issue, line };
}

/** Line of the deepest YAML node that exists along `path`. */
function lineOf(doc: Document, lines: LineCounter, path: readonly PathPart[]): number | undefined {
	for (let n = path.length; n > 0; n--) {
		const node: unknown = doc.getIn(path.slice(0, n), true);
		if (isNode(node) && node.range) return lines.linePos(node.range[0]).line;
	}
	return undefined;
}

const KNOWN_KEYS: Record<string, readonly string[]> = {
	root: ["name", "description", "nodes", "relations"],
	node: ["label", "key", "properties", "required", "description", "anchor", "status"],
	status: ["values", "default", "synonyms"],
	relation: ["type", "from", "to"],
};

function knownKeysAt(path: readonly PathPart[]): readonly string[] {
	if (path.length === 0) return KNOWN_KEYS.root;
	if (path[0] === "relations") return KNOWN_KEYS.relation;
	return path[path.length - 1] === "status" ? KNOWN_KEYS.status : KNOWN_KEYS.node;
}

/** ` (did you mean "X"?)` for a near miss: same letters in another case, or two edits away. */
function suggest(input: string, candidates: readonly string[]): string {
	const folded = input.toLowerCase();
	let best: string | undefined;
	let bestDistance = 3;
	for (const candidate of candidates) {
		const d = candidate.toLowerCase() === folded ? 0 : editDistance(folded, candidate.toLowerCase());
		if (d < bestDistance) {
			best = candidate;
			bestDistance = d;
		}
	}
	return best === undefined ? "" : ` (did you mean ${JSON.stringify(best)}?)`;
}

function editDistance(a: string, b: string): number {
	let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
	for (let i = 1; i <= a.length; i++) {
		const current = [i];
		for (let j = 1; j <= b.length; j++) {
			current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
		}
		previous = current;
	}
	return previous[b.length];
}
