// UI: notices, modals, suggesters, fuzzy search. Part of the one fake of `obsidian`: import it through tests/fakes/obsidian.ts.
import { type App } from "./app";
import { requireApiVersion } from "./util";

/** Every Notice shown, newest last (tests read what the person was told). */
export const fakeNotices: Notice[] = [];

export class Notice {
	readonly containerEl: HTMLElement;
	readonly noticeEl: HTMLElement;
	/** Since 1.8.7 (undefined when the fake plays an older app). */
	readonly messageEl!: HTMLElement;
	private readonly textEl: HTMLElement;
	// Obsidian's own timer, not the plugin's: kept out of the leak count (fakeActiveTimers).
	private timer: ReturnType<typeof setTimeout> | undefined;
	hidden = false;

	constructor(message: string | DocumentFragment, duration?: number) {
		this.containerEl = document.body.createDiv({ cls: "notice-container" });
		this.noticeEl = this.containerEl.createDiv({ cls: "notice" });
		this.textEl = this.noticeEl.createDiv({ cls: "notice-message" });
		// Added to the API in 1.8.7: older apps have no such property.
		if (requireApiVersion("1.8.7")) this.messageEl = this.textEl;
		this.textEl.setText(message);
		fakeNotices.push(this);
		if (duration !== 0) {
			this.timer = setTimeout(() => this.hide(), duration ?? 5000);
			(this.timer as { unref?: () => void }).unref?.();
		}
	}

	hide(): void {
		if (this.timer !== undefined) clearTimeout(this.timer);
		this.timer = undefined;
		this.hidden = true;
		this.containerEl.remove();
	}

	/** Test helper: the text of the notice. */
	get text(): string {
		return this.noticeEl.textContent ?? "";
	}
}

/** Modals currently open, newest last. */
export const fakeOpenModals: Modal[] = [];

export class Modal {
	readonly app: App;
	readonly containerEl: HTMLElement;
	readonly modalEl: HTMLElement;
	readonly titleEl: HTMLElement;
	readonly contentEl: HTMLElement;
	private isOpen = false;

	constructor(app: App) {
		this.app = app;
		this.containerEl = createDiv({ cls: "modal-container" });
		this.containerEl.createDiv({ cls: "modal-bg" });
		this.modalEl = this.containerEl.createDiv({ cls: "modal" });
		const close = this.modalEl.createDiv({ cls: "modal-close-button" });
		close.addEventListener("click", () => this.close());
		this.titleEl = this.modalEl.createDiv({ cls: "modal-title" });
		this.contentEl = this.modalEl.createDiv({ cls: "modal-content" });
	}

	open(): void {
		if (this.isOpen) return;
		this.isOpen = true;
		document.body.appendChild(this.containerEl);
		fakeOpenModals.push(this);
		void this.onOpen();
	}

	close(): void {
		if (!this.isOpen) return;
		this.isOpen = false;
		const at = fakeOpenModals.indexOf(this);
		if (at >= 0) fakeOpenModals.splice(at, 1);
		this.containerEl.remove();
		void this.onClose();
	}

	onOpen(): void | Promise<void> {}

	onClose(): void | Promise<void> {}

	setTitle(title: string): this {
		this.titleEl.setText(title);
		return this;
	}
}

export abstract class SuggestModal<T> extends Modal {
	readonly inputEl: HTMLInputElement;
	readonly resultContainerEl: HTMLElement;
	/** The suggestions currently shown (after the last query settled). */
	suggestions: T[] = [];

	constructor(app: App) {
		super(app);
		this.modalEl.addClass("prompt");
		this.inputEl = this.modalEl.createEl("input", { cls: "prompt-input", type: "text" });
		this.resultContainerEl = this.modalEl.createDiv({ cls: "prompt-results" });
	}

	override open(): void {
		super.open();
		void this.updateSuggestions();
	}

	setPlaceholder(placeholder: string): void {
		this.inputEl.setAttribute("placeholder", placeholder);
	}

	private async updateSuggestions(): Promise<void> {
		const query = this.inputEl.value;
		const items = await this.getSuggestions(query);
		if (query !== this.inputEl.value) return;
		this.suggestions = items;
		this.resultContainerEl.empty();
		this.suggestions.forEach((item) => {
			const el = this.resultContainerEl.createDiv({ cls: "suggestion-item" });
			this.renderSuggestion(item, el);
			el.addEventListener("click", (evt) => this.selectSuggestion(item, evt as MouseEvent));
		});
	}

	selectSuggestion(value: T, evt: MouseEvent | KeyboardEvent): void {
		this.close();
		void this.onChooseSuggestion(value, evt);
	}

	/** Test helper: types a query and waits for the suggestions. */
	async fakeType(query: string): Promise<T[]> {
		this.inputEl.value = query;
		await this.updateSuggestions();
		return this.suggestions;
	}

	abstract getSuggestions(query: string): T[] | Promise<T[]>;
	abstract renderSuggestion(value: T, el: HTMLElement): void;
	abstract onChooseSuggestion(item: T, evt: MouseEvent | KeyboardEvent): void;
}

export interface SearchResult {
	score: number;
	matches: [number, number][];
}

export interface FuzzyMatch<T> {
	item: T;
	match: SearchResult;
}

/** Subsequence match, like Obsidian's fuzzy search (simplified scoring). */
export function prepareFuzzySearch(query: string): (text: string) => SearchResult | null {
	const q = query.toLowerCase().replace(/\s+/g, "");
	return (text: string) => {
		const t = text.toLowerCase();
		const matches: [number, number][] = [];
		let from = 0;
		for (const ch of q) {
			const at = t.indexOf(ch, from);
			if (at < 0) return null;
			matches.push([at, at + 1]);
			from = at + 1;
		}
		const span = matches.length > 0 ? (matches[matches.length - 1]?.[1] ?? 0) - (matches[0]?.[0] ?? 0) : 0;
		return { score: q.length === 0 ? 0 : -span / Math.max(1, t.length), matches };
	};
}

export abstract class FuzzySuggestModal<T> extends SuggestModal<FuzzyMatch<T>> {
	getSuggestions(query: string): FuzzyMatch<T>[] {
		const search = prepareFuzzySearch(query);
		const out: FuzzyMatch<T>[] = [];
		for (const item of this.getItems()) {
			const match = search(this.getItemText(item));
			if (match) out.push({ item, match });
		}
		return query.trim() === "" ? out : out.sort((a, b) => b.match.score - a.match.score);
	}

	renderSuggestion(value: FuzzyMatch<T>, el: HTMLElement): void {
		el.setText(this.getItemText(value.item));
	}

	onChooseSuggestion(item: FuzzyMatch<T>, evt: MouseEvent | KeyboardEvent): void {
		this.onChooseItem(item.item, evt);
	}

	abstract getItems(): T[];
	abstract getItemText(item: T): string;
	abstract onChooseItem(item: T, evt: MouseEvent | KeyboardEvent): void;
}
