import { Platform, Setting, type ButtonComponent, type DropdownComponent } from "obsidian";
import { describeLanguages, mostlyEnglish } from "../../engine/plain-values";
import { errorMessage } from "../../engine/errors";
import type { EngramaController } from "../engrama-controller";
import { choicesOf, type FirstRunChoices, type FirstRunPreview } from "../first-run";
import { DEFAULT_LOCAL_MODEL, LOCAL_MODELS, MULTILINGUAL_LOCAL_MODEL } from "../local-model/catalogue";
import { formatCount } from "../notices";
import { parseFolderList } from "../settings";
import type { PanelActions } from "./panel-actions";

/** What the welcome says about the notes that would get an id, and about git (first run and the switch in settings). */
export function describeIds(preview: Pick<FirstRunPreview, "ids">): string {
	if (preview.ids === 0) return "No note needs an engrama_id: nothing in the vault changes.";
	return `${formatCount(preview.ids)} ${preview.ids === 1 ? "note gets" : "notes get"} one engrama_id line in the frontmatter, a few notes at a time, with progress and a cancel button.`;
}

export const GIT_HINT = "This vault is a git repository: every note that gets an engrama_id shows as changed. Commit your work first, then commit the ids on their own.";

/**
 * The panel on a first run (no data.json in this vault): what Engrama does, a dry run's figures,
 * the choices that matter, and Start. Nothing in the vault changes before Start; the figures come
 * from a memory that lives in this window only (first-run.ts).
 */
export class WelcomePanel {
	private choices: FirstRunChoices;
	private figuresEl: HTMLElement | null = null;
	private startButton: ButtonComponent | null = null;
	private previewTimer: number | undefined;
	/** Which preview is current: a slower earlier one must not overwrite a newer one's figures. */
	private generation = 0;
	private started = false;
	private modelDesc: HTMLElement | null = null;
	private modelDropdown: DropdownComponent | null = null;
	/** The person picked a model: the dry run's languages no longer change it. */
	private modelChosen = false;
	/** The last preview's figures (tests compare them with what the start did). */
	lastPreview: FirstRunPreview | null = null;

	constructor(
		private readonly controller: EngramaController,
		private readonly actions: PanelActions,
	) {
		this.choices = choicesOf(controller.settings, Platform.isDesktopApp);
	}

	render(el: HTMLElement): void {
		el.empty();
		el.addClass("engrama-welcome");
		el.createDiv({ cls: "engrama-welcome-title", text: "Welcome to Engrama" });
		el.createEl("p", {
			text: "Engrama keeps a graph memory of this vault: each note becomes a node, its links and typed properties become relations, and search finds notes by words, links and, with a model, by meaning. AI agents can use it over MCP when you turn that on.",
		});
		el.createEl("p", { cls: "engrama-welcome-promise", text: "Nothing in the vault changes until you start with the button below. The figures come from a dry run that wrote nothing." });
		this.figuresEl = el.createDiv({ cls: "engrama-welcome-figures" });
		this.renderChoices(el.createDiv({ cls: "engrama-welcome-choices" }));
		const actions = new Setting(el).setClass("engrama-welcome-start");
		actions.addButton((b) => {
			this.startButton = b.setButtonText("Start").setCta().onClick(() => void this.start());
		});
		this.schedulePreview(0);
	}

	private renderChoices(el: HTMLElement): void {
		new Setting(el)
			.setName("Note identity")
			.setDesc(
				"An engrama_id in each note's frontmatter keeps a note's memory through renames and moves made outside Obsidian (a file manager, git), and touches every note once. By path touches no note; a rename made outside Obsidian then looks like a new note.",
			)
			.addDropdown((d) =>
				d
					.addOption("ids", "An engrama_id in each note")
					.addOption("paths", "By path, touch no note")
					.setValue(this.choices.writeIds ? "ids" : "paths")
					.onChange((v) => this.change({ writeIds: v === "ids" })),
			);
		new Setting(el)
			.setName("Folders to leave out")
			.setDesc("Notes in these folders are not indexed (comma-separated), such as templates or an archive.")
			.addText((t) => t.setValue(this.choices.excludeFolders.join(", ")).onChange((v) => this.change({ excludeFolders: parseFolderList(v) })));
		new Setting(el)
			.setName("Agents may write notes")
			.setDesc("When an agent connected over MCP remembers something, Engrama writes it as a note in the Engrama folder, so the vault stays your record. Off: agents' memories stay in the database only.")
			.addToggle((t) => t.setValue(this.choices.agentsWriteNotes).onChange((v) => this.change({ agentsWriteNotes: v })));
		const model = new Setting(el).setName("Download the local model");
		this.modelDesc = model.descEl;
		this.describeModel();
		model.addDropdown((d) => {
			for (const m of LOCAL_MODELS) d.addOption(m.id, m.label);
			if (!LOCAL_MODELS.some((m) => m.id === this.choices.model)) d.addOption(this.choices.model, this.choices.model);
			this.modelDropdown = d.setValue(this.choices.model).onChange((v) => {
				this.modelChosen = true;
				this.change({ model: v }, false);
				this.describeModel();
			});
		});
		model.addToggle((t) => t.setValue(this.choices.downloadModel).onChange((v) => this.change({ downloadModel: v }, false)));
	}

