import * as z from "zod";

export const LABEL_NAME = /^[A-Z][A-Za-z0-9_]*$/;
export const RELATION_TYPE = /^[A-Z][A-Z0-9_]*$/;
export const PROPERTY_NAME = /^[a-z][a-z0-9_]*$/;
export const STATUS_VALUE = /^[a-z][a-z0-9-]*$/;
export const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
export const ANY_LABEL = "*";

/**
 * Built on first use, not at load: constructing these zod schemas was 5-30 ms of every command's
 * start, and the shipped profiles the command line carries were checked when it was built.
 */
function buildProfileFileSchema() {
	const labelName = z.string({ error: "expected a label name" }).regex(LABEL_NAME, {
		error: (issue) => `invalid label name ${JSON.stringify(issue.input)}: use PascalCase letters, digits and "_" (e.g. "Project")`,
	});

	const endpointName = z.string({ error: "expected a label name or \"*\"" }).refine((value) => value === ANY_LABEL || LABEL_NAME.test(value), {
		error: (issue) => `invalid label name ${JSON.stringify(issue.input)}: use a PascalCase label (e.g. "Project") or "*"`,
	});

	// One label or a list of labels; a list expands into one relation per label.
	const endpoint = z.union([endpointName, z.array(endpointName).min(1, { error: "list at least one label" })], {
		error: "expected a label name, \"*\", or a list of label names",
	});

	const propertyName = z.string({ error: "expected a property name" }).regex(PROPERTY_NAME, {
		error: (issue) => `invalid property name ${JSON.stringify(issue.input)}: use snake_case (e.g. "source_query")`,
	});

	const statusValue = z.string({ error: "expected a status value" }).regex(STATUS_VALUE, {
		error: (issue) => `invalid status value ${JSON.stringify(issue.input)}: use lowercase kebab-case (e.g. "in-progress")`,
	});

	const statusSchema = z.strictObject({
		// A module may omit values and only add synonyms to a label defined earlier.
		values: z.array(statusValue).default([]),
		default: statusValue.optional(),
		synonyms: z.record(z.string(), statusValue, { error: "expected a map of synonym: value" }).default({}),
	});

	const nodeSchema = z.strictObject({
		label: labelName,
		key: z.enum(["name", "title"], { error: "key must be \"name\" or \"title\"" }).optional(),
		properties: z.array(propertyName).default([]),
		required: z.array(propertyName).default([]),
		description: z.string().optional(),
		anchor: z.boolean({ error: "anchor must be true or false" }).optional(),
		status: statusSchema.optional(),
	});

	const relationSchema = z.strictObject({
		type: z.string({ error: "expected a relation type" }).regex(RELATION_TYPE, {
			error: (issue) => `invalid relation type ${JSON.stringify(issue.input)}: use UPPER_SNAKE_CASE (e.g. "SOLVED_BY")`,
		}),
		from: endpoint,
		to: endpoint,
	});

	return z.strictObject(
		{
			name: z.string({ error: "every profile needs a name" }).regex(PROFILE_NAME, {
				error: (issue) => `invalid profile name ${JSON.stringify(issue.input)}: use letters, digits, "-" and "_"`,
			}),
			description: z.string().optional(),
			nodes: z.array(nodeSchema, { error: "nodes must be a list of label definitions" }).default([]),
			relations: z.array(relationSchema, { error: "relations must be a list of {type, from, to}" }).default([]),
		},
		{ error: "a profile must be a YAML mapping with name, nodes and relations" },
	);
}

let built: ReturnType<typeof buildProfileFileSchema> | undefined;

/** The shape of one profile file, before merging. Unknown keys are errors so typos surface. */
export function profileFileSchema(): ReturnType<typeof buildProfileFileSchema> {
	built ??= buildProfileFileSchema();
	return built;
}

export type ProfileFile = z.infer<ReturnType<typeof buildProfileFileSchema>>;
export type NodeEntry = ProfileFile["nodes"][number];
export type RelationEntry = ProfileFile["relations"][number];
