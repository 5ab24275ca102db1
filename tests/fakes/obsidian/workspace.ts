// Workspace, leaves and views. Part of the one fake of `obsidian`: import it through tests/fakes/obsidian.ts.
import { type App } from "./app";
import { Component, Events } from "./events";
import { TFile } from "./vault";

export interface ViewState {
	type: string;
	active?: boolean;
}

export type ViewCreator = (leaf: WorkspaceLeaf) => View;

export class WorkspaceLeaf {
	view: View;
	readonly containerEl: HTMLElement;
	private detached = false;

	constructor(
		readonly app: App,
		/** Where the leaf sits: the right sidebar or the main area. */
		readonly side: "right" | "root",
	) {
		this.containerEl = createDiv({ cls: "workspace-leaf" });
		this.view = new EmptyView(this);
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

	detach(): void {
		if (this.detached) return;
		this.detached = true;
		void this.closeView().finally(() => this.app.workspace.removeLeaf(this));
	}
}

export abstract class View extends Component {
	readonly app: App;
	readonly containerEl: HTMLElement;

	constructor(readonly leaf: WorkspaceLeaf) {
		super();
		this.app = leaf.app;
		this.containerEl = createDiv({ cls: "view-container" });
	}

	abstract getViewType(): string;
	abstract getDisplayText(): string;

	onOpen(): Promise<void> {
		return Promise.resolve();
	}

	onClose(): Promise<void> {
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

	constructor(leaf: WorkspaceLeaf) {
		super(leaf);
		this.containerEl.addClass("workspace-leaf-content");
		this.containerEl.createDiv({ cls: "view-header" });
		this.contentEl = this.containerEl.createDiv({ cls: "view-content" });
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

/** Work plugins hand Obsidian while it quits ('quit' event); Obsidian waits for it before closing. */
export class Tasks {
	private readonly pending: Promise<unknown>[] = [];

	add(callback: () => Promise<unknown>): void {
		this.pending.push(Promise.resolve().then(callback));
	}

	addPromise(promise: Promise<unknown>): void {
		this.pending.push(promise);
	}

	isEmpty(): boolean {
		return this.pending.length === 0;
	}

	promise(): Promise<unknown> {
		return Promise.all(this.pending);
	}
}

export class Workspace extends Events {
	layoutReady = false;
	readonly containerEl: HTMLElement;
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

	private addLeaf(side: "right" | "root"): WorkspaceLeaf {
		const leaf = new WorkspaceLeaf(this.app, side);
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
		return this.addLeaf("right");
	}

	getLeaf(_newLeaf?: boolean | "tab" | "split" | "window"): WorkspaceLeaf {
		if (!_newLeaf) {
			const existing = this.leaves.find((l) => l.side === "root");
			if (existing) return existing;
		}
		return this.addLeaf("root");
	}

	getLeavesOfType(type: string): WorkspaceLeaf[] {
		return this.leaves.filter((l) => l.view.getViewType() === type);
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
	}

	getActiveFile(): TFile | null {
		const view = this.activeLeaf?.view;
		if (view instanceof MarkdownView) return view.file;
		// The side panel is active while a note stays open in the main area: Obsidian keeps it as the active file.
		const main = [...this.leaves].reverse().find((l) => l.view instanceof MarkdownView);
		return main ? (main.view as MarkdownView).file : null;
	}

	/**
	 * Test helper: the app quits as Obsidian's window closes: 'quit' handlers add their tasks, which
	 * are awaited; plugins are not unloaded (Obsidian does not promise an onunload at quit).
	 */
	async fakeQuit(): Promise<void> {
		const tasks = new Tasks();
		this.trigger("quit", tasks);
		await tasks.promise();
	}

	/** Test helper: Obsidian finished loading the layout; queued onLayoutReady callbacks run now. */
	async fakeLayoutReady(): Promise<void> {
		this.layoutReady = true;
		const callbacks = this.readyCallbacks.splice(0);
		for (const cb of callbacks) await cb();
	}
}
