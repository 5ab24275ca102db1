import type { KeyField } from "../types";
import { ANY_LABEL } from "./profile-schema";

export interface StatusVocabulary {
	readonly values: readonly string[];
	readonly default?: string;
	/** Keys are normalised with `statusKey` (lowercase, no accents, spaces and "_" as "-"). */
	readonly synonyms: Readonly<Record<string, string>>;
}

export interface LabelDef {
	readonly label: string;
	readonly keyField: KeyField;
	readonly properties: readonly string[];
	readonly required: readonly string[];
	readonly description?: string;
	readonly anchor: boolean;
	readonly status?: StatusVocabulary;
}

/** An allowed (type, from, to); `from`/`to` may be "*" for any label. */
export interface RelationDef {
	readonly type: string;
	readonly from: string;
	readonly to: string;
}

export interface StatusResult {
	readonly status: string;
	/** The original value when it was not in the vocabulary (stored as `status_note`). */
	readonly note?: string;
	readonly warning?: string;
}

/** Statuses the engine itself sets (stub targets, archived notes); valid on every label. */
export const SYSTEM_STATUSES: readonly string[] = ["stub", "archived"];

/** Comparison form of a status: "In Progress", "in_progress" and "in-progress" are the same. */
export function statusKey(value: string): string {
	return value
		.normalize("NFD")
		.replace(/\p{M}/gu, "")
		.trim()
		.toLowerCase()
		.replace(/[\s_]+/g, "-");
}

/** Comparison form of a relation type: "solved by", "solved-by" and "SOLVED_BY" are the same. */
export function relationTypeKey(value: string): string {
	return value.trim().toUpperCase().replace(/[\s-]+/g, "_");
}

/** A merged, validated profile. Immutable; build one with `loadProfile`. */
export class Profile {
	private readonly byLabel = new Map<string, LabelDef>();
	private readonly byType = new Map<string, string>();
	private readonly types: readonly string[];

	constructor(
		readonly name: string,
		private readonly labelDefs: readonly LabelDef[],
		private readonly relations: readonly RelationDef[],
	) {
		for (const def of labelDefs) this.byLabel.set(def.label.toLowerCase(), def);
		for (const rel of relations) this.byType.set(relationTypeKey(rel.type), rel.type);
		this.types = [...new Set(relations.map((r) => r.type))];
	}

	labels(): readonly LabelDef[] {
		return this.labelDefs;
	}

	relationDefs(): readonly RelationDef[] {
		return this.relations;
	}

	relationTypes(): readonly string[] {
		return this.types;
	}

	/** Case-insensitive: "project" → Project. */
	resolveLabel(input: string): LabelDef | undefined {
		return this.byLabel.get(input.trim().toLowerCase());
	}

	/** Case-insensitive, with "-" and spaces read as "_": "solved by" → SOLVED_BY. */
	resolveRelationType(input: string): string | undefined {
		return this.byType.get(relationTypeKey(input));
	}

	/** Labels and type are resolved case-insensitively; an unknown label is never allowed, even under "*". */
	isRelationAllowed(type: string, from: string, to: string): boolean {
		const t = this.resolveRelationType(type);
		const f = this.resolveLabel(from)?.label;
		const d = this.resolveLabel(to)?.label;
		if (t === undefined || f === undefined || d === undefined) return false;
		return this.relations.some((r) => r.type === t && matches(r.from, f) && matches(r.to, d));
	}

	/** Labels that `from` may point at with `type`, in profile order ("*" expanded). */
	allowedTargets(type: string, from: string): readonly string[] {
		const t = this.resolveRelationType(type);
		const f = this.resolveLabel(from)?.label;
		if (t === undefined || f === undefined) return [];
		const targets = new Set<string>();
		for (const r of this.relations) {
			if (r.type !== t || !matches(r.from, f)) continue;
			if (r.to === ANY_LABEL) return this.labelDefs.map((d) => d.label);
			targets.add(r.to);
		}
		return this.labelDefs.map((d) => d.label).filter((l) => targets.has(l));
	}

	/** The key field of a label; "name" for a label the profile does not know. */
	keyFieldOf(label: string): KeyField {
		return this.resolveLabel(label)?.keyField ?? "name";
	}

	/**
	 * Maps a status onto the label's vocabulary: canonical values and synonyms are accepted in any
	 * case; an unknown value becomes the default (else "active", else the first value) and is kept
	 * in `note` with a warning, so nothing the user wrote is lost.
	 */
	normaliseStatus(label: string, value: string): StatusResult {
		const trimmed = value.trim();
		const key = statusKey(trimmed);
		if (SYSTEM_STATUSES.includes(key)) return { status: key };
		const def = this.resolveLabel(label);
		const vocabulary = def?.status;
		if (def === undefined || vocabulary === undefined) return { status: trimmed };
		const fallback = vocabulary.default ?? (vocabulary.values.includes("active") ? "active" : vocabulary.values[0]);
		if (key === "") return { status: fallback };
		const canonical = vocabulary.values.find((v) => statusKey(v) === key) ?? vocabulary.synonyms[key];
		if (canonical !== undefined) return { status: canonical };
		return {
			status: fallback,
			note: trimmed,
			warning: `Unknown ${def.label} status ${JSON.stringify(trimmed)}: using "${fallback}" and keeping the original in status_note. Known values: ${vocabulary.values.join(", ")}.`,
		};
	}

	anchorLabels(): readonly string[] {
		return this.labelDefs.filter((d) => d.anchor).map((d) => d.label);
	}
}

function matches(pattern: string, label: string): boolean {
	return pattern === ANY_LABEL || pattern === label;
}
