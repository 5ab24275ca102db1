// Workspace, leaves and views. Part of the one fake of `obsidian`: import it through tests/fakes/obsidian.ts.
import { App } from "./app";
import { Component, Events } from "./events";
import { getLinkpath, setIcon } from "./util";
import { TFile } from "./vault";

export interface ViewState {
	type: string;
	state?: Record<string, unknown>;
	active?: boolean;
	pinned?: boolean;
}

export type ViewCreator = (leaf: WorkspaceLeaf) => View;

export class WorkspaceItem extends Events {}

export class WorkspaceSplit extends WorkspaceItem {
	constructor(readonly side: "left" | "right" | "root") {
		super();
	}
}

export class WorkspaceLeaf extends WorkspaceItem {
	view: View;
	readonly containerEl: HTMLElement;
	private detached = false;

	constructor(
		readonly app: App,
		readonly split: WorkspaceSplit,
	) {
		super();
		this.containerEl = createDiv({ cls: "workspace-leaf" });
		this.view = new EmptyView(this);
	}

	getViewState(): ViewState {
		return { type: this.view.getViewType() };
	}

	async setViewState(state: ViewState): Promise<void> {
		const creator = this.app.workspace.viewCreator(state.type);
		await this.closeView();
		this.view = creator ? creator(this) : new EmptyView(this);
		this.containerEl.appendChild(this.view.containerEl);
		this.view.load();
		await this.view.onOpen();
		if (state.active) this.app.workspace.setActiveLeaf(this);
	}

	/** The state the last openFile was given (Obsidian scrolls the editor to eState.line). */
	openState: { eState?: { line?: number } } | undefined;

	async openFile(file: TFile, openState?: { eState?: { line?: number } }): Promise<void> {
		this.openState = openState;
		await this.closeView();
		const view = new MarkdownView(this, file);
		this.view = view;
		this.containerEl.appendChild(view.containerEl);
		view.load();
		await view.onOpen();
		this.app.workspace.setActiveLeaf(this);
		this.app.workspace.trigger("file-open", file);
	}

	private async closeView(): Promise<void> {
		const old = this.view;
		await old.onClose();
		old.unload();
		old.containerEl.remove();
	}

	getDisplayText(): string {
		return this.view.getDisplayText();
	}

	detach(): void {
		if (this.detached) return;
		this.detached = true;
		void this.closeView().finally(() => this.app.workspace.removeLeaf(this));
	}

	get isDetached(): boolean {
		return this.detached;
	}

	setPinned(_pinned: boolean): void {}
}

export abstract class View extends Component {
	readonly app: App;
	readonly containerEl: HTMLElement;
	icon = "";
	navigation = false;

	constructor(readonly leaf: WorkspaceLeaf) {
		super();
		this.app = leaf.app;
		this.containerEl = createDiv({ cls: "view-container" });
	}

	abstract getViewType(): string;
	abstract getDisplayText(): string;

	getIcon(): string {
		return this.icon;
	}

	onOpen(): Promise<void> {
		return Promise.resolve();
	}

	onClose(): Promise<void> {
		return Promise.resolve();
	}

	getState(): Record<string, unknown> {
		return {};
	}

	setState(_state: unknown, _result: unknown): Promise<void> {
		return Promise.resolve();
	}
}

class EmptyView extends View {
	getViewType(): string {
		return "empty";
	}
	getDisplayText(): string {
		return "New tab";
	}
}

export abstract class ItemView extends View {
	readonly contentEl: HTMLElement;
	private readonly actionsEl: HTMLElement;

	constructor(leaf: WorkspaceLeaf) {
		super(leaf);
		this.containerEl.addClass("workspace-leaf-content");
		const header = this.containerEl.createDiv({ cls: "view-header" });
		this.actionsEl = header.createDiv({ cls: "view-actions" });
		this.contentEl = this.containerEl.createDiv({ cls: "view-content" });
	}

	addAction(icon: string, title: string, callback: (evt: MouseEvent) => unknown): HTMLElement {
		const el = this.actionsEl.createEl("a", { cls: ["view-action", "clickable-icon"], attr: { "aria-label": title } });
		setIcon(el, icon);
		el.addEventListener("click", (evt) => void callback(evt as MouseEvent));
		return el;
	}
}

export class MarkdownView extends ItemView {
	constructor(
		leaf: WorkspaceLeaf,
		readonly file: TFile,
	) {
		super(leaf);
	}
	getViewType(): string {
		return "markdown";
	}
	getDisplayText(): string {
		return this.file.basename;
	}
}

