import * as z from "zod";
import { LABEL_NAME, RELATION_TYPE } from "../profile/profile-schema";
import { LIMITS } from "../write/sanitise";

/**
 * The portable memory file of `engrama export` / `engrama import`: NDJSON, one JSON object a line,
 * so it streams and a 50k-node memory never sits in one string. Line 1 is the envelope; every
 * other line is a record tagged by `type`. The envelope and the node / relation / vector records
 * have engrama-py 0.18.1's shape (`engrama_export: 1`, src/engrama/migrate.py) with fields added;
 * `history`, `meta` and `end` are ours (engrama-py skips record types it does not know).
 * docs/export-format.md describes it field by field.
 */
export const EXPORT_FORMAT = 1;
export const PRODUCER = "engrama-obsidian";

const scopeId = z.string().min(1).max(200);
const propName = z
	.string()
	.max(LIMITS.propName)
	.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "property names use letters, digits and _");

const jsonValue: z.ZodType<unknown> = z.lazy(() => z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(jsonValue), z.record(z.string(), jsonValue)]));
const PROP_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const props = z.record(z.string(), jsonValue).superRefine((obj, ctx) => {
	for (const k of Object.keys(obj)) {
		if (!PROP_NAME.test(k) || k.length > LIMITS.propName) {
			ctx.addIssue({ code: "custom", path: [k], message: `property name "${k.slice(0, 80)}" is not allowed: property names use letters, digits and _ (max ${LIMITS.propName})` });
		}
	}
});
const label = z.string().max(100).regex(LABEL_NAME, "labels start with a capital letter and use letters, digits and _");
const key = z.string().min(1).max(LIMITS.keyLength);
const keyField = z.enum(["name", "title"]);
const isoTime = z.string().min(1).max(64).refine((t) => Number.isFinite(Date.parse(t)), "an ISO date-time");

export const envelopeSchema = z
	.object({
		engrama_export: z.number(),
		/** Ours: 1 while the records below keep their meaning. engrama-py's files have none. */
		format_version: z.number().int().optional(),
		producer: z.string().optional(),
		version: z.string().optional(),
		exported_at: z.string().optional(),
		source_backend: z.string().optional(),
		embedding_model: z.string().nullish(),
		embedding_dimensions: z.number().int().min(0).nullish(),
	})
	.loose();
export type Envelope = z.infer<typeof envelopeSchema>;

export const nodeRecordSchema = z.object({
	type: z.literal("node"),
	label,
	key_field: keyField,
	key_value: key,
	/** Every property, system ones included (engrama_id, org_id, user_id, provenance, status, created_at, updated_at). */
	properties: props,
});

export const relationRecordSchema = z.object({
	type: z.literal("relation"),
	from_label: label,
	from_key: keyField,
	from_value: key,
	rel_type: z.string().max(100).regex(RELATION_TYPE, "relation types use capital letters, digits and _"),
	to_label: label,
	to_key: keyField,
	to_value: key,
	org_id: scopeId.nullish(),
	user_id: scopeId.nullish(),
	// Ours:
	created_at: isoTime.optional(),
	properties: props.optional(),
});

export const vectorRecordSchema = z.object({
	type: z.literal("vector"),
	label,
	key_field: keyField,
	key_value: key,
	org_id: scopeId.nullish(),
	user_id: scopeId.nullish(),
	vector: z.array(z.number()).min(1).max(8192),
});

export const historyRecordSchema = z.object({
	type: z.literal("history"),
	label,
	key_value: key,
	org_id: scopeId,
	user_id: scopeId,
	at: isoTime,
	prop: propName,
	before: jsonValue,
	after: jsonValue,
	source: z.string().max(100).nullable(),
});

export const metaRecordSchema = z.object({ type: z.literal("meta"), key: z.string().min(1).max(200), value: z.string().max(10_000) });

/** The last line of our files: what precedes it, so a cut file is told apart from a whole one. */
export const endRecordSchema = z.object({
	type: z.literal("end"),
	nodes: z.number().int().min(0),
	relations: z.number().int().min(0),
	vectors: z.number().int().min(0),
	history: z.number().int().min(0),
	meta: z.number().int().min(0),
});

export type NodeLine = z.infer<typeof nodeRecordSchema>;
export type RelationLine = z.infer<typeof relationRecordSchema>;
export type VectorLine = z.infer<typeof vectorRecordSchema>;
export type HistoryLine = z.infer<typeof historyRecordSchema>;
export type MetaLine = z.infer<typeof metaRecordSchema>;
export type EndLine = z.infer<typeof endRecordSchema>;
export type ExportLine = NodeLine | RelationLine | VectorLine | HistoryLine | MetaLine | EndLine;

export const RECORD_SCHEMAS = {
	node: nodeRecordSchema,
	relation: relationRecordSchema,
	vector: vectorRecordSchema,
	history: historyRecordSchema,
	meta: metaRecordSchema,
	end: endRecordSchema,
} as const;

/** Props the node record carries outside `properties` in our model, or that identify the node. */
export const IDENTITY_PROPS = ["engrama_id", "org_id", "user_id", "created_at", "updated_at"] as const;
