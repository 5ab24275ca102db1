import { Document, isMap, visit } from "yaml";
import type { Profile } from "../profile";
import { NEVER_WRITTEN } from "../system-props";
import type { NodeRecord, PropValue } from "../types";
import { provenanceKeys, relationEntry } from "./note-provenance";

/** How a note lists one relation target: a plain name or link, or a map stating its writer. */
export type RelationEntry = ReturnType<typeof relationEntry>;

/** A prop value as YAML takes it (lists element by element). */
export function yamlValue(value: PropValue): unknown {
	return Array.isArray(value) ? (value as readonly PropValue[]).map((v) => yamlValue(v)) : value;
}

/**
 * The note for an entity that has none: frontmatter with its id, label, key, the properties the
 * profile knows and its relations; a body with the name and summary. Parsing it back gives the
 * same node (the description comes from the frontmatter, not the body).
 */
export function renderEntityNote(node: NodeRecord, relations: readonly { type: string; entry: RelationEntry }[], profile: Profile): string {
	const def = profile.resolveLabel(node.label);
	const fm: Record<string, unknown> = {
		engrama_id: node.id,
		engrama_label: node.label,
		[node.keyField]: node.key,
	};
	const known = new Set([...(def?.properties ?? []), "description", "status", "valid_to"]);
	for (const name of [...(def?.properties ?? []), "description", "status", "confidence", "valid_to"]) {
		if (name in fm || NEVER_WRITTEN.has(name)) continue;
		const value = node.props[name];
		if (value === undefined || value === null || value === "") continue;
		if (name === "confidence" && value === 1) continue;
		if (!known.has(name) && name !== "confidence") continue;
		fm[name] = yamlValue(value);
	}
	Object.assign(fm, provenanceKeys(node));
	if (relations.length > 0) {
		const map: Record<string, RelationEntry[]> = {};
		for (const r of relations) (map[r.type] ??= []).push(r.entry);
		fm.relations = map;
	}
	const doc = new Document(fm);
	// Block lists, but a relation entry that states its writer on one line, as edits write it.
	visit(doc, { Seq: (_, seq) => void seq.items.forEach((item) => isMap(item) && (item.flow = true)) });
	const yaml = doc.toString({ lineWidth: 0, flowCollectionPadding: false });
	const summary = typeof node.props.summary === "string" ? node.props.summary : typeof node.props.description === "string" ? node.props.description : "";
	const quote = summary ? `\n> ${summary.replace(/\s*\n\s*/g, " ")}\n` : "";
	return `---\n${yaml}---\n# ${node.key}\n${quote}`;
}
