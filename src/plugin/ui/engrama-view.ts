import { ItemView, type WorkspaceLeaf } from "obsidian";
import type { EngramaController } from "../engrama-controller";
import { ContextTab } from "./context-tab";
import { InsightsTab } from "./insights-tab";
import type { PanelActions } from "./panel-actions";
import { SearchTab } from "./search-tab";
import { WelcomePanel } from "./welcome";

export const VIEW_TYPE_ENGRAMA = "engrama-panel";

export type PanelTab = "insights" | "context" | "search";

const TABS: readonly { id: PanelTab; name: string }[] = [
	{ id: "insights", name: "Insights" },
	{ id: "context", name: "Context" },
	{ id: "search", name: "Search" },
];

/** The side panel: Insights to review, the active note's graph context, memory search. */
export class EngramaView extends ItemView {
	readonly insights: InsightsTab;
	readonly context: ContextTab;
	readonly search: SearchTab;
	private tab: PanelTab = "insights";
	private tabsEl!: HTMLElement;
	private bodyEl!: HTMLElement;
	private engineKind = "";
	/** Shown instead of the tabs until the person starts Engrama in this vault. */
	welcome: WelcomePanel | null = null;

	constructor(
		leaf: WorkspaceLeaf,
		private readonly controller: EngramaController,
		private readonly actions: PanelActions,
	) {
		super(leaf);
		this.insights = new InsightsTab(controller, actions);
		this.context = new ContextTab(controller, actions);
		this.search = new SearchTab(controller, actions);
	}

	getViewType(): string {
		return VIEW_TYPE_ENGRAMA;
	}

	getDisplayText(): string {
		return "Engrama";
	}

	override getIcon(): string {
		return "brain-circuit";
	}

	get activeTab(): PanelTab {
		return this.tab;
	}

	override async onOpen(): Promise<void> {
		const root = this.contentEl;
		root.empty();
		root.addClass("engrama-panel");
		this.tabsEl = root.createDiv({ cls: "engrama-tabs", attr: { role: "tablist" } });
		this.bodyEl = root.createDiv({ cls: "engrama-tab-body" });
		this.engineKind = this.stateKey();
		this.register(
			this.controller.onChange(() => {
				// Re-render only when the engine opened, closed or failed, or the welcome ended; the tabs refresh themselves otherwise.
				const kind = this.stateKey();
				if (kind === this.engineKind) return;
				this.engineKind = kind;
				void this.showTab(this.tab);
			}),
		);
		this.register(() => this.welcome?.dispose());
		this.registerEvent(
			this.app.workspace.on("file-open", () => {
				if (this.tab === "context") void this.context.reload();
			}),
		);
		this.register(() => this.search.dispose());
		await this.showTab(this.tab);
	}

	private stateKey(): string {
		return this.controller.awaitingStart ? "welcome" : this.controller.host.state.kind;
	}

	async showTab(tab: PanelTab): Promise<void> {
		this.tab = tab;
		this.tabsEl.empty();
		if (this.controller.awaitingStart) {
			this.bodyEl.empty();
			this.welcome ??= new WelcomePanel(this.controller, this.actions);
			this.welcome.render(this.bodyEl.createDiv({ cls: "engrama-tab-content" }));
			return;
		}
		this.welcome?.dispose();
		this.welcome = null;
		for (const t of TABS) {
			const button = this.tabsEl.createEl("button", {
				cls: `engrama-tab${t.id === tab ? " is-active" : ""}`,
				text: t.name,
				attr: { role: "tab", "aria-selected": t.id === tab ? "true" : "false", "data-tab": t.id },
			});
			button.addEventListener("click", () => void this.showTab(t.id));
		}
		this.bodyEl.empty();
		const body = this.bodyEl.createDiv({ cls: `engrama-tab-content engrama-tab-${tab}` });
		if (tab === "insights") await this.insights.render(body);
		else if (tab === "context") await this.context.render(body);
		else this.search.render(body);
	}

	/** Refreshes whatever the current tab shows (after a sync, a reflect, a review). */
	async refresh(): Promise<void> {
		if (this.tab === "insights") await this.insights.reload();
		else if (this.tab === "context") await this.context.reload();
	}

	override async onClose(): Promise<void> {
		this.contentEl.empty();
		await Promise.resolve();
	}
}
