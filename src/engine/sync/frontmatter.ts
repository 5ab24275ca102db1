import { Document, isMap, isScalar, isSeq, LineCounter, parseDocument, visit, YAMLMap, type Pair } from "yaml";
import { errorMessage, ValidationError } from "../errors";

/** Where the frontmatter block sits in a note's text. */
export interface FrontmatterBlock {
	/** The YAML between the fences ("" for an empty block). */
	readonly yaml: string;
	/** Offset of the YAML text inside the note. */
	readonly yamlStart: number;
	/** Offset of the closing fence line. */
	readonly closeStart: number;
	/** Offset of the first body character (after the closing fence line). */
	readonly bodyStart: number;
	/** The note's dominant line ending (what a new block takes). */
	readonly eol: LineEnding;
}

export type LineEnding = "\n" | "\r\n";

export type FrontmatterSplit =
	| { readonly kind: "none"; readonly eol: LineEnding }
	| { readonly kind: "unclosed"; readonly eol: LineEnding }
	| ({ readonly kind: "block" } & FrontmatterBlock);

/**
 * Obsidian's rule: frontmatter is a `---` line at the very start of the file and the next line
 * that is exactly `---` (trailing spaces allowed). An opening fence that is never closed is
 * reported separately, because reading it as "no frontmatter" would drop the note's label.
 */
export function splitFrontmatter(text: string): FrontmatterSplit {
	const eol = dominantEnding(text);
	const open = /^---[ \t]*\r?\n/.exec(text);
	if (!open) return { kind: "none", eol };
	const yamlStart = open[0].length;
	const close = /^---[ \t]*(\r?\n|$)/m;
	const rest = text.slice(yamlStart);
	const match = close.exec(rest);
	if (!match) return { kind: "unclosed", eol };
	const closeStart = yamlStart + match.index;
	return { kind: "block", yaml: rest.slice(0, match.index), yamlStart, closeStart, bodyStart: closeStart + match[0].length, eol };
}

/**
 * CRLF when more lines end with it than with a bare LF (a tie or no line break: LF). Counted
 * with indexOf, not split: every note is split up to three times in a first sync (parse, id
 * write, body line), and splitting a note into an array of lines twice was half the garbage.
 */
function dominantEnding(text: string): LineEnding {
	let crlf = 0;
	let lf = 0;
	for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) {
		if (at > 0 && text.charCodeAt(at - 1) === 13) crlf++;
		else lf++;
	}
	return crlf > lf ? "\r\n" : "\n";
}

/** The ending of the last line break in `text`, if there is one. */
function lastEnding(text: string): LineEnding | undefined {
	const at = text.lastIndexOf("\n");
	if (at < 0) return undefined;
	return at > 0 && text[at - 1] === "\r" ? "\r\n" : "\n";
}

/** Serialised YAML (LF only) with `ending` on every line. */
function withEnding(text: string, ending: LineEnding): string {
	return ending === "\n" ? text : text.replace(/\r?\n/g, "\r\n");
}

export interface ParsedFrontmatter {
	readonly data: Record<string, unknown>;
}

export interface FrontmatterError {
	readonly line?: number;
	readonly message: string;
}

