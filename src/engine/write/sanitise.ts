import { ValidationError } from "../errors";
import type { Profile, LabelDef } from "../profile";
import type { PropValue, Props } from "../types";
import { SYSTEM_PROPS } from "../system-props";

/** Limits that keep one write from bloating the memory or the FTS index. */
export const LIMITS = {
	keyLength: 500,
	propName: 64,
	propCount: 100,
	stringLength: 200_000,
	listItems: 500,
} as const;

const PROP_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
// C0/C1 control characters except tab, newline and carriage return.
// eslint-disable-next-line no-control-regex -- stripping control characters is the point
const CONTROL_CHARS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g;

/** Names the engine owns: its system props and everything named engrama_* (note frontmatter keys). */
function isReserved(name: string): boolean {
	return SYSTEM_PROPS.has(name) || name.toLowerCase().startsWith("engrama_");
}

/** The reserved names among user-supplied properties (sanitiseProps drops them), so a write can say so. */
export function reservedPropNames(raw: unknown): string[] {
	if (raw === undefined || raw === null || typeof raw !== "object" || Array.isArray(raw)) return [];
	return Object.keys(raw).filter(isReserved);
}

export function cleanString(value: string): string {
	return value.replace(CONTROL_CHARS, "").normalize("NFC");
}

export function resolveLabelOrThrow(profile: Profile, input: string): LabelDef {
	const def = typeof input === "string" ? profile.resolveLabel(input.trim()) : undefined;
	if (!def) {
		const allowed = profile.labels().map((l) => l.label).join(", ");
		throw new ValidationError(`Unknown label "${String(input)}". Allowed labels in profile ${profile.name}: ${allowed}.`, {
			label: input,
			allowed: profile.labels().map((l) => l.label),
		});
	}
	return def;
}

export function resolveRelationOrThrow(profile: Profile, input: string, from: string, to: string): string {
	const type = typeof input === "string" ? profile.resolveRelationType(input.trim()) : undefined;
	if (!type) {
		throw new ValidationError(`Unknown relation type "${String(input)}". Allowed: ${profile.relationTypes().join(", ")}.`, {
			type: input,
			allowed: profile.relationTypes(),
		});
	}
	if (!profile.isRelationAllowed(type, from, to)) {
		const targets = profile.allowedTargets(type, from);
		const hint = targets.length
			? `From ${from}, ${type} may point to: ${targets.join(", ")}.`
			: `${type} cannot start from ${from}.`;
		throw new ValidationError(`Relation ${from} -[${type}]-> ${to} is not allowed by profile ${profile.name}. ${hint}`, {
			type,
			from,
			to,
			allowedTargets: targets,
		});
	}
	return type;
}

/** Trims, strips control characters and refuses keys with no letters or digits. */
export function sanitiseKey(raw: unknown, keyField: string): string {
	if (typeof raw !== "string") {
		throw new ValidationError(`The ${keyField} must be a string, got ${raw === null ? "null" : typeof raw}.`);
	}
	const key = cleanString(raw).replace(/\s+/g, " ").trim();
	if (!/[\p{L}\p{N}]/u.test(key)) {
		throw new ValidationError(`The ${keyField} "${key.slice(0, 40)}" has no letters or digits; give the entity a real ${keyField}.`);
	}
	if (key.length > LIMITS.keyLength) {
		throw new ValidationError(
			`The ${keyField} is ${key.length} characters; the limit is ${LIMITS.keyLength}. Put long text in description or body.`,
		);
	}
	return key;
}

