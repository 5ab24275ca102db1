import { Modal, Setting, type App } from "obsidian";
import { destructive } from "./destructive";
import type { SyncReport } from "../../engine/sync/sync-report";
import { formatCount } from "../notices";

/** Asks a yes/no question; resolves true only when the person confirms. */
export class ConfirmModal extends Modal {
	private decided = false;

	constructor(
		app: App,
		private readonly title: string,
		private readonly message: string,
		private readonly confirmText: string,
		private readonly resolve: (ok: boolean) => void,
		private readonly warning = false,
	) {
		super(app);
	}

	override onOpen(): void {
		this.setTitle(this.title);
		this.contentEl.addClass("engrama-modal");
		for (const line of this.message.split("\n")) this.contentEl.createEl("p", { text: line });
		new Setting(this.contentEl)
			.addButton((b) =>
				b.setButtonText("Cancel").onClick(() => {
					this.close();
				}),
			)
			.addButton((b) => {
				b.setButtonText(this.confirmText).onClick(() => {
					this.decided = true;
					this.close();
					this.resolve(true);
				});
				if (this.warning) destructive(b);
				else b.setCta();
			});
	}

	override onClose(): void {
		this.contentEl.empty();
		if (!this.decided) this.resolve(false);
	}
}

export function confirm(app: App, title: string, message: string, confirmText: string, warning = false): Promise<boolean> {
	return new Promise((resolve) => new ConfirmModal(app, title, message, confirmText, resolve, warning).open());
}

/** Asks for optional text (a dismissal reason); resolves null when cancelled. */
export class TextPromptModal extends Modal {
	private value = "";
	private decided = false;

	constructor(
		app: App,
		private readonly title: string,
		private readonly label: string,
		private readonly placeholder: string,
		private readonly submitText: string,
		private readonly resolve: (value: string | null) => void,
	) {
		super(app);
	}

	override onOpen(): void {
		this.setTitle(this.title);
		this.contentEl.addClass("engrama-modal");
		new Setting(this.contentEl).setName(this.label).addText((t) => {
			t.setPlaceholder(this.placeholder).onChange((v) => (this.value = v));
			t.inputEl.addClass("engrama-prompt-input");
			t.inputEl.addEventListener("keydown", (evt) => {
				if (evt.key === "Enter") this.submit();
			});
		});
		new Setting(this.contentEl)
			.addButton((b) => b.setButtonText("Cancel").onClick(() => this.close()))
			.addButton((b) => b.setButtonText(this.submitText).setCta().onClick(() => this.submit()));
	}

	private submit(): void {
		this.decided = true;
		this.close();
		this.resolve(this.value.trim());
	}

	override onClose(): void {
		this.contentEl.empty();
		if (!this.decided) this.resolve(null);
	}
}

export function promptText(app: App, title: string, label: string, placeholder: string, submitText: string): Promise<string | null> {
	return new Promise((resolve) => new TextPromptModal(app, title, label, placeholder, submitText, resolve).open());
}

/** The dry run of a full sync: what would change, then Apply or Cancel. */
export class SyncPreviewModal extends Modal {
	private decided = false;

	constructor(
		app: App,
		private readonly report: SyncReport,
		private readonly resolve: (apply: boolean) => void,
	) {
		super(app);
	}

	override onOpen(): void {
		const { report } = this;
		const c = report.counts;
		this.setTitle("Sync vault to graph");
		this.contentEl.addClass("engrama-modal", "engrama-sync-preview");
		this.contentEl.createEl("p", { text: `Checked ${formatCount(c.filesScanned)} notes (${formatCount(c.filesUnchanged)} unchanged). A sync would:` });
		const table = this.contentEl.createEl("table", { cls: "engrama-counts" });
		const rows: [string, number][] = [
			["Create nodes", c.nodesCreated],
			["Update nodes", c.nodesUpdated],
			["Archive nodes (notes deleted)", c.nodesArchived],
			["Follow moved notes", c.nodesMoved],
			["Create stubs for unknown targets", c.stubsCreated],
			["Add relations", c.relationsAdded],
			["Remove relations", c.relationsRemoved],
			["Write engrama_id into notes", report.idsWritten.length],
			["Write notes for agent memories", report.notesWritten.length],
		];
		for (const [name, value] of rows) {
			const tr = table.createEl("tr");
			tr.createEl("td", { text: name });
			tr.createEl("td", { cls: "engrama-count", text: formatCount(value) });
		}
		if (report.idsWritten.length > 0) {
			const details = this.contentEl.createEl("details");
			details.createEl("summary", { text: `Notes that would get an engrama_id (${formatCount(report.idsWritten.length)})` });
			const list = details.createEl("ul", { cls: "engrama-path-list" });
			for (const path of report.idsWritten.slice(0, 200)) list.createEl("li", { text: path });
			if (report.idsWritten.length > 200) list.createEl("li", { text: `…and ${formatCount(report.idsWritten.length - 200)} more` });
		}
		if (report.problems.length > 0) {
			const details = this.contentEl.createEl("details", { cls: "engrama-problems" });
			details.createEl("summary", { text: `Notes that need attention (${formatCount(report.problems.length)})` });
			const list = details.createEl("ul");
			for (const p of report.problems.slice(0, 100)) {
				const li = list.createEl("li");
				li.createEl("strong", { text: p.path });
				li.createSpan({ text: `: ${p.problem} ${p.action}` });
			}
		}
		const nothing = c.nodesCreated + c.nodesUpdated + c.nodesArchived + c.nodesMoved + c.relationsAdded + c.relationsRemoved + report.idsWritten.length;
		new Setting(this.contentEl)
			.addButton((b) => b.setButtonText("Cancel").onClick(() => this.close()))
			.addButton((b) =>
				b
					.setButtonText(nothing === 0 && report.notesWritten.length === 0 ? "Sync anyway" : "Apply")
					.setCta()
					.onClick(() => {
						this.decided = true;
						this.close();
						this.resolve(true);
					}),
			);
	}

	override onClose(): void {
		this.contentEl.empty();
		if (!this.decided) this.resolve(false);
	}
}

export function previewSync(app: App, report: SyncReport): Promise<boolean> {
	return new Promise((resolve) => new SyncPreviewModal(app, report, resolve).open());
}
