import { ValidationError, errorMessage } from "../errors";
import type { Profile } from "../profile";
import { normaliseName } from "../resolver";
import { resolveLabelOrThrow, sanitiseKey } from "../write/sanitise";

/** `{REL: [name | {name, label}]}`: relations written together with an entity. */
export type InlineTarget = string | { readonly name?: string; readonly title?: string; readonly label?: string };
export type InlineRelations = Readonly<Record<string, InlineTarget | readonly InlineTarget[]>>;

export interface ParsedTarget {
	readonly name: string;
	/** Canonical label when the caller named one. */
	readonly label?: string;
}

export interface ParsedRelation {
	/** As the caller wrote it. */
	readonly typeInput: string;
	/** Canonical type, or undefined when the profile does not know it (reported as rejected). */
	readonly type?: string;
	readonly targets: readonly ParsedTarget[];
}

export const INLINE_LIMITS = { types: 50, targetsPerType: 100, targets: 200 } as const;

function where(type: string, index: number): string {
	return `relations.${type}[${index}]`;
}

function parseTarget(profile: Profile, type: string, index: number, raw: unknown): ParsedTarget {
	try {
		if (typeof raw === "string") return { name: sanitiseKey(raw, "name") };
		if (raw && typeof raw === "object" && !Array.isArray(raw)) {
			const obj = raw as Record<string, unknown>;
			const name = obj.name ?? obj.title;
			if (obj.label !== undefined && obj.label !== null && typeof obj.label !== "string") {
				throw new ValidationError(`label must be a string, got ${typeof obj.label}.`);
			}
			const label = typeof obj.label === "string" && obj.label !== "" ? resolveLabelOrThrow(profile, obj.label).label : undefined;
			return { name: sanitiseKey(name, "name"), ...(label ? { label } : {}) };
		}
		throw new ValidationError(`must be a name or {"name": ..., "label": ...}, got ${raw === null ? "null" : typeof raw}.`);
	} catch (error) {
		throw new ValidationError(`${where(type, index)}: ${errorMessage(error)}`, { relation: type, index });
	}
}

/**
 * Validates the shape of inline relations before anything is written. Malformed input (not an
 * object, a target that is empty, punctuation only or over 500 characters, an unknown target
 * label, too many targets) refuses the whole remember; an unknown relation type is kept and
 * reported as rejected, so one typo does not lose the entity.
 */
export function parseInlineRelations(profile: Profile, raw: unknown): ParsedRelation[] {
	if (raw === undefined || raw === null) return [];
	if (typeof raw !== "object" || Array.isArray(raw)) {
		throw new ValidationError('relations must be an object of relation type → targets, e.g. {"USES": ["Python", {"name": "SQLite", "label": "Technology"}]}.');
	}
	const entries = Object.entries(raw as Record<string, unknown>);
	if (entries.length > INLINE_LIMITS.types) {
		throw new ValidationError(`relations names ${entries.length} types; the limit is ${INLINE_LIMITS.types}.`);
	}
	const out: ParsedRelation[] = [];
	let total = 0;
	for (const [typeInput, value] of entries) {
		const list = Array.isArray(value) ? (value as unknown[]) : [value];
		if (list.length > INLINE_LIMITS.targetsPerType) {
			throw new ValidationError(`relations.${typeInput} has ${list.length} targets; the limit is ${INLINE_LIMITS.targetsPerType}.`);
		}
		total += list.length;
		if (total > INLINE_LIMITS.targets) {
			throw new ValidationError(`relations has more than ${INLINE_LIMITS.targets} targets; split the write.`);
		}
		const seen = new Set<string>();
		const targets: ParsedTarget[] = [];
		list.forEach((item, index) => {
			const target = parseTarget(profile, typeInput, index, item);
			// The same target twice is one relation (relations are idempotent).
			const identity = `${target.label ?? ""}|${normaliseName(target.name)}`;
			if (seen.has(identity)) return;
			seen.add(identity);
			targets.push(target);
		});
		out.push({ typeInput, type: profile.resolveRelationType(typeInput), targets });
	}
	return out;
}
