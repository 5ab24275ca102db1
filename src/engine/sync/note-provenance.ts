import type { NodeRecord, PropValue } from "../types";
import { carriesAgentMarks, isPersonWriter, isProvenance, provenanceOf, TRUST_LEVELS, type NodeProvenance, type Writer } from "../write/provenance";

/**
 * The flat frontmatter keys that carry a node's provenance in its note (flat: Obsidian's
 * Properties panel shows them well). A note without any of them is the person's own.
 */
export const PROVENANCE_KEYS = {
	source: "engrama_source",
	agent: "engrama_agent",
	session: "engrama_session",
	trust: "engrama_trust",
	editSource: "engrama_edit_source",
	editedBy: "engrama_edited_by",
	editSession: "engrama_edit_session",
} as const;

const KEYS: readonly string[] = Object.values(PROVENANCE_KEYS);

export interface NoteProvenanceRead {
	/** undefined when the note states none (it is then the person's own). */
	readonly provenance?: NodeProvenance;
	readonly problems: readonly string[];
}

/**
 * The provenance a note's frontmatter states. Missing keys take defaults: source `sync`, the
 * source's trust (the lower of author and editor when an edit is stated). A person may change the
 * keys (for example `engrama_trust: 1` vouches while keeping the record of who wrote it).
 */
export function readNoteProvenance(fm: Readonly<Record<string, unknown>>): NoteProvenanceRead {
	if (!KEYS.some((k) => present(fm[k]))) return { problems: [] };
	const problems: string[] = [];
	const source = sourceOf(fm, PROVENANCE_KEYS.source, problems) ?? "sync";
	const author = writerOf(source, fm[PROVENANCE_KEYS.agent], fm[PROVENANCE_KEYS.session]);
	// An editor named without its source (written by hand) is taken as the least trusted, mcp.
	const editSource = sourceOf(fm, PROVENANCE_KEYS.editSource, problems) ?? (present(fm[PROVENANCE_KEYS.editedBy]) ? "mcp" : undefined);
	const edit = editSource ? writerOf(editSource, fm[PROVENANCE_KEYS.editedBy], fm[PROVENANCE_KEYS.editSession]) : undefined;
	const trust = trustOf(fm, PROVENANCE_KEYS.trust, Math.min(TRUST_LEVELS[source], edit ? TRUST_LEVELS[edit.source] : 1), problems);
	return { provenance: { ...author, trust, ...(edit ? { edit } : {}) }, problems };
}

/** The keys of a relation entry that states its own writer: `{to: "[[X]]", source: mcp, agent, session, trust}`. */
export const RELATION_ENTRY_KEYS = { to: "to", source: "source", agent: "agent", session: "session", trust: "trust" } as const;

/**
 * The provenance a relation entry states (a map with `to`); undefined for a plain name or link,
 * which takes the note's. Missing keys as for a note: source `sync`, the source's trust.
 */
export function readRelationProvenance(entry: Readonly<Record<string, unknown>>, problems: string[]): NodeProvenance | undefined {
	const { source: s, agent, session, trust } = RELATION_ENTRY_KEYS;
	if (![s, agent, session, trust].some((k) => present(entry[k]))) return undefined;
	const source = sourceOf(entry, s, problems) ?? "sync";
	return { ...writerOf(source, entry[agent], entry[session]), trust: trustOf(entry, trust, TRUST_LEVELS[source], problems) };
}

/**
 * How a note lists a relation target: the plain `ref`, or, for a relation an agent made that is
 * not the note's own author's, a map that states its writer. The relation's provenance then lives
 * with the relation: the note's own keys (and its trust) stay as they are.
 */
export function relationEntry(ref: string, edge: Readonly<Record<string, PropValue>>, author: NodeRecord): string | Record<string, string | number> {
	const writer = edgeWriter(edge);
	if (!writer || isPersonWriter(writer.source)) return ref;
	const trust = typeof edge.trust_level === "number" ? edge.trust_level : TRUST_LEVELS[writer.source];
	const own = provenanceOf(author);
	if (own && own.source === writer.source && own.agent === writer.agent && own.session === writer.session && own.trust === trust) return ref;
	const k = RELATION_ENTRY_KEYS;
	return {
		[k.to]: ref,
		[k.source]: writer.source,
		...(writer.agent ? { [k.agent]: writer.agent } : {}),
		...(writer.session ? { [k.session]: writer.session } : {}),
		[k.trust]: trust,
	};
}

