import type { Command } from "commander";
import { ValidationError } from "../../engine/errors";
import type { SearchResultView } from "../../engine";
import { runWithMemory } from "../run-command";
import { positiveInt, skillsOf } from "./memory-commands";

interface SearchFlags {
	limit: string;
	label?: string[];
	validAt?: string;
	from?: string;
	to?: string;
	mode?: string;
	graph: boolean;
	fulltextOnly?: boolean;
}

function signalLine(r: SearchResultView): string {
	const s = r.scores;
	const parts = ["rrf", "linear", "fulltext", "vector", "graph", "temporal", "trust", "date", "when"]
		.filter((k) => s[k] !== undefined && (s[k] !== 0 || k === "rrf" || k === "linear"))
		.map((k) => `${k} ${s[k].toFixed(3)}`);
	return parts.join(", ");
}

/** Summary, note path and the sections that matched (`path:line  heading`, then the snippet). */
function details(r: SearchResultView): string {
	const lines: string[] = [];
	if (r.summary) lines.push(`   ${r.summary}`);
	if (r.path) lines.push(`   ${r.path}`);
	for (const p of r.passages ?? []) lines.push(`   ${r.path ?? ""}:${p.line}${p.heading ? `  # ${p.heading}` : ""}\n      ${p.snippet}`);
	return lines.length > 0 ? `\n${lines.join("\n")}` : "";
}

export function registerSearchCommand(program: Command): void {
	program
		.command("search")
		.description("hybrid search: fulltext + vectors, fused by RRF, reranked by the graph, recency and trust")
		.argument("<query>")
		.option("--limit <n>", "number of results", "10")
		.option("--label <label...>", "only these labels")
		.option("--valid-at <date>", "only nodes valid at this date (ISO, e.g. 2026-01-31)")
		.option("--from <date>", "only items dated, or mentioning a date, on or after this day (YYYY-MM-DD)")
		.option("--to <date>", "only items dated, or mentioning a date, on or before this day (YYYY-MM-DD)")
		.option("--mode <mode>", "fusion: rrf (default) or linear (legacy weighted blend)")
		.option("--no-graph", "skip the graph rerank")
		.option("--fulltext-only", "skip the vector channel")
		.action(async (query: string, options: SearchFlags, command: Command) =>
			runWithMemory(command, async (run) => {
				const { out } = run;
				if (options.mode !== undefined && options.mode !== "rrf" && options.mode !== "linear") {
					throw new ValidationError(`--mode must be rrf or linear, got "${options.mode}".`);
				}
				const view = await skillsOf(run).search(run.opened.scope, query, {
					limit: positiveInt("--limit", options.limit),
					labels: options.label,
					validAt: options.validAt,
					dateFrom: options.from,
					dateTo: options.to,
					fusion: options.mode,
					graph: options.graph,
					channels: options.fulltextOnly ? { vector: false } : undefined,
				});
				out.result(view, () => {
					const lines = view.results.map((r, i) => `${i + 1}. [${r.label}] ${r.name}  (${r.score.toFixed(3)}: ${signalLine(r)})${details(r)}`);
					if (view.degraded) lines.unshift(`(fulltext only: ${view.reason ?? "vector channel unavailable"})`);
					if (view.proactive_hint) lines.push(`${view.proactive_hint} (engrama insights)`);
					return view.results.length === 0 ? [...lines, "No results."].join("\n") : lines.join("\n");
				});
			}),
		);
}
