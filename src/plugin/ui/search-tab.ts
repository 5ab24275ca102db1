import { errorMessage } from "../../engine/errors";
import type { SearchView } from "../../engine";
import type { EngramaController } from "../engrama-controller";
import type { PanelActions } from "./panel-actions";
import { renderPassages, renderResult, topScore, wordsOnlyHint } from "./search-results";

/** A search box with live hybrid results (debounced as the person types). */
export class SearchTab {
	private root: HTMLElement | null = null;
	private resultsEl: HTMLElement | null = null;
	private inputEl: HTMLInputElement | null = null;
	private timer: number | undefined;
	private ticket = 0;
	query = "";
	/** The last answer shown (tests read it). */
	last: SearchView | null = null;

	constructor(
		private readonly controller: EngramaController,
		private readonly actions: PanelActions,
	) {}

	render(root: HTMLElement): void {
		this.root = root;
		root.empty();
		const input = root.createEl("input", { cls: "engrama-search-input", type: "search", placeholder: "Search memory…", value: this.query });
		this.inputEl = input;
		input.addEventListener("input", () => {
			this.query = input.value;
			this.schedule();
		});
		this.resultsEl = root.createDiv({ cls: "engrama-results" });
		void this.run();
	}

	/** Searches now (the input is debounced by 250 ms). */
	async search(query: string): Promise<void> {
		this.query = query;
		if (this.inputEl) this.inputEl.value = query;
		await this.run();
	}

	private schedule(): void {
		if (this.timer !== undefined) window.clearTimeout(this.timer);
		this.timer = window.setTimeout(() => {
			this.timer = undefined;
			void this.run();
		}, 250);
	}

	dispose(): void {
		if (this.timer !== undefined) window.clearTimeout(this.timer);
		this.timer = undefined;
	}

	private async run(): Promise<void> {
		const el = this.resultsEl;
		if (!el || !this.root) return;
		const ticket = ++this.ticket;
		const query = this.query.trim();
		const engine = this.controller.host.engine;
		const show = (text: string, cls = "") => {
			el.empty();
			el.createDiv({ cls: `engrama-empty ${cls}`.trim(), text });
		};
		if (!engine) return show("Engrama is starting…");
		if (query === "") return show("Type to search names, ideas and questions across the graph.");
		show("Searching…", "is-loading");
		try {
			const view = await engine.skills.search(engine.scope, query, { limit: 25 });
			if (ticket !== this.ticket) return;
			this.last = view;
			el.empty();
			const hint = wordsOnlyHint(view, !engine.embedderReady && engine.config.embedding.provider === "local");
			if (hint) el.createDiv({ cls: "engrama-hint", text: hint });
			if (view.proactive_hint) {
				const proactive = el.createDiv({ cls: "engrama-proactive-hint", text: view.proactive_hint, attr: { title: "Open the Insights to review" } });
				proactive.addEventListener("click", () => void this.actions.showInsights());
			}
			if (view.results.length === 0) {
				el.createDiv({ cls: "engrama-empty", text: "No matching memories. Try other words, or sync the vault first." });
				return;
			}
			for (const result of view.results) {
				const row = el.createDiv({ cls: "engrama-result-row" });
				renderResult(row, result, topScore(view));
				renderPassages(row, result, (line) => void this.actions.openNode(result.node_id, { line }));
				row.addEventListener("click", () => void this.actions.openNode(result.node_id));
			}
		} catch (error) {
			if (ticket === this.ticket) show(`Search failed: ${errorMessage(error)}`, "is-error");
		}
	}
}
