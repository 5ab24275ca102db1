import { TFile } from "obsidian";
import { errorMessage } from "../../engine/errors";
import type { ContextSkillView, RelatedNoteView, RelatedView } from "../../engine";
import { HIDDEN_PROPS, isSystemInsight } from "../../engine/plain-values";
import type { NodeRecord } from "../../engine/types";
import type { Engine } from "../engine-host";
import type { EngramaController } from "../engrama-controller";
import { drawNeighbourhood, layoutNeighbourhood, type DrawnNeighbourhood, type DrawnNode } from "./neighbourhood-svg";
import { nodeOfFile } from "./open-note";
import type { PanelActions } from "./panel-actions";
import { relationFromNode } from "./relation-text";
import { renderPassage } from "./search-results";

/** A relation of the shown node, seen from it: "out" (node → other) or "in" (other → node). */
interface ShownRelation {
	readonly type: string;
	readonly direction: "out" | "in";
	readonly other: DrawnNode;
}

/** skills.context's answer as the picture and the relation list draw it (the nodes carry their status). */
function drawnContext(view: ContextSkillView): { hood: DrawnNeighbourhood; relations: ShownRelation[] } {
	const center: DrawnNode = { id: view.node.node_id, label: view.node.label, key: view.node.name, props: view.node.props };
	const nodes = view.neighbours.map((n) => ({ node: { id: n.node_id, label: n.label, key: n.name, props: { status: n.status } }, depth: n.depth }));
	const byId = new Map(nodes.map((n) => [n.node.id, n.node]));
	const relations: ShownRelation[] = [];
	for (const r of view.relations) {
		if (r.direction === "between") continue;
		const other = byId.get(r.direction === "out" ? r.to_id : r.from_id);
		if (other) relations.push({ type: r.type, direction: r.direction, other });
	}
	const edges = view.relations.map((r) => ({ fromId: r.from_id, type: r.type, toId: r.to_id }));
	return { hood: { center, nodes, edges, truncated: view.truncated }, relations };
}

/** Ids of reflect's Insights among the neighbours (the context view has no props: read each Insight through the skills). */
async function systemInsightIds(engine: Engine, view: ContextSkillView): Promise<Set<string>> {
	const ids = new Set<string>();
	for (const n of view.neighbours) {
		if (n.label !== "Insight") continue;
		const insight = await engine.skills.get(engine.scope, { label: n.label, name: n.name });
		if (insight && isSystemInsight({ label: insight.label, props: insight.props })) ids.add(n.node_id);
	}
	return ids;
}

function withoutIds(hood: DrawnNeighbourhood, hidden: ReadonlySet<string>): DrawnNeighbourhood {
	const nodes = hood.nodes.filter((n) => !hidden.has(n.node.id));
	const kept = new Set([hood.center.id, ...nodes.map((n) => n.node.id)]);
	return { ...hood, nodes, edges: hood.edges.filter((e) => kept.has(e.fromId) && kept.has(e.toId)) };
}

/** The active note's node: label, key properties, neighbours by relation and direction, a picture. */
export class ContextTab {
	private root: HTMLElement | null = null;
	private ticket = 0;
	/** The node shown, for tests and the status line. */
	node: NodeRecord | null = null;
	/** What skills.context answered for it (tests compare the panel with it). */
	context: ContextSkillView | null = null;
	/** What skills.related answered for it, once the Related notes section is drawn. */
	related: RelatedView | null = null;

	constructor(
		private readonly controller: EngramaController,
		private readonly actions: PanelActions,
	) {}

	render(root: HTMLElement): Promise<void> {
		this.root = root;
		return this.reload();
	}