	/** The model's size and what it adds; after the dry run, the vault's languages and why this model. */
	private describeModel(): void {
		const el = this.modelDesc;
		if (!el) return;
		const model = LOCAL_MODELS.find((m) => m.id === this.choices.model);
		el.empty();
		el.createDiv({
			text: `${model?.label ?? this.choices.model}: about ${model?.approxMB ?? 25} MB, plus 14 MB of runtime the first time. It adds search by meaning (a search for “stale cache” finds a note about outdated totals); without it search matches words and links only. It runs on this device; no note leaves it. It downloads from the model hub after the start, with progress; search by meaning is turned on once it is here.`,
		});
		const languages = this.lastPreview?.languages ?? [];
		if (languages.length === 0) return;
		const english = mostlyEnglish(languages);
		el.createDiv({
			cls: "engrama-welcome-languages",
			text: english
				? `Your notes are mostly English (${describeLanguages(languages)}).`
				: `Your notes are mostly in other languages than English (${describeLanguages(languages)}): the multilingual model reads them; the English models match their words only loosely.`,
		});
	}

	/** A vault mostly not in English is offered the multilingual model, unless the person chose one. */
	private fitModel(preview: FirstRunPreview): void {
		if (!this.modelChosen && this.choices.model === DEFAULT_LOCAL_MODEL && !mostlyEnglish(preview.languages)) {
			this.choices = { ...this.choices, model: MULTILINGUAL_LOCAL_MODEL };
			this.modelDropdown?.setValue(MULTILINGUAL_LOCAL_MODEL);
		}
		this.describeModel();
	}

	private change(patch: Partial<FirstRunChoices>, refigure = true): void {
		this.choices = { ...this.choices, ...patch };
		if (refigure) this.schedulePreview(400);
	}

	/** Typing in the folder field settles before the dry run runs again. */
	private schedulePreview(delayMs: number): void {
		if (this.previewTimer !== undefined) window.clearTimeout(this.previewTimer);
		this.previewTimer = window.setTimeout(() => {
			this.previewTimer = undefined;
			void this.refresh();
		}, delayMs);
	}

	/** Runs the dry run for the current choices and shows its figures. */
	async refresh(): Promise<FirstRunPreview | null> {
		const el = this.figuresEl;
		if (!el || this.started) return null;
		const generation = ++this.generation;
		el.empty();
		el.createDiv({ cls: "engrama-empty is-loading", text: "Reading the vault (a dry run that writes nothing)…" });
		this.startButton?.setDisabled(true);
		try {
			const preview = await this.controller.preview(this.choices);
			if (generation !== this.generation) return null;
			this.lastPreview = preview;
			this.showFigures(el, preview);
			this.fitModel(preview);
			this.startButton?.setDisabled(false);
			return preview;
		} catch (error) {
			if (generation !== this.generation) return null;
			el.empty();
			el.createDiv({ cls: "engrama-empty is-error", text: `The dry run failed: ${errorMessage(error)}` });
			// Starting still works: the real sync reports each note's problem.
			this.startButton?.setDisabled(false);
			return null;
		}
	}

	private showFigures(el: HTMLElement, preview: FirstRunPreview): void {
		el.empty();
		const list = el.createEl("ul", { cls: "engrama-welcome-list" });
		list.createEl("li", {
			text: `${formatCount(preview.notes)} notes will be indexed, with ${formatCount(preview.relations)} relations (${formatCount(preview.stubs)} to notes that do not exist yet).`,
		});
		list.createEl("li", { cls: "engrama-welcome-ids", text: this.choices.writeIds ? describeIds(preview) : "No note is touched: notes are followed by their path." });
		for (const skip of preview.skipped) {
			const item = list.createEl("li", { text: `${formatCount(skip.count)} ${skip.count === 1 ? "note is" : "notes are"} skipped: ${skip.reason}.` });
			if (skip.examples.length > 0) item.createDiv({ cls: "engrama-muted", text: skip.examples.join("; ") });
		}
		if (preview.skipped.length === 0) list.createEl("li", { text: "No note is skipped." });
		if (preview.git && this.choices.writeIds && preview.ids > 0) el.createDiv({ cls: "engrama-hint engrama-welcome-git", text: GIT_HINT });
	}

	/** Start: the choices are saved, the vault is indexed, ids are written (paced), the model downloads. */
	async start(): Promise<void> {
		if (this.started) return;
		this.started = true;
		if (this.previewTimer !== undefined) window.clearTimeout(this.previewTimer);
		this.generation++;
		this.startButton?.setDisabled(true).setButtonText("Starting…");
		const choices = this.choices;
		await this.controller.begin(choices);
		if (choices.downloadModel && !this.controller.awaitingStart) await this.actions.downloadAndUseLocalModel(choices.model);
	}

	dispose(): void {
		if (this.previewTimer !== undefined) window.clearTimeout(this.previewTimer);
		this.generation++;
	}
}