function sourceOf(map: Readonly<Record<string, unknown>>, key: string, problems: string[]): NodeProvenance["source"] | undefined {
	const value = map[key];
	if (!present(value)) return undefined;
	if (isProvenance(value)) return value;
	problems.push(`${key} ${JSON.stringify(value).slice(0, 40)} is not one of ${Object.keys(TRUST_LEVELS).join(", ")}; it was read as "sync".`);
	return "sync";
}

function trustOf(map: Readonly<Record<string, unknown>>, key: string, fallback: number, problems: string[]): number {
	const raw = map[key];
	if (!present(raw)) return fallback;
	const n = typeof raw === "number" ? raw : typeof raw === "string" ? Number(raw) : Number.NaN;
	if (Number.isFinite(n) && n >= 0 && n <= 1) return n;
	problems.push(`${key} ${JSON.stringify(raw).slice(0, 40)} is not a number between 0 and 1; ${fallback} was used.`);
	return fallback;
}

/**
 * The keys a note must carry for `node`'s provenance: {} when the node is a person's own note's
 * (source sync, full trust, no agent edit); anything written outside the vault, cli included, is stated.
 */
export function provenanceKeys(node: NodeRecord): Record<string, string | number> {
	const p = provenanceOf(node);
	if (!p || (p.source === "sync" && !carriesAgentMarks(p))) return {};
	// `sync` is what a missing engrama_source means: a person's note edited by an agent states only the edit.
	const keys: Record<string, string | number> = p.source === "sync" ? {} : { [PROVENANCE_KEYS.source]: p.source };
	if (p.agent) keys[PROVENANCE_KEYS.agent] = p.agent;
	if (p.session) keys[PROVENANCE_KEYS.session] = p.session;
	keys[PROVENANCE_KEYS.trust] = p.trust;
	if (p.edit) {
		keys[PROVENANCE_KEYS.editSource] = p.edit.source;
		if (p.edit.agent) keys[PROVENANCE_KEYS.editedBy] = p.edit.agent;
		if (p.edit.session) keys[PROVENANCE_KEYS.editSession] = p.edit.session;
	}
	return keys;
}

const GROUPS: readonly (readonly string[])[] = [
	[PROVENANCE_KEYS.source, PROVENANCE_KEYS.agent, PROVENANCE_KEYS.session],
	[PROVENANCE_KEYS.editSource, PROVENANCE_KEYS.editedBy, PROVENANCE_KEYS.editSession],
];

/**
 * Writes `node`'s provenance keys into a note's frontmatter. Keys are only set, never removed
 * (removing them is the person's vouching), except that a newer edit replaces the whole record of
 * the older one, so an old session does not outlive it.
 */
export function applyProvenanceKeys(fm: Record<string, unknown>, node: NodeRecord): void {
	const keys = provenanceKeys(node);
	for (const group of GROUPS) {
		if (!group.some((k) => k in keys)) continue;
		for (const k of group) if (!(k in keys)) delete fm[k];
	}
	Object.assign(fm, keys);
}

/** Who wrote an edge, from the provenance stamped on it; undefined when it carries none. */
export function edgeWriter(props: Readonly<Record<string, PropValue>>): Writer | undefined {
	if (!isProvenance(props.source)) return undefined;
	return writerOf(props.source, props.source_agent, props.source_session);
}

function writerOf(source: Writer["source"], agent: unknown, session: unknown): Writer {
	const text = (v: unknown) => (typeof v === "string" || typeof v === "number" ? String(v).trim().slice(0, 200) : "");
	const a = text(agent);
	const s = text(session);
	return { source, ...(a ? { agent: a } : {}), ...(s ? { session: s } : {}) };
}

function present(value: unknown): boolean {
	return value !== undefined && value !== null && value !== "";
}
