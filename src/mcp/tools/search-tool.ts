import * as z from "zod";
import type { SearchResultView, SearchView } from "../../engine";
import { READ_ONLY, count, defineTool, text, type ToolEnv } from "../tool-kit";

/** Results that carry their passages; below them, the note's path says where to read on. */
const RESULTS_WITH_PASSAGES = 2;
/** A summary longer than this is cut (engrama_context has it whole): shorter below the first results. */
const SUMMARY_CHARS = 160;
const LOWER_SUMMARY_CHARS = 60;
/** Results named in the one-line summary. */
const SUMMARY_NAMES = 3;

function cut(text: string, max: number): string {
	return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
}

/**
 * A search answer at the cost an agent pays per byte (`scores: true` asks for the whole answer, as
 * the command line gives it): no per-signal scores,
 * passages on the first two results only (two on the first), summaries cut, scores to 3 places, no
 * empty tags. A default answer of 10 results stays under 4 kB.
 */
function compactView(view: SearchView): SearchView {
	const results = view.results.map((result, i): SearchResultView => {
		const { scores: _scores, passages, tags, ...rest } = result;
		const top = i < RESULTS_WITH_PASSAGES;
		return {
			...rest,
			score: Math.round(rest.score * 1000) / 1000,
			summary: cut(rest.summary, top ? SUMMARY_CHARS : LOWER_SUMMARY_CHARS),
			...(tags.length > 0 ? { tags } : {}),
			...(top && passages && passages.length > 0 ? { passages: i === 0 ? passages : passages.slice(0, 1) } : {}),
		} as SearchResultView;
	});
	return { ...view, results };
}

export function searchTool(env: ToolEnv) {
	return defineTool({
		name: "engrama_search",
		title: "Search memory",
		description:
			"Hybrid search (fulltext + vectors, reranked by graph, recency, trust); use it first on a topic and before engrama_remember. Results: node_id, label, name, score, summary, path, matched passages {heading, line, snippet}; read more with engrama_read_note or engrama_context. degraded: true means fulltext only.",
		inputSchema: {
			query: text("query", 500, "Plain words, e.g. 'websocket reconnect bug'."),
			limit: count("limit", 1, 50, "").default(10),
			labels: z.array(env.schemas.label("")).max(20).optional().describe(""),
			valid_at: text("valid_at", 40, "Only nodes valid at this ISO date.").optional(),
			date_from: text("date_from", 40, "Only items dated or mentioning a date on or after this day (YYYY-MM-DD).").optional(),
			date_to: text("date_to", 40, "… on or before this day.").optional(),
			scores: z.boolean().default(false).describe("The whole answer: per-signal scores, every passage, whole summaries."),
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
				.slice(0, SUMMARY_NAMES)
				.map((r) => `${r.label} "${r.name}"`)
				.join(", ");
			const summary =
				view.results.length === 0
					? `No results for "${args.query}".${view.degraded ? ` (degraded: ${view.reason ?? "vector channel unavailable"})` : ""}`
					: `${view.results.length} result${view.results.length === 1 ? "" : "s"} for "${args.query}": ${top}${view.results.length > SUMMARY_NAMES ? ` and ${view.results.length - SUMMARY_NAMES} more` : ""}.${view.degraded ? ` (degraded: ${view.reason ?? "vector channel unavailable"})` : ""}`;
			// The seed's proactivity: the face computed the hint (pending Insights related to the query); the tool says how to review here.
			const hint = view.proactive_hint;
			return { structured: { ...(args.scores ? view : compactView(view)) }, summary: hint ? `${summary} ${hint} Present them with engrama_surface_insights.` : summary };
		},
	});
}
