import { SuggestModal } from "obsidian";
import { errorMessage } from "../../engine/errors";
import type { SearchResultView } from "../../engine";
import type { EngramaController } from "../engrama-controller";
import { openNodeNote } from "./open-note";
import { renderResult, topScore, wordsOnlyHint } from "./search-results";

type SearchItem = { readonly kind: "result"; readonly result: SearchResultView; readonly top: number } | { readonly kind: "hint"; readonly text: string };

/** Hybrid search over the memory; choosing a result opens its note. */
export class SearchModal extends SuggestModal<SearchItem> {
	constructor(private readonly controller: EngramaController) {
		super(controller.app);
		this.setPlaceholder("Search memory: names, ideas, questions…");
		this.emptyStateText = "No matching memories. Try other words, or sync the vault first.";
		this.modalEl.addClass("engrama-search-modal");
	}

	async getSuggestions(query: string): Promise<SearchItem[]> {
		if (query.trim() === "") return [{ kind: "hint", text: "Type to search the graph (fulltext, vectors and graph proximity)." }];
		const engine = this.controller.host.engine;
		if (!engine) return [{ kind: "hint", text: "Engrama is still starting. Try again in a moment." }];
		try {
			const view = await engine.skills.search(engine.scope, query, { limit: 20 });
			const top = topScore(view);
			const items: SearchItem[] = view.results.map((result) => ({ kind: "result", result, top }));
			const hint = wordsOnlyHint(view, !engine.embedderReady && engine.config.embedding.provider === "local");
			if (hint) items.push({ kind: "hint", text: hint });
			return items;
		} catch (error) {
			return [{ kind: "hint", text: `Search failed: ${errorMessage(error)}` }];
		}
	}

	renderSuggestion(item: SearchItem, el: HTMLElement): void {
		if (item.kind === "hint") {
			el.addClass("engrama-hint");
			el.setText(item.text);
			return;
		}
		renderResult(el, item.result, item.top);
		const first = item.result.passages?.[0];
		if (first) el.createDiv({ cls: "engrama-result-snippet", text: first.snippet.replace(/\*\*/g, "") });
	}

	onChooseSuggestion(item: SearchItem): void {
		const engine = this.controller.host.engine;
		if (item.kind !== "result" || !engine) return;
		const first = item.result.passages?.[0];
		void openNodeNote(this.app, engine, item.result.node_id, first ? { line: first.line } : undefined);
	}
}