export class Workspace extends Events {
	layoutReady = false;
	readonly containerEl: HTMLElement;
	readonly leftSplit = new WorkspaceSplit("left");
	readonly rightSplit = new WorkspaceSplit("right");
	readonly rootSplit = new WorkspaceSplit("root");
	activeLeaf: WorkspaceLeaf | null = null;
	private readonly leaves: WorkspaceLeaf[] = [];
	private readonly creators = new Map<string, ViewCreator>();
	private readonly readyCallbacks: (() => unknown)[] = [];

	constructor(private readonly app: App) {
		super();
		this.containerEl = createDiv({ cls: "workspace" });
	}

	onLayoutReady(callback: () => unknown): void {
		if (this.layoutReady) window.setTimeout(() => void callback(), 0);
		else this.readyCallbacks.push(callback);
	}

	/** @internal */
	viewCreator(type: string): ViewCreator | undefined {
		return this.creators.get(type);
	}

	/** @internal Plugin.registerView */
	registerViewCreator(type: string, creator: ViewCreator): void {
		if (this.creators.has(type)) throw new Error(`Attempting to register an existing view type "${type}"`);
		this.creators.set(type, creator);
	}

	/** @internal Obsidian closes a disabled plugin's views. */
	unregisterViewCreator(type: string): void {
		this.creators.delete(type);
		this.detachLeavesOfType(type);
	}

	private addLeaf(split: WorkspaceSplit): WorkspaceLeaf {
		const leaf = new WorkspaceLeaf(this.app, split);
		this.leaves.push(leaf);
		this.containerEl.appendChild(leaf.containerEl);
		return leaf;
	}

	/** @internal */
	removeLeaf(leaf: WorkspaceLeaf): void {
		const at = this.leaves.indexOf(leaf);
		if (at >= 0) this.leaves.splice(at, 1);
		leaf.containerEl.remove();
		if (this.activeLeaf === leaf) this.activeLeaf = null;
	}

	getRightLeaf(_split: boolean): WorkspaceLeaf {
		return this.addLeaf(this.rightSplit);
	}

	getLeftLeaf(_split: boolean): WorkspaceLeaf {
		return this.addLeaf(this.leftSplit);
	}

	getLeaf(_newLeaf?: boolean | "tab" | "split" | "window"): WorkspaceLeaf {
		if (!_newLeaf) {
			const existing = this.leaves.find((l) => l.split === this.rootSplit);
			if (existing) return existing;
		}
		return this.addLeaf(this.rootSplit);
	}

	getLeavesOfType(type: string): WorkspaceLeaf[] {
		return this.leaves.filter((l) => l.view.getViewType() === type);
	}

	getActiveViewOfType<T extends View>(type: abstract new (...args: never[]) => T): T | null {
		const view = this.activeLeaf?.view;
		return view instanceof type ? view : null;
	}

	detachLeavesOfType(type: string): void {
		for (const leaf of this.getLeavesOfType(type)) leaf.detach();
	}

	async revealLeaf(leaf: WorkspaceLeaf): Promise<void> {
		await Promise.resolve();
		this.setActiveLeaf(leaf);
	}

	setActiveLeaf(leaf: WorkspaceLeaf, _params?: unknown): void {
		this.activeLeaf = leaf;
		this.trigger("active-leaf-change", leaf);
	}

	getActiveFile(): TFile | null {
		const view = this.activeLeaf?.view;
		if (view instanceof MarkdownView) return view.file;
		// The side panel is active while a note stays open in the main area: Obsidian keeps it as the active file.
		const main = [...this.leaves].reverse().find((l) => l.view instanceof MarkdownView);
		return main ? (main.view as MarkdownView).file : null;
	}

	async openLinkText(linktext: string, sourcePath: string, _newLeaf?: boolean): Promise<void> {
		const file = this.app.metadataCache.getFirstLinkpathDest(linktext, sourcePath);
		if (!file) {
			const created = await this.app.vault.create(`${getLinkpath(linktext)}.md`, "");
			await this.getLeaf(false).openFile(created);
			return;
		}
		await this.getLeaf(false).openFile(file);
	}

	iterateAllLeaves(cb: (leaf: WorkspaceLeaf) => unknown): void {
		for (const leaf of [...this.leaves]) cb(leaf);
	}

	/** Test helper: Obsidian finished loading the layout; queued onLayoutReady callbacks run now. */
	async fakeLayoutReady(): Promise<void> {
		this.layoutReady = true;
		const callbacks = this.readyCallbacks.splice(0);
		for (const cb of callbacks) await cb();
		this.trigger("layout-change");
	}

	/** Test helper: every leaf. */
	fakeLeaves(): readonly WorkspaceLeaf[] {
		return this.leaves;
	}
}
