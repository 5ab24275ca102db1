import type { NodeRecord, PropValue, Provenance } from "../types";

/** How far a write is trusted by where it came from: a person (sync, cli) fully, an agent less. */
export const TRUST_LEVELS: Readonly<Record<Provenance, number>> = { sync: 1, cli: 1, sdk: 0.8, mcp: 0.5 };

/** Node props that record the last edit an agent made to a node it did not author. */
export const EDIT_PROPS = { source: "edited_by_source", agent: "edited_by_agent", session: "edited_in_session" } as const;

/** Who wrote something: a source and, when known, the agent and its session. */
export interface Writer {
	readonly source: Provenance;
	readonly agent?: string;
	readonly session?: string;
}

/**
 * A node's provenance: who authored it, how far it is trusted now, and the last agent that
 * edited it without being its author (until a person vouches for the edit).
 */
export interface NodeProvenance extends Writer {
	readonly trust: number;
	readonly edit?: Writer;
}

/** The provenance of a note a person wrote themselves. */
export const PERSON_OWN: NodeProvenance = { source: "sync", trust: 1 };

export function isProvenance(value: unknown): value is Provenance {
	return typeof value === "string" && Object.hasOwn(TRUST_LEVELS, value);
}

/** A person writes with full trust (sync, cli); anything else is an agent. */
export function isPersonWriter(source: Provenance): boolean {
	return TRUST_LEVELS[source] >= 1;
}

/** The provenance stored on a node; undefined for a node without a known source (hand-made files). */
export function provenanceOf(node: NodeRecord): NodeProvenance | undefined {
	const p = node.props;
	if (!isProvenance(p.source)) return undefined;
	const level = p.trust_level;
	const trust = typeof level === "number" && Number.isFinite(level) ? Math.min(1, Math.max(0, level)) : TRUST_LEVELS[p.source];
	const editSource = p[EDIT_PROPS.source];
	const edit = isProvenance(editSource) ? writer(editSource, p[EDIT_PROPS.agent], p[EDIT_PROPS.session]) : undefined;
	return { ...writer(p.source, p.source_agent, p.source_session), trust, ...(edit ? { edit } : {}) };
}

/** True when the node is not simply a person's own: an agent wrote it or edited it, or it is trusted less. */
export function carriesAgentMarks(p: NodeProvenance): boolean {
	return !isPersonWriter(p.source) || p.trust < 1 || p.edit !== undefined;
}

function writer(source: Provenance, agent: PropValue | undefined, session: PropValue | undefined): Writer {
	return {
		source,
		...(typeof agent === "string" && agent !== "" ? { agent } : {}),
		...(typeof session === "string" && session !== "" ? { session } : {}),
	};
}

/** The node props that state `p` exactly (fields it lacks are cleared). */
export function provenanceProps(p: NodeProvenance): { set: Record<string, PropValue>; unset: string[] } {
	const set: Record<string, PropValue> = {
		source: p.source,
		source_agent: p.agent ?? null,
		source_session: p.session ?? null,
		trust_level: p.trust,
	};
	const unset: string[] = [];
	if (p.edit) {
		set[EDIT_PROPS.source] = p.edit.source;
		if (p.edit.agent) set[EDIT_PROPS.agent] = p.edit.agent;
		else unset.push(EDIT_PROPS.agent);
		if (p.edit.session) set[EDIT_PROPS.session] = p.edit.session;
		else unset.push(EDIT_PROPS.session);
	} else {
		unset.push(...Object.values(EDIT_PROPS));
	}
	return { set, unset };
}

/**
 * What a write does to a node's provenance (docs/design/provenance.md):
 * - `stated` (vault sync: what the note's frontmatter says) is taken as it is;
 * - a new node (or a stub, a placeholder with nothing to author, or one without a known source)
 *   gets the writer's provenance;
 * - a person's write (cli) on an existing node changes none of it: it neither takes authorship
 *   nor vouches for an agent's text;
 * - an agent's write keeps the authorship, lowers trust to its own level, and, on a node it did
 *   not author, is recorded as the node's last agent edit.
 */
export function writeProvenance(
	ctx: Writer,
	existing: NodeRecord | null,
	stated?: NodeProvenance,
): { set: Record<string, PropValue>; unset: string[] } {
	if (stated) return provenanceProps(stated);
	const current = existing && existing.props.status !== "stub" ? provenanceOf(existing) : undefined;
	const level = TRUST_LEVELS[ctx.source];
	if (!current) return provenanceProps({ ...writer(ctx.source, ctx.agent, ctx.session), trust: level });
	if (isPersonWriter(ctx.source)) return { set: {}, unset: [] };
	const set: Record<string, PropValue> = { trust_level: Math.min(current.trust, level) };
	const unset: string[] = [];
	const author = current.source === ctx.source && (current.agent ?? null) === (ctx.agent ?? null);
	if (!author) {
		set[EDIT_PROPS.source] = ctx.source;
		if (ctx.agent) set[EDIT_PROPS.agent] = ctx.agent;
		else unset.push(EDIT_PROPS.agent);
		if (ctx.session) set[EDIT_PROPS.session] = ctx.session;
		else unset.push(EDIT_PROPS.session);
	}
	return { set, unset };
}