	async reload(): Promise<void> {
		const root = this.root;
		if (!root) return;
		const ticket = ++this.ticket;
		const engine = this.controller.host.engine;
		const file = this.controller.app.workspace.getActiveFile();
		const show = (text: string, cls = "") => {
			if (ticket !== this.ticket) return;
			this.node = null;
			this.context = null;
			this.related = null;
			root.empty();
			root.createDiv({ cls: `engrama-empty ${cls}`.trim(), text });
		};
		if (!engine) return show(this.controller.host.state.kind === "failed" ? "Engrama could not open its memory. Check the settings." : "Engrama is starting…");
		if (!(file instanceof TFile) || file.extension !== "md") return show("Open a note to see its place in the graph.");
		if (!engine.sync.isSyncedPath(file.path) || !engine.source.isVisible(file.path)) {
			return show("This note is outside the synced folders. Change the folders in the Engrama settings to include it.");
		}
		if (root.childElementCount === 0) show("Loading the graph context…", "is-loading");
		try {
			const node = await nodeOfFile(this.controller.app, engine, file);
			if (ticket !== this.ticket) return;
			if (!node) {
				show("This note is not in the graph yet.");
				const button = root.createEl("button", { cls: "mod-cta", text: "Sync this note" });
				button.addEventListener("click", () => void this.actions.syncCurrentNote().then(() => this.reload()));
				return;
			}
			// The same skill as `engrama context` and engrama_context: one engine face.
			const view = await engine.skills.context(engine.scope, { label: node.label, name: node.key }, 2);
			const hidden = view ? await systemInsightIds(engine, view) : new Set<string>();
			if (ticket !== this.ticket) return;
			this.node = node;
			this.context = view;
			this.related = null;
			root.empty();
			const drawn = view ? drawnContext(view) : null;
			// Reflect's Insights about this node live in the Insights tab; here they would bury the real neighbours.
			const relations = (drawn?.relations ?? []).filter((r) => !hidden.has(r.other.id));
			this.drawNode(root, node, relations, drawn ? withoutIds(drawn.hood, hidden) : null);
			// Filled after the graph is on screen (reload does not wait for it), dropped when another note became active meanwhile.
			void this.drawRelated(root.createDiv({ cls: "engrama-related" }), engine, node, ticket);
		} catch (error) {
			show(`Could not read the graph: ${errorMessage(error)}`, "is-error");
		}
	}

	private async drawRelated(el: HTMLElement, engine: Engine, node: NodeRecord, ticket: number): Promise<void> {
		el.createDiv({ cls: "engrama-empty is-loading", text: "Finding related notes…" });
		try {
			// Between its queries the engine waits a task, so keys typed meanwhile are handled.
			const pause = () => new Promise<void>((resolve) => window.setTimeout(resolve, 0));
			const view = await engine.skills.related(engine.scope, { label: node.label, name: node.key }, { pause });
			if (ticket !== this.ticket || !view) return;
			this.related = view;
			relatedSection(el, view, (note, line) => void this.actions.openNode(note.node_id, line ? { line } : undefined));
		} catch (error) {
			if (ticket !== this.ticket) return;
			el.empty();
			// The graph above stays: only this section failed.
			el.createDiv({ cls: "engrama-empty is-error", text: `Could not find related notes: ${errorMessage(error)}` });
		}
	}

