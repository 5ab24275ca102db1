import { errorMessage } from "../../engine/errors";
import type { InsightStatus, InsightView } from "../../engine";
import type { EngramaController } from "../engrama-controller";
import { approveInsight, dismissInsight, insightsWithStatus } from "../insight-actions";
import { noticeError, noticeInfo } from "../notices";
import type { PanelActions } from "./panel-actions";

const STATUS_TABS: readonly { status: InsightStatus; name: string }[] = [
	{ status: "pending", name: "To review" },
	{ status: "approved", name: "Approved" },
	{ status: "dismissed", name: "Dismissed" },
];

/** Pending Insights with Approve / Dismiss / Write to note, and the reviewed history. */
export class InsightsTab {
	private status: InsightStatus = "pending";
	private items: InsightView[] = [];
	private loading = false;
	private error: string | null = null;
	private root: HTMLElement | null = null;

	constructor(
		private readonly controller: EngramaController,
		private readonly actions: PanelActions,
	) {}

	/** The Insights currently listed (tests and the approve/dismiss commands read it). */
	get shown(): readonly InsightView[] {
		return this.items;
	}

	get statusFilter(): InsightStatus {
		return this.status;
	}

	async setStatus(status: InsightStatus): Promise<void> {
		// Another list: do not show the old cards under the new filter while loading.
		if (status !== this.status) this.items = [];
		this.status = status;
		await this.reload();
	}

	render(root: HTMLElement): Promise<void> {
		this.root = root;
		return this.reload();
	}

	async reload(): Promise<void> {
		const engine = this.controller.host.engine;
		if (!engine) {
			this.items = [];
			this.error = null;
			this.draw();
			return;
		}
		this.loading = true;
		this.draw();
		try {
			this.items = await insightsWithStatus(engine, this.status);
			this.error = null;
			const selected = this.controller.selectedInsight;
			if (this.status === "pending" && (selected === null || !this.items.some((i) => i.title === selected))) {
				this.controller.selectedInsight = this.items[0]?.title ?? null;
			}
		} catch (error) {
			this.error = errorMessage(error);
		} finally {
			this.loading = false;
		}
		this.draw();
	}

	private draw(): void {
		const root = this.root;
		if (!root) return;
		root.empty();
		const bar = root.createDiv({ cls: "engrama-toolbar" });
		const filters = bar.createDiv({ cls: "engrama-segmented" });
		for (const tab of STATUS_TABS) {
			const button = filters.createEl("button", { text: tab.name, cls: tab.status === this.status ? "is-active" : "" });
			button.addEventListener("click", () => void this.setStatus(tab.status));
		}
		const reflectButton = bar.createEl("button", { cls: "engrama-reflect-button", text: "Reflect now" });
		reflectButton.addEventListener("click", () => void this.actions.reflect().then(() => this.setStatus("pending")));

		const engineState = this.controller.host.state;
		if (engineState.kind !== "ready") {
			this.empty(root, engineState.kind === "failed" ? `Engrama could not open its memory: ${engineState.error}` : "Engrama is starting…");
			return;
		}
		if (this.loading && this.items.length === 0) {
			this.empty(root, "Loading Insights…", "is-loading");
			return;
		}
		if (this.error) {
			this.empty(root, `Could not load Insights: ${this.error}. Try again, or check the Engrama settings.`, "is-error");
			return;
		}
		if (this.items.length === 0) {
			const text =
				this.status === "pending"
					? "Nothing to review. Press Reflect now to look for patterns across your notes."
					: this.status === "approved"
						? "No approved Insights yet. Approve one from To review."
						: "No dismissed Insights.";
			this.empty(root, text);
			return;
		}
		const list = root.createDiv({ cls: "engrama-insights" });
		for (const insight of this.items) this.card(list, insight);
	}

	private empty(root: HTMLElement, text: string, cls = ""): void {
		root.createDiv({ cls: `engrama-empty ${cls}`.trim(), text });
	}

	private card(list: HTMLElement, insight: InsightView): void {
		const selected = this.controller.selectedInsight === insight.title;
		const card = list.createDiv({ cls: `engrama-insight${selected ? " is-selected" : ""}` });
		card.dataset.title = insight.title;
		card.addEventListener("click", () => {
			this.controller.selectedInsight = insight.title;
			for (const other of Array.from(list.children)) other.removeClass("is-selected");
			card.addClass("is-selected");
		});
		const head = card.createDiv({ cls: "engrama-insight-head" });
		head.createSpan({ cls: "engrama-insight-title", text: insight.title });
		head.createSpan({ cls: "engrama-confidence", text: `${Math.round(insight.confidence * 100)}%`, attr: { title: "Confidence" } });
		if (insight.detector) card.createDiv({ cls: "engrama-insight-detector", text: insight.detector.replace(/_/g, " ") });
		card.createDiv({ cls: "engrama-insight-body", text: insight.body });
		if (insight.about.length > 0) {
			const about = card.createDiv({ cls: "engrama-insight-about" });
			about.createSpan({ cls: "engrama-muted", text: "About: " });
			insight.about.forEach((entity, i) => {
				if (i > 0) about.appendText(", ");
				const link = about.createEl("a", { cls: "engrama-entity-link", text: entity.name, attr: { title: entity.label } });
				link.addEventListener("click", (evt) => {
					evt.stopPropagation();
					void this.actions.openNode(entity.node_id);
				});
			});
		}
		if (insight.reason) card.createDiv({ cls: "engrama-insight-reason", text: `Reason: ${insight.reason}` });
		if (insight.written_to) card.createDiv({ cls: "engrama-muted", text: `Written to ${insight.written_to}` });
		const buttons = card.createDiv({ cls: "engrama-insight-actions" });
		if (insight.status !== "approved") {
			const approve = buttons.createEl("button", { cls: "mod-cta engrama-approve", text: "Approve" });
			approve.addEventListener("click", (evt) => {
				evt.stopPropagation();
				void this.approve(insight);
			});
		}
		if (insight.status !== "dismissed") {
			const dismiss = buttons.createEl("button", { cls: "engrama-dismiss", text: "Dismiss" });
			dismiss.addEventListener("click", (evt) => {
				evt.stopPropagation();
				void this.dismiss(insight);
			});
		}
		if (insight.status === "approved") {
			const write = buttons.createEl("button", { cls: "engrama-write", text: "Write to note" });
			write.addEventListener("click", (evt) => {
				evt.stopPropagation();
				void this.actions.writeInsight(insight.title).then(() => this.reload());
			});
		}
	}

	async approve(insight: InsightView): Promise<void> {
		try {
			const engine = await this.controller.ready();
			await approveInsight(engine, insight.title);
			noticeInfo(`approved "${insight.title}". Write it to a note from Approved.`);
		} catch (error) {
			noticeError("approving the Insight failed", error);
		}
		await this.reload();
	}

	async dismiss(insight: InsightView): Promise<void> {
		const reason = await this.actions.askReason(insight.title);
		if (reason === null) return;
		try {
			const engine = await this.controller.ready();
			await dismissInsight(engine, insight.title, reason || undefined);
			noticeInfo(`dismissed "${insight.title}". Reflect will not propose it again.`);
		} catch (error) {
			noticeError("dismissing the Insight failed", error);
		}
		await this.reload();
	}
}
