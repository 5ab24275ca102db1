import type { Command } from "commander";
import { runWithMemory } from "../context";
import { positiveInt } from "./memory-commands";

export function registerSearchCommand(program: Command): void {
	program
		.command("search")
		.description("search the memory")
		.argument("<query>")
		.option("--limit <n>", "number of results", "10")
		.option("--label <label...>", "only these labels")
		.action(async (query: string, options: { limit: string; label?: string[] }, command: Command) =>
			runWithMemory(command, async ({ opened, out }) => {
				const results = await opened.memory.searchFulltext(opened.scope, query, {
					limit: positiveInt("--limit", options.limit),
					labels: options.label,
				});
				out.result({ query, mode: "fulltext", degraded: true, reason: "no embedder configured: fulltext only", results }, () =>
					results.length === 0
						? "No results."
						: results.map((r, i) => `${i + 1}. [${r.label}] ${r.name}  (${r.score.toFixed(3)})${r.summary ? `\n   ${r.summary}` : ""}`).join("\n"),
				);
			}),
		);

}
