import type { SearchResultView } from "../../engine/memory";

/** "fulltext 0.82 · vector 0.40 · graph 0.10 …": the score breakdown shown on hover. */
export function scoreBreakdown(result: SearchResultView): string {
	const order = ["rrf", "linear", "fulltext", "vector", "graph", "cohesion", "anchor", "temporal", "trust"];
	const parts = order.filter((k) => result.scores[k] !== undefined).map((k) => `${k} ${(result.scores[k] ?? 0).toFixed(2)}`);
	return `Score ${result.score.toFixed(3)}\n${parts.join(" · ")}`;
}

/** One result row: label badge, name, score, summary; the breakdown on hover. */
export function renderResult(el: HTMLElement, result: SearchResultView): void {
	el.addClass("engrama-result");
	el.setAttr("title", scoreBreakdown(result));
	const head = el.createDiv({ cls: "engrama-result-head" });
	head.createSpan({ cls: "engrama-label-badge", text: result.label });
	head.createSpan({ cls: "engrama-result-name", text: result.name });
	head.createSpan({ cls: "engrama-result-score", text: result.score.toFixed(2) });
	if (result.summary) el.createDiv({ cls: "engrama-result-summary", text: result.summary.slice(0, 160) });
}
