import type { Profile } from "../engine/host";

/** The prompt's name, as the Python engrama names its own session guide (clients look it up by name). */
export const SESSION_GUIDE_PROMPT = "engrama_session_guide";

export const SESSION_GUIDE_DESCRIPTION = "How to use the Engrama memory well in a session: search first, remember with relations, trust, Insights and scope.";

/** The guide's text, with the labels and relation types of the active profile. */
export function sessionGuide(profile: Profile): string {
	const labels = profile.labels();
	const keyed = (field: "name" | "title") =>
		labels
			.filter((l) => l.keyField === field)
			.map((l) => l.label)
			.join(", ");
	const describedLabels = labels.map((l) => `- ${l.label}${l.description ? `: ${l.description}` : ""} (key: ${l.keyField})`).join("\n");
	return [
		"# Engrama: how to use this memory",
		"",
		"Engrama is the person's long-term memory: a graph of entities and typed relations, kept in step with their Obsidian vault. What you store here, they read as notes.",
		"",
		"## In a session",
		"",
		"1. **Start by reading.** Call `engrama_search` with the topic in plain words, then `engrama_context` on the results that matter, before answering about anything the person may already know.",
		"2. **Search before you remember.** The same label and name (or title) update one node, but a near-duplicate under another name splits what is known. Check `engrama_search` first, and use the existing node's exact name.",
		"3. **Remember richly, with relations.** `engrama_remember` with a `summary` (what it is, why it matters), `details`, `tags` and `status`, and its relations in the same call. Then link anything else with `engrama_relate`. A node with no relation is nearly invisible to search and to reflect; when the answer reports `orphan_warning` or `suggested_relations`, act on them.",
		"4. **Pick a relation target carefully.** When a relation target comes back `ambiguous`, choose from `did_you_mean`; `stubbed` means a placeholder node was created, to be filled in later.",
		"5. **Reflect now and then.** `engrama_reflect` proposes Insights (patterns across the graph); show them with `engrama_surface_insights`.",
		"",
		"## Rules",
		"",
		"- **Insights need the person's approval.** Present each Insight and let the person decide; call `engrama_approve_insight` (approve or dismiss) only with their decision, and `engrama_write_insight_to_vault` only for an approved one. Never act on an Insight by yourself.",
		"- **Provenance and trust.** Everything you write is recorded as written by an agent (`source: mcp`, your client's name and session) with a lower trust than the person's own notes, and search ranks by trust. Do not try to vouch for yourself: the `engrama_*` provenance keys are dropped. When something you stored matters, tell the person so they can check it in the vault.",
		"- **The person's notes come first.** When the memory and a note disagree, the note is right: say so rather than overwrite it. Use `engrama_sync_note` after they edit a note you rely on.",
		"- **Scope.** Each call reads and writes one person's memory (the scope of this connection). Never assume you can see or change anyone else's; a refusal about scope is not something to retry with other headers.",
		"- **Forgetting is the person's choice.** Use `engrama_gdpr_forget` only when they ask for it, with the mode they chose.",
		"- **Keep it useful.** Store facts, decisions, problems and how they were solved, not the conversation itself. Update a node when something changes (status, details) rather than adding a new one.",
		"",
		"## This memory's profile",
		"",
		`Profile ${profile.name}. Labels keyed by name: ${keyed("name") || "none"}. Labels keyed by title: ${keyed("title") || "none"}.`,
		"",
		describedLabels,
		"",
		`Relation types: ${profile.relationTypes().join(", ")}.`,
	].join("\n");
}
