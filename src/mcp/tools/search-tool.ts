import { z } from "zod";
import { READ_ONLY, count, defineTool, text, type ToolEnv } from "../tool-kit";

export function searchTool(env: ToolEnv) {
	return defineTool({
		name: "engrama_search",
		title: "Search memory",
		description:
			"Hybrid search of the memory graph (fulltext + vector similarity fused with RRF, reranked by graph closeness, recency and trust). Use it at the start of a session to load context on the topic, and before engrama_remember to check whether a node already exists. Each result has node_id, label, name, score, summary, tags, confidence, updated_at and the per-signal scores, plus path (its note, when it has one) and passages: the note's sections that matched, each {heading, line, snippet} with the matched words **marked**; read a whole section with engrama_read_note (path + heading), a node's full details and neighbours with engrama_context. proactive_hint appears when pending Insights relate to the query: present them with engrama_surface_insights. `degraded: true` means the vector channel was unavailable and the answer is fulltext only (reason says why). Plain words work best; search syntax is not interpreted.",
		inputSchema: {
			query: text("query", 500, "What to look for, in plain words, e.g. 'websocket reconnect bug'."),
			limit: count("limit", 1, 50, "Maximum results (1-50).").default(10),
			labels: z.array(env.schemas.label("Only nodes of this label.")).max(20).optional().describe("Only nodes of these labels."),
			valid_at: text("valid_at", 40, "Only nodes valid at this ISO date (valid_from ≤ date ≤ valid_to), e.g. 2026-01-31.").optional(),
			date_from: text("date_from", 40, "Only items dated (valid_from) or mentioning a date on or after this day, e.g. 2026-01-01. Relative words in stored text ('yesterday', 'last week') are resolved against the item's date when written.").optional(),
			date_to: text("date_to", 40, "Only items dated or mentioning a date on or before this day, e.g. 2026-01-31.").optional(),
		},
		outputSchema: {
			query: z.string(),
			mode: z.string(),
			degraded: z.boolean(),
			results: z.array(z.looseObject({ node_id: z.string(), label: z.string(), name: z.string(), score: z.number() })),
		},
		annotations: { ...READ_ONLY, title: "Search memory" },
		async run(args, call) {
			const view = await env.skills.search(call.scope.scope, args.query, {
				limit: args.limit,
				labels: args.labels,
				validAt: args.valid_at,
				dateFrom: args.date_from,
				dateTo: args.date_to,
			});
			const top = view.results
				.slice(0, 5)
				.map((r) => `${r.label} "${r.name}"`)
				.join(", ");
			const summary =
				view.results.length === 0
					? `No results for "${args.query}".${view.degraded ? ` (degraded: ${view.reason ?? "vector channel unavailable"})` : ""}`
					: `${view.results.length} result${view.results.length === 1 ? "" : "s"} for "${args.query}": ${top}${view.results.length > 5 ? ` and ${view.results.length - 5} more` : ""}.${view.degraded ? ` (degraded: ${view.reason ?? "vector channel unavailable"})` : ""}`;
			// The seed's proactivity: Memory.search already computed the hint (pending Insights related to the query).
			const hint = view.proactive_hint;
			return { structured: { ...view }, summary: hint ? `${summary} ${hint}` : summary };
		},
	});
}