function cleanValue(name: string, value: unknown, depth: number): PropValue | undefined {
	if (value === undefined) return undefined;
	if (value === null) return null;
	if (typeof value === "string") {
		const cleaned = cleanString(value);
		if (cleaned.length > LIMITS.stringLength) {
			throw new ValidationError(
				`Property "${name}" is ${cleaned.length} characters; the limit is ${LIMITS.stringLength}. Keep the full text in the note and store a summary.`,
			);
		}
		return cleaned;
	}
	if (typeof value === "number") {
		if (!Number.isFinite(value)) throw new ValidationError(`Property "${name}" must be a finite number.`);
		return value;
	}
	if (typeof value === "boolean") return value;
	if (value instanceof Date) {
		if (Number.isNaN(value.getTime())) throw new ValidationError(`Property "${name}" is an invalid date.`);
		return value.toISOString();
	}
	if (Array.isArray(value) && depth === 0) {
		if (value.length > LIMITS.listItems) {
			throw new ValidationError(`Property "${name}" has ${value.length} items; the limit is ${LIMITS.listItems}.`);
		}
		const items: PropValue[] = [];
		for (const item of value) {
			const cleaned = cleanValue(name, item, depth + 1);
			if (cleaned !== undefined && cleaned !== null) items.push(cleaned);
		}
		return items;
	}
	throw new ValidationError(
		`Property "${name}" has an unsupported value (${Array.isArray(value) ? "nested list" : typeof value}). Use strings, numbers, booleans or a list of them.`,
	);
}

/**
 * Cleans user-supplied properties: names must be identifiers, values scalars or flat lists,
 * strings bounded and stripped of control characters. System props and engrama_* names are dropped
 * (the engine owns them; see reservedPropNames).
 */
export function sanitiseProps(raw: unknown): Record<string, PropValue> {
	if (raw === undefined || raw === null) return {};
	if (typeof raw !== "object" || Array.isArray(raw)) {
		throw new ValidationError("Properties must be an object of name → value.");
	}
	const entries = Object.entries(raw as Record<string, unknown>);
	if (entries.length > LIMITS.propCount) {
		throw new ValidationError(`Too many properties (${entries.length}); the limit is ${LIMITS.propCount}.`);
	}
	const out: Record<string, PropValue> = {};
	for (const [name, value] of entries) {
		if (!PROP_NAME.test(name) || name.length > LIMITS.propName) {
			throw new ValidationError(`Property name "${name.slice(0, 80)}" is not allowed: use letters, digits and _ (max ${LIMITS.propName}).`);
		}
		if (isReserved(name)) continue;
		const cleaned = cleanValue(name, value, 0);
		if (cleaned !== undefined) out[name] = cleaned;
	}
	return out;
}

export function normaliseTags(value: PropValue | undefined): string[] | undefined {
	if (value === undefined || value === null) return undefined;
	const list: readonly PropValue[] = Array.isArray(value) ? value : typeof value === "string" ? value.split(/[,\s]+/) : [];
	const tags = new Set<string>();
	for (const item of list) {
		if (typeof item !== "string" && typeof item !== "number") continue;
		const tag = String(item).trim().replace(/^#/, "");
		if (tag) tags.add(tag);
	}
	return [...tags];
}

export function readConfidence(value: PropValue | undefined): number | undefined {
	if (value === undefined || value === null) return undefined;
	const n = typeof value === "number" ? value : Number(value);
	if (!Number.isFinite(n) || n < 0 || n > 1) {
		throw new ValidationError(`confidence must be a number between 0 and 1, got ${JSON.stringify(value)}.`);
	}
	return n;
}

/** Accepts ISO dates and date-times; returns an ISO string or throws naming the property. */
export function readDate(name: string, value: PropValue | undefined): string | null | undefined {
	if (value === undefined) return undefined;
	if (value === null || value === "") return null;
	if (typeof value !== "string" && typeof value !== "number") throw new ValidationError(`${name} must be an ISO date (YYYY-MM-DD).`);
	const text = String(value);
	const time = Date.parse(text);
	if (Number.isNaN(time)) throw new ValidationError(`${name} must be an ISO date (YYYY-MM-DD), got "${text.slice(0, 40)}".`);
	return new Date(time).toISOString();
}

export type SanitisedProps = Props;