	private drawNode(root: HTMLElement, node: NodeRecord, edges: readonly ShownRelation[], hood: DrawnNeighbourhood | null): void {
		const head = root.createDiv({ cls: "engrama-node-head" });
		head.createSpan({ cls: "engrama-label-badge", text: node.label });
		head.createSpan({ cls: "engrama-node-name", text: node.key });
		const status = typeof node.props.status === "string" ? node.props.status : "active";
		const confidence = typeof node.props.confidence === "number" ? node.props.confidence : 1;
		const meta = root.createDiv({ cls: "engrama-node-meta" });
		meta.createSpan({ cls: `engrama-status status-${status}`, text: status });
		meta.createSpan({ cls: "engrama-confidence", text: `confidence ${Math.round(confidence * 100)}%` });
		const summary = node.props.description ?? node.props.summary;
		if (typeof summary === "string" && summary !== "") root.createDiv({ cls: "engrama-node-summary", text: summary });

		const props = Object.entries(node.props).filter(([k, v]) => !HIDDEN_PROPS.has(k) && v !== null && v !== "");
		if (props.length > 0) {
			const table = root.createEl("table", { cls: "engrama-props" });
			for (const [key, value] of props.slice(0, 12)) {
				const tr = table.createEl("tr");
				tr.createEl("td", { cls: "engrama-muted", text: key });
				tr.createEl("td", { text: propText(value) });
			}
		}

		if (hood && hood.nodes.length > 0) {
			const figure = root.createDiv({ cls: "engrama-graph-figure" });
			const layout = layoutNeighbourhood(hood);
			drawNeighbourhood(figure, layout, (n) => void this.actions.openNode(n.id));
			// A dashed circle is a linked note that does not exist yet: say so under the picture.
			const stubs = layout.nodes.some((n) => n.node.props.status === "stub");
			const notes = [stubs ? "Dashed: a linked note that does not exist yet." : "", layout.hidden > 0 || hood.truncated ? `${layout.hidden} more not drawn.` : ""].filter((t) => t !== "");
			if (notes.length > 0) figure.createDiv({ cls: "engrama-muted engrama-graph-legend", text: notes.join(" ") });
		}

		if (edges.length === 0) {
			root.createDiv({ cls: "engrama-empty", text: "No relations yet. Add one with the Add relation button, or link other notes." });
		} else {
			const groups = new Map<string, ShownRelation[]>();
			for (const e of edges) {
				// "Uses" → what this note uses; "Uses this" ← what uses this note.
				const key = relationFromNode(e.type, e.direction);
				groups.set(key, [...(groups.get(key) ?? []), e]);
			}
			const list = root.createDiv({ cls: "engrama-relations" });
			for (const [group, items] of [...groups.entries()].sort(([a], [b]) => a.localeCompare(b))) {
				const section = list.createDiv({ cls: "engrama-relation-group" });
				section.createDiv({ cls: "engrama-relation-type", text: group });
				const ul = section.createEl("ul");
				for (const e of items.sort((a, b) => a.other.key.localeCompare(b.other.key))) {
					const li = ul.createEl("li");
					const link = li.createEl("a", { cls: "engrama-entity-link", text: e.other.key });
					link.addEventListener("click", () => void this.actions.openNode(e.other.id));
					li.createSpan({ cls: "engrama-muted", text: ` ${e.other.label}` });
					if (e.other.props.status === "stub") li.createSpan({ cls: "engrama-stub", text: " stub" });
				}
			}
		}
		const add = root.createEl("button", { cls: "engrama-add-relation", text: "Add relation" });
		add.addEventListener("click", () => void this.actions.addRelation().then(() => this.reload()));
	}
}

/**
 * "Related notes": what skills.related answers, each note with the passage that makes it related;
 * notes already linked (which the relations above list too) under "Already linked", apart.
 */
function relatedSection(el: HTMLElement, view: RelatedView, open: (note: RelatedNoteView, line?: number) => void): void {
	el.empty();
	el.createDiv({ cls: "engrama-relation-type", text: "Related notes" });
	if (view.related.length === 0) el.createDiv({ cls: "engrama-empty", text: view.linked.length > 0 ? "No related notes that are not linked yet." : "No related notes found yet." });
	else relatedList(el, view.related, open);
	if (view.linked.length === 0) return;
	el.createDiv({ cls: "engrama-relation-type", text: "Already linked" });
	relatedList(el, view.linked, open);
}

function relatedList(el: HTMLElement, notes: readonly RelatedNoteView[], open: (note: RelatedNoteView, line?: number) => void): void {
	const list = el.createEl("ul", { cls: "engrama-related-list" });
	for (const note of notes) {
		const li = list.createEl("li", { cls: "engrama-related-note" });
		const link = li.createEl("a", { cls: "engrama-entity-link", text: note.name, attr: { "aria-label": `Open ${note.path}` } });
		link.addEventListener("click", () => open(note));
		li.createSpan({ cls: "engrama-muted", text: ` ${whyRelated(note)}` });
		const passage = note.passage;
		if (passage) renderPassage(li, note.path, passage, () => open(note, passage.line));
	}
}

/** The reasons a note is related, in words (the relation's own heading when one links them). */
function whyRelated(note: RelatedNoteView): string {
	const words: Record<string, string> = { mentioned: "named in this note", meaning: "similar meaning", words: "shared words", linked: "linked" };
	const linked = note.relation ? relationFromNode(note.relation.type, note.relation.direction) : null;
	return note.reasons.map((r) => (r === "linked" && linked ? linked.toLowerCase() : words[r])).join(", ");
}

function propText(value: unknown): string {
	if (Array.isArray(value)) return value.map(propText).join(", ");
	if (typeof value === "string") return value;
	if (typeof value === "number" || typeof value === "boolean") return String(value);
	return JSON.stringify(value);
}
