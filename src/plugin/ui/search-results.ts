import type { PassageView, SearchResultView, SearchView } from "../../engine";

/** The score signals in words a note-taker knows; the fused base (rrf, linear) is left out. */
const SIGNALS: readonly (readonly [string, string])[] = [
	["fulltext", "words"],
	["vector", "meaning"],
	["graph", "links"],
	["cohesion", "links between results"],
	["anchor", "named in the search"],
	["temporal", "recency"],
	["trust", "trust"],
];

const ENGLISH_ONLY = "the embedding model reads English only and this search is in another language.";

/** 0–100: the result's score against the best one of this search (scores mean nothing across searches). */
export function relativeScore(result: SearchResultView, top: number): number {
	if (!(top > 0)) return 0;
	return Math.max(0, Math.min(100, Math.round((result.score / top) * 100)));
}

/** Shown on hover: what the percentage means, then what found the result. */
export function scoreExplanation(result: SearchResultView, top: number): string {
	const found = SIGNALS.filter(([k]) => (result.scores[k] ?? 0) > 0).map(([k, name]) => `${name} ${(result.scores[k] ?? 0).toFixed(2)}`);
	const lines = [`Match ${relativeScore(result, top)}% of the best result of this search.`];
	if (found.length > 0) lines.push(`Found by ${found.join(", ")}.`);
	// The engine leaves meaning out (or weighs it less) when an English-only model meets another language.
	if (result.scores.language_mismatch) lines.push(`${result.scores.vector_rank === undefined ? "Not found by meaning" : "Meaning counted less"}: ${ENGLISH_ONLY}`);
	return lines.join("\n");
}

/** One result row: label badge, name, a match bar with its percentage, summary; the explanation on hover. */
export function renderResult(el: HTMLElement, result: SearchResultView, top: number): void {
	el.addClass("engrama-result");
	el.setAttr("title", scoreExplanation(result, top));
	const head = el.createDiv({ cls: "engrama-result-head" });
	head.createSpan({ cls: "engrama-label-badge", text: result.label });
	head.createSpan({ cls: "engrama-result-name", text: result.name });
	const pct = relativeScore(result, top);
	const score = head.createSpan({ cls: "engrama-result-score", attr: { "aria-label": `Match ${pct}% of the best result` } });
	score.createEl("meter", { cls: "engrama-result-meter", attr: { min: 0, max: 100, value: pct } });
	score.createSpan({ cls: "engrama-result-pct", text: `${pct}%` });
	if (result.summary) el.createDiv({ cls: "engrama-result-summary", text: result.summary.slice(0, 160) });
}

/**
 * The sections of the result's note that matched: heading path and snippet, the words found
 * marked (`**word**` in the engine's snippet becomes a <mark>). `open` opens the note at that line.
 */
export function renderPassages(el: HTMLElement, result: SearchResultView, open: (line: number) => void): void {
	for (const passage of result.passages ?? []) renderPassage(el, result.path ?? result.name, passage, () => open(passage.line));
}

/** One section of a note: heading path and snippet; a click (on it alone) calls `open`. */
export function renderPassage(el: HTMLElement, note: string, passage: PassageView, open: () => void): void {
	const row = el.createDiv({ cls: "engrama-result-passage", attr: { "aria-label": `Open ${note} at ${passage.heading || "its start"}` } });
	if (passage.heading) row.createDiv({ cls: "engrama-result-heading", text: passage.heading });
	renderSnippet(row.createDiv({ cls: "engrama-result-snippet" }), passage.snippet);
	row.addEventListener("click", (event) => {
		event.stopPropagation();
		open();
	});
}

/** An engine snippet as text, its `**marked**` words as <mark>. */
function renderSnippet(el: HTMLElement, snippet: string): void {
	snippet.split("**").forEach((part, i) => {
		if (part === "") return;
		if (i % 2 === 1) el.createEl("mark", { text: part });
		else el.appendText(part);
	});
}

/** The best score of a search, for relativeScore. */
export function topScore(view: SearchView): number {
	return view.results.reduce((best, r) => Math.max(best, r.score), 0);
}

/**
 * Why search found notes by their words only, for the person at the keyboard: what is missing and
 * where in Settings to fix it (the engine's `reason` speaks to the command line and agents).
 */
export function wordsOnlyHint(view: SearchView, localModelMissing: boolean): string | null {
	if (!view.degraded) return null;
	const settings = "Settings → Engrama → Embeddings";
	if (localModelMissing) return `Search matches words only until the local model is downloaded: press Download model in ${settings}.`;
	switch (view.degraded_cause) {
		case "no_embedder":
		case "no_vector_store":
			return `Search matches words only. To also find notes by meaning, choose an embedding provider in ${settings}.`;
		case "no_vectors":
			return "Search matches words only because no note has been embedded yet. Run the command Re-embed missing vectors.";
		case "dimension_mismatch":
			return `Search matches words only: the embedding model changed since the notes were embedded. Choose the earlier model again in ${settings}.`;
		case "model_changed":
			return `Search matches words only: the notes were embedded with another model. Run the command Re-embed missing vectors, or choose the earlier model again in ${settings}.`;
		case "embedder_failed":
			return `Search matches words only: the embedding provider did not answer. Check that it runs and its address in ${settings}.`;
		default:
			return `Search matches words only: finding notes by meaning failed this time. Check ${settings}.`;
	}
}