/** Parses frontmatter YAML into plain data; errors carry the note line (1-based) when known. */
export function parseFrontmatterYaml(
	yaml: string,
	lineOffset: number,
): { ok: true; data: Record<string, unknown> } | { ok: false; error: FrontmatterError } {
	const lines = new LineCounter();
	const doc = parseDocument(yaml, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
	if (doc.errors.length > 0) {
		const first = doc.errors[0];
		const line = lines.linePos(first.pos[0]).line + lineOffset;
		return { ok: false, error: { line, message: first.message.split("\n")[0] } };
	}
	if (doc.contents === null) return { ok: true, data: {} };
	if (!isMap(doc.contents)) {
		return { ok: false, error: { line: 1 + lineOffset, message: "the frontmatter is not a map of key: value pairs" } };
	}
	const data = plainData(doc);
	if (!data.ok) return { ok: false, error: { line: 1 + lineOffset, message: data.message } };
	return { ok: true, data: data.value };
}

/** Most alias (`*name`) expansions one frontmatter may use: more is a billion-laughs bomb, not a note. */
const MAX_ALIASES = 100;

/**
 * The document as plain data. Expanding aliases can throw (too many: the YAML library's guard
 * against exponential blow-up); that is bad input, so it is returned as a message, never thrown.
 */
function plainData(doc: Document): { ok: true; value: Record<string, unknown> } | { ok: false; message: string } {
	try {
		const value: unknown = doc.toJS({ maxAliasCount: MAX_ALIASES });
		return { ok: true, value: (value ?? {}) as Record<string, unknown> };
	} catch (error) {
		const tooMany = /alias/i.test(errorMessage(error));
		return {
			ok: false,
			message: tooMany
				? `it uses YAML aliases (*name) too often (more than ${MAX_ALIASES} expansions), which could blow up to gigabytes`
				: `it cannot be read as data (${errorMessage(error)})`,
		};
	}
}

const STRINGIFY = { lineWidth: 0, flowCollectionPadding: false } as const;
const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Applies `mutate` to a note's frontmatter and returns the new text, touching as little as
 * possible: the body stays byte-for-byte, untouched keys keep their exact text (comments,
 * quoting, indentation) and order, changed keys are re-serialised in place (nested maps and flow
 * lists keep their style), new keys are appended. A note without frontmatter gets a new block.
 * Returns the same string when nothing changed. Throws ValidationError on YAML it cannot edit safely.
 * `known` is the frontmatter already parsed from exactly this text (vault sync has it): when the
 * edit only adds keys, the YAML is then not parsed again (a first sync adds engrama_id to every note).
 */
export function editFrontmatter(
	original: string,
	mutate: (frontmatter: Record<string, unknown>) => void,
	known?: Readonly<Record<string, unknown>>,
): string {
	// A byte-order mark stays where it was, in front of everything.
	const bom = original.startsWith("\uFEFF") ? "\uFEFF" : "";
	const text = bom ? original.slice(1) : original;
	const split = splitFrontmatter(text);
	if (split.kind === "unclosed") {
		throw new ValidationError("The frontmatter starts with --- but has no closing --- line; close it before Engrama edits it.");
	}
	const eol = split.eol;
	const yaml = split.kind === "block" ? split.yaml : "";
	if (isFlowMap(yaml)) {
		// One `{...}` object (publishing plugins write JSON): edited inside its braces, since a key
		// appended on a line of its own after it is YAML no reader accepts.
		const edited = editFlowMap(editableDocument(yaml), yaml, mutate);
		if (edited === yaml || split.kind !== "block") return original;
		return bom + text.slice(0, split.yamlStart) + edited + text.slice(split.closeStart);
	}
	let doc = known ? undefined : editableDocument(yaml);
	const before = known ?? editableData(doc);
	const after: Record<string, unknown> = structuredClone<Record<string, unknown>>(before);
	mutate(after);

	// Every untouched line keeps its own ending; a rewritten pair keeps its last line's, an added
	// one takes the line before it (the opening fence when the block is empty).
	const touchesExisting = Object.keys(before).some((key) => !(key in after) || !sameValue(before[key], after[key]));
	let result = yaml;
	let changed = false;
	if (touchesExisting) {
		doc ??= editableDocument(yaml);
		result = rewriteExisting(doc, yaml, before, after, eol);
		changed = true;
	}
	const fenceEnding = split.kind === "block" ? lastEnding(text.slice(0, split.yamlStart)) : undefined;
	for (const [key, value] of Object.entries(after)) {
		if (key in before) continue;
		changed = true;
		const ending = lastEnding(result) ?? fenceEnding ?? eol;
		if (result.length > 0 && !result.endsWith("\n")) result += ending;
		if (PLAIN_KEY.test(key) && typeof value === "string" && UUID.test(value)) {
			// engrama_id on a first sync: what the YAML serialiser would write, without building a document.
			result += `${key}: ${value}${ending}`;
			continue;
		}
		doc ??= new Document(null);
		const pair = doc.createPair(key, value) as Pair;
		pair.value = updatedNode(doc, null, value);
		result += withEnding(serialisePair(pair), ending);
	}
	if (!changed) return original;
	if (split.kind === "block") return bom + text.slice(0, split.yamlStart) + result + text.slice(split.closeStart);
	return `${bom}---${eol}${result}---${eol}${text}`;
}

/** True when the frontmatter is one flow map: its first character outside comments is `{`. */
function isFlowMap(yaml: string): boolean {
	for (const line of yaml.split("\n")) {
		const trimmed = line.trim();
		if (trimmed === "" || trimmed.startsWith("#")) continue;
		return trimmed.startsWith("{");
	}
	return false;
}

/**
 * The flow map with `mutate` applied, as JSON-compatible text: added keys go in front of the
 * closing brace (every other byte kept); a changed or removed key rebuilds the pairs, the kept
 * ones in their own text, joined by the map's own separator.
 */
function editFlowMap(doc: Document, yaml: string, mutate: (frontmatter: Record<string, unknown>) => void): string {
	const map = doc.contents as YAMLMap;
	const before = editableData(doc);
	const after: Record<string, unknown> = structuredClone<Record<string, unknown>>(before);
	mutate(after);
	const close = (map.range?.[1] ?? yaml.length) - 1;
	if (yaml[close] !== "}") throw new ValidationError("The frontmatter { ... } map could not be edited safely; write it as key: value lines.");
	const open = map.range?.[0] ?? 0;
	const spans = map.items.map((pair) => ({ key: keyText(pair), start: (pair.key as { range?: number[] }).range?.[0] ?? 0, end: flowPairEnd(pair) }));
	const compact = !/,\s/.test(yaml.slice(open, close));
	const entry = (key: string, value: unknown) => `${JSON.stringify(key)}${compact ? ":" : ": "}${JSON.stringify(value)}`;
	const added = Object.keys(after)
		.filter((key) => !(key in before))
		.map((key) => entry(key, after[key]));
	const touched = Object.keys(before).some((key) => !(key in after) || !sameValue(before[key], after[key]));
	if (!touched) {
		if (added.length === 0) return yaml;
		// After the last pair's value, before any line break or spaces that precede the brace.
		const at = spans.length > 0 ? spans[spans.length - 1].end : close;
		const lead = spans.length > 0 ? (compact ? "," : ", ") : "";
		return yaml.slice(0, at) + lead + added.join(compact ? "," : ", ") + yaml.slice(at);
	}
	const separator = spans.length > 1 ? yaml.slice(spans[0].end, spans[1].start) : compact ? "," : ", ";
	const pairs: string[] = [];
	for (const span of spans) {
		if (span.key === undefined || !(span.key in after)) continue;
		pairs.push(sameValue(before[span.key], after[span.key]) ? yaml.slice(span.start, span.end) : entry(span.key, after[span.key]));
	}
	const first = spans.length > 0 ? spans[0].start : close;
	const last = spans.length > 0 ? spans[spans.length - 1].end : close;
	return yaml.slice(0, first) + [...pairs, ...added].join(separator) + yaml.slice(last);
}

/** Where a flow map pair's text ends: after its value, else after its key. */
function flowPairEnd(pair: Pair): number {
	const value = (pair.value as { range?: number[] } | null)?.range;
	return value?.[1] ?? (pair.key as { range?: number[] }).range?.[1] ?? 0;
}

function editableData(doc: Document | undefined): Record<string, unknown> {
	if (!doc) return {};
	const data = plainData(doc);
	if (!data.ok) throw new ValidationError(`The frontmatter YAML cannot be edited: ${data.message}; fix it before Engrama edits it.`);
	return data.value;
}

function editableDocument(yaml: string): Document {
	const doc = parseDocument(yaml, { keepSourceTokens: false, uniqueKeys: true });
	if (doc.errors.length > 0) {
		throw new ValidationError(`The frontmatter YAML is broken (${doc.errors[0].message.split("\n")[0]}); fix it before Engrama edits it.`);
	}
	if (doc.contents !== null && !isMap(doc.contents)) {
		throw new ValidationError("The frontmatter is not a map of key: value pairs; Engrama only edits key: value frontmatter.");
	}
	return doc;
}

/** The YAML with its existing pairs kept verbatim, re-serialised where `after` changed them, or dropped. */
function rewriteExisting(
	doc: Document,
	yaml: string,
	before: Readonly<Record<string, unknown>>,
	after: Record<string, unknown>,
	eol: LineEnding,
): string {
	const map = (doc.contents as YAMLMap | null) ?? new YAMLMap();
	const pieces: string[] = [];
	let cursor = 0;
	for (const pair of map.items) {
		const key = keyText(pair);
		const span = pairSpan(yaml, pair);
		if (!span || key === undefined) continue;
		pieces.push(yaml.slice(cursor, span[0]));
		cursor = span[1];
		if (!(key in after)) continue;
		if (sameValue(before[key], after[key])) {
			pieces.push(yaml.slice(span[0], span[1]));
			continue;
		}
		pair.value = updatedNode(doc, pair.value, after[key]);
		pieces.push(withEnding(serialisePair(pair), lastEnding(yaml.slice(span[0], span[1])) ?? eol));
	}
	pieces.push(yaml.slice(cursor));
	return pieces.join("");
}

function keyText(pair: Pair): string | undefined {
	const key = pair.key;
	if (isScalar(key)) return String(key.value);
	return typeof key === "string" ? key : undefined;
}

/** The text range of a top-level pair, whole lines, including its trailing comment and newline. */
function pairSpan(yaml: string, pair: Pair): [number, number] | undefined {
	const keyRange = isScalar(pair.key) ? pair.key.range : undefined;
	if (!keyRange) return undefined;
	const valueRange = (pair.value as { range?: [number, number, number] } | null)?.range;
	let start = yaml.lastIndexOf("\n", keyRange[0] - 1) + 1;
	if (yaml.slice(start, keyRange[0]).trim() !== "") start = keyRange[0];
	let end = Math.max(keyRange[2], valueRange ? valueRange[2] : keyRange[2]);
	if (end > 0 && yaml[end - 1] !== "\n") {
		const newline = yaml.indexOf("\n", end);
		const restOfLine = newline < 0 ? yaml.slice(end) : yaml.slice(end, newline);
		if (restOfLine.trim() === "" || restOfLine.trim().startsWith("#")) end = newline < 0 ? yaml.length : newline + 1;
	}
	return [start, end];
}

function serialisePair(pair: Pair): string {
	const doc = new Document(null);
	const map = new YAMLMap();
	map.items.push(pair);
	doc.contents = map;
	const text = doc.toString(STRINGIFY);
	return text.endsWith("\n") ? text : `${text}\n`;
}

/** A YAML node for `value` that keeps the style of `old` where the shapes match. */
function updatedNode(doc: Document, old: unknown, value: unknown): unknown {
	if (isMap(old) && isPlainObject(value)) {
		const oldJs = (old.toJSON() ?? {}) as Record<string, unknown>;
		for (const item of [...old.items]) {
			const key = isScalar(item.key) ? String(item.key.value) : String(item.key);
			if (!(key in value)) old.delete(item.key);
		}
		for (const [key, child] of Object.entries(value)) {
			if (key in oldJs && sameValue(oldJs[key], child)) continue;
			const existing = old.items.find((item) => (isScalar(item.key) ? String(item.key.value) : String(item.key)) === key);
			if (existing) existing.value = updatedNode(doc, existing.value, child);
			else old.add(doc.createPair(key, updatedNode(doc, null, child)));
		}
		return old;
	}
	const node = doc.createNode(value);
	// A map in a list (a relation entry that states its writer) reads best on one line.
	visit(node, { Seq: (_, seq) => void seq.items.forEach((item) => isMap(item) && (item.flow = true)) });
	if (isSeq(node)) {
		// Short lists read best inline ([a, "[[b]]"]); an existing block list stays block.
		const short = node.items.every((item) => isScalar(item) || isMap(item));
		node.flow = isSeq(old) ? !!old.flow : short;
	}
	if (isScalar(old) && isScalar(node) && typeof old.value === typeof node.value && old.type) node.type = old.type;
	return node;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
	return !!value && typeof value === "object" && !Array.isArray(value);
}

function sameValue(a: unknown, b: unknown): boolean {
	// Most values an edit leaves alone are strings or numbers: no need to serialise them.
	return a === b || JSON.stringify(a) === JSON.stringify(b);
}
