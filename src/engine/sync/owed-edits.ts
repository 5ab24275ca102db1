import { ValidationError, errorMessage } from "../errors";
import type { Profile } from "../profile";
import { NEVER_WRITTEN } from "../system-props";
import type { NodeRecord } from "../types";
import { NoteEncodingError } from "./note-encoding";
import { NOTE_PROPS } from "./note-index";
import { provenanceKeys } from "./note-provenance";

// What graph → vault owes a note it could not write (graph-to-vault.ts): the edits kept on the
// node until the note takes them, and how a refusal is explained to the writer and the person.

/** A note write that failed; `reason` is why (NoteEncodingError, a frontmatter ValidationError, I/O). */
export class NoteWriteError extends Error {
	constructor(
		readonly path: string,
		readonly reason: unknown,
	) {
		super(`${path}: ${errorMessage(reason)}`);
	}
}

/** What an answer or a report says after a write that did not reach its note. */
export const OWED_UNTIL_FIXED = "The memory keeps the write with who made it and its trust; the first sync of the fixed note writes it in.";

/** Why a note did not take a write and what the person does about it, from the engine's own explanation. */
export function refusalOf(error: unknown): { reason: string; action: string } {
	const cause = error instanceof NoteWriteError ? error.reason : error;
	const action =
		cause instanceof NoteEncodingError
			? cause.action
			: cause instanceof ValidationError
				? "Engrama edits only frontmatter it can read; the note is left as it is."
				: "Check that the note exists and is writable.";
	return { reason: errorMessage(cause).replace(/\.$/, ""), action };
}

/**
 * A write graph → vault owes a note (`NOTE_PROPS.pending`, a JSON list): the named props of its
 * node with the node's provenance, or one relation from it.
 */
export type OwedEdit = OwedProps | OwedRelation;
export interface OwedProps {
	readonly props: readonly string[];
}
export interface OwedRelation {
	readonly type: string;
	/** The target node's id. */
	readonly to: string;
}

export function owedOf(node: NodeRecord): OwedEdit[] {
	const raw = node.props[NOTE_PROPS.pending];
	if (typeof raw !== "string") return [];
	try {
		const list = JSON.parse(raw) as unknown;
		return Array.isArray(list) ? list.filter(isOwedEdit) : [];
	} catch {
		return [];
	}
}

function isOwedEdit(value: unknown): value is OwedEdit {
	if (!value || typeof value !== "object") return false;
	const e = value as Record<string, unknown>;
	return Array.isArray(e.props) ? e.props.every((p) => typeof p === "string") : typeof e.type === "string" && typeof e.to === "string";
}

/** One props edit (the union of the names) and each relation once. */
export function mergeOwed(edits: readonly OwedEdit[]): OwedEdit[] {
	const props = edits.filter((e): e is OwedProps => "props" in e);
	const relations = new Map<string, OwedRelation>();
	for (const e of edits) if ("type" in e) relations.set(`${e.type}\u0000${e.to}`, e);
	return [...(props.length > 0 ? [{ props: [...new Set(props.flatMap((e) => e.props))] }] : []), ...relations.values()];
}

/** The props of a write that go into the node's note: the profile's, status and description. */
export function writtenProps(profile: Profile, node: NodeRecord, props: Readonly<Record<string, unknown>> | undefined): string[] {
	const def = profile.resolveLabel(node.label);
	return Object.keys(props ?? {}).filter((name) => !NEVER_WRITTEN.has(name) && (def?.properties.includes(name) || name === "status" || name === "description"));
}

/** An entity write edits its note when it sets a prop the note holds or the node has provenance to state. */
export function editsNote(profile: Profile, node: NodeRecord, props: Readonly<Record<string, unknown>> | undefined): boolean {
	return writtenProps(profile, node, props).length > 0 || Object.keys(provenanceKeys(node)).length > 0;
}
