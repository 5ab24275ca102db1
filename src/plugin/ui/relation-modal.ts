import { Modal, Setting, TFile, type App } from "obsidian";
import { errorMessage } from "../../engine/errors";
import type { NodeRecord } from "../../engine/types";
import type { Engine } from "../engine-host";
import { notePathOf } from "./open-note";
import { relationHeading } from "./relation-text";

export interface RelationChoice {
	readonly type: string;
	/** The target as written into the note: a wikilink when the target has a note, else its name. */
	readonly target: string;
	readonly targetName: string;
}

/**
 * Adds a relation from the current note's node: the type is limited to what the profile allows
 * from its label, and the target is suggested by the entity resolver as the person types.
 */
export class RelationModal extends Modal {
	private type = "";
	private targetText = "";
	private picked: NodeRecord | null = null;
	private suggestionsEl!: HTMLElement;
	private decided = false;
	private lookup = 0;

	constructor(
		app: App,
		private readonly engine: Engine,
		private readonly node: NodeRecord,
		private readonly resolve: (choice: RelationChoice | null) => void,
	) {
		super(app);
	}

	/** Relation types the profile allows from this node's label. */
	types(): string[] {
		const profile = this.engine.profile;
		return profile.relationTypes().filter((t) => profile.allowedTargets(t, this.node.label).length > 0);
	}

	override onOpen(): void {
		this.setTitle(`Add a relation from ${this.node.key}`);
		this.contentEl.addClass("engrama-modal", "engrama-relation-modal");
		const types = this.types();
		if (types.length === 0) {
			this.contentEl.createEl("p", { text: `The profile allows no relations from ${this.node.label}. Choose another profile or module in the settings.` });
			return;
		}
		this.type = types[0] ?? "";
		new Setting(this.contentEl)
			.setName("Relation type")
			.setDesc(`Types the profile allows from ${this.node.label}.`)
			.addDropdown((d) => {
				for (const t of types) d.addOption(t, relationHeading(t));
				d.setValue(this.type).onChange((v) => {
					this.type = v;
					void this.suggest();
				});
			});
		new Setting(this.contentEl)
			.setName("Target")
			.setDesc("A name; matching entities are suggested below.")
			.addText((t) => {
				t.setPlaceholder("Name of the target").onChange((v) => {
					this.targetText = v;
					this.picked = null;
					void this.suggest();
				});
				t.inputEl.addClass("engrama-relation-target");
				t.inputEl.addEventListener("keydown", (evt) => {
					if (evt.key === "Enter") this.submit();
				});
			});
		this.suggestionsEl = this.contentEl.createDiv({ cls: "engrama-suggestions" });
		new Setting(this.contentEl)
			.addButton((b) => b.setButtonText("Cancel").onClick(() => this.close()))
			.addButton((b) => b.setButtonText("Add relation").setCta().onClick(() => this.submit()));
	}

	/** Resolver candidates for the typed name, limited to labels the type may point at. */
	async suggest(): Promise<void> {
		const ticket = ++this.lookup;
		const query = this.targetText.trim();
		if (query === "") {
			this.suggestionsEl.empty();
			return;
		}
		const allowed = new Set(this.engine.profile.allowedTargets(this.type, this.node.label));
		let candidates: NodeRecord[] = [];
		try {
			const scored = await this.engine.skills.resolver.candidates(this.engine.scope, query);
			candidates = scored.map((c) => c.node).filter((n) => allowed.has(n.label) && n.id !== this.node.id && n.props.status !== "archived");
		} catch (error) {
			if (ticket !== this.lookup) return;
			this.suggestionsEl.empty();
			this.suggestionsEl.createDiv({ cls: "engrama-hint", text: `Suggestions failed: ${errorMessage(error)}` });
			return;
		}
		if (ticket !== this.lookup) return;
		this.suggestionsEl.empty();
		if (candidates.length === 0) {
			this.suggestionsEl.createDiv({ cls: "engrama-hint", text: `No match: "${query}" will become a new stub.` });
			return;
		}
		for (const candidate of candidates.slice(0, 8)) {
			const row = this.suggestionsEl.createDiv({ cls: "engrama-suggestion" });
			row.createSpan({ cls: "engrama-label-badge", text: candidate.label });
			row.createSpan({ text: candidate.key });
			row.addEventListener("click", () => {
				this.picked = candidate;
				this.targetText = candidate.key;
				for (const other of Array.from(this.suggestionsEl.children)) other.removeClass("is-selected");
				row.addClass("is-selected");
			});
		}
	}

	private submit(): void {
		const name = (this.picked?.key ?? this.targetText).trim();
		if (name === "" || this.type === "") return;
		const path = this.picked ? notePathOf(this.picked) : null;
		const file = path ? this.app.vault.getAbstractFileByPath(path) : null;
		const target = file instanceof TFile ? `[[${file.basename}]]` : name;
		this.decided = true;
		this.close();
		this.resolve({ type: this.type, target, targetName: name });
	}

	override onClose(): void {
		this.contentEl.empty();
		if (!this.decided) this.resolve(null);
	}
}

export function chooseRelation(app: App, engine: Engine, node: NodeRecord): Promise<RelationChoice | null> {
	return new Promise((resolve) => new RelationModal(app, engine, node, resolve).open());
}

/** Adds `target` under `relations[type]` in the frontmatter (a list; duplicates ignored). */
export function addRelationToFrontmatter(frontmatter: Record<string, unknown>, type: string, target: string): boolean {
	const raw = frontmatter.relations;
	const relations: Record<string, unknown> = raw && typeof raw === "object" && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
	const existing = relations[type];
	const list: unknown[] = Array.isArray(existing) ? [...(existing as unknown[])] : existing === undefined || existing === null ? [] : [existing];
	const bare = (v: unknown) => (typeof v === "string" ? v.replace(/^\[\[|\]\]$/g, "").split("|")[0]?.trim().toLowerCase() : "");
	if (list.some((v) => bare(v) === bare(target))) return false;
	list.push(target);
	relations[type] = list;
	frontmatter.relations = relations;
	return true;
}
