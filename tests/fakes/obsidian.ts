/**
 * The one maintained fake of the `obsidian` module (the npm package is types only).
 *
 * It runs plugin code outside the Obsidian app: a Vault over a real folder (or an in-memory
 * file map in a browser), a MetadataCache that parses frontmatter, links and tags, the
 * FileManager's processFrontMatter, a Workspace with leaves and views, Plugin with
 * loadData/saveData, the UI classes (Notice, Modal, Setting, ItemView, SuggestModal, ...), and the
 * `createEl` family on DOM elements (happy-dom in Node, the real DOM in a browser).
 *
 * Behaviour follows Obsidian where plugins can observe it (event order and arguments, errors for
 * existing files and missing folders, frontmatter rewritten with the body kept); anything a test
 * needs to drive or inspect lives on `FakeApp` and the `fake*` helpers at the bottom.
 */
import { Window as HappyWindow } from "happy-dom";
import { WebSocket as NodeWebSocket } from "ws";
import { parse as parseYamlText, parseDocument, stringify as stringifyYamlValue } from "yaml";

type Callback = (...args: never[]) => unknown;
type AnyCallback = (...args: unknown[]) => unknown;

// ---------------------------------------------------------------------------------------------
// DOM: the createEl family, installed on whatever DOM exists (happy-dom in Node)
// ---------------------------------------------------------------------------------------------

interface ElementInfo {
	cls?: string | string[];
	text?: string | DocumentFragment;
	attr?: Record<string, string | number | boolean | null>;
	title?: string;
	parent?: Node;
	value?: string;
	type?: string;
	prepend?: boolean;
	placeholder?: string;
	href?: string;
}

/** What the plugin last wrote to the clipboard (Node). */
export const fakeClipboard = { text: "" };

/** Active timers started through `window.setTimeout/setInterval`, for leak checks after unload. */
const activeTimers = new Map<unknown, "timeout" | "interval">();

function applyInfo(el: Element, o: ElementInfo | string | undefined): void {
	if (o === undefined) return;
	const info: ElementInfo = typeof o === "string" ? { cls: o } : o;
	if (info.cls !== undefined) {
		const classes = (Array.isArray(info.cls) ? info.cls : info.cls.split(" ")).filter(Boolean);
		if (classes.length > 0) el.classList.add(...classes);
	}
	if (info.text !== undefined) setElementText(el, info.text);
	if (info.attr) for (const [k, v] of Object.entries(info.attr)) setAttribute(el, k, v);
	if (info.title !== undefined) el.setAttribute("title", info.title);
	if (info.value !== undefined) (el as HTMLInputElement).value = info.value;
	if (info.type !== undefined) el.setAttribute("type", info.type);
	if (info.placeholder !== undefined) el.setAttribute("placeholder", info.placeholder);
	if (info.href !== undefined) el.setAttribute("href", info.href);
	if (info.parent) {
		if (info.prepend) info.parent.insertBefore(el, info.parent.firstChild);
		else info.parent.appendChild(el);
	}
}

function setAttribute(el: Element, name: string, value: string | number | boolean | null): void {
	if (value === null || value === false) el.removeAttribute(name);
	else el.setAttribute(name, value === true ? "" : String(value));
}

/** show()/hide() change inline styles in Obsidian too. */
function setStyle(el: HTMLElement, property: string, value: string): void {
	const style = el.style;
	style.setProperty(property, value);
}

function setElementText(el: Node, text: string | DocumentFragment): void {
	if (typeof text === "string") el.textContent = text;
	else {
		el.textContent = "";
		el.appendChild(text);
	}
}

function makeCreators(doc: () => Document) {
	function createEl(tag: string, o?: ElementInfo | string, callback?: (el: HTMLElement) => void): HTMLElement {
		const el = doc().createElement(tag);
		applyInfo(el, o);
		callback?.(el);
		return el;
	}
	function createSvg(tag: string, o?: ElementInfo | string, callback?: (el: SVGElement) => void): SVGElement {
		const el: SVGElement = doc().createElementNS("http://www.w3.org/2000/svg", tag);
		applyInfo(el, o);
		callback?.(el);
		return el;
	}
	return { createEl, createSvg };
}

/** Adds Obsidian's DOM helpers to a window's prototypes and globals. Idempotent per window. */
export function installDom(win: Window & typeof globalThis): void {
	const marker = win as unknown as { __engramaFakeDom?: boolean };
	if (marker.__engramaFakeDom) return;
	marker.__engramaFakeDom = true;
	const { createEl, createSvg } = makeCreators(() => win.document);
	const nodeProto = win.Node.prototype as unknown as Record<string, unknown>;
	const elProto = win.Element.prototype as unknown as Record<string, unknown>;
	const htmlProto = win.HTMLElement.prototype as unknown as Record<string, unknown>;
	const fragProto = win.DocumentFragment.prototype as unknown as Record<string, unknown>;

	const define = (proto: Record<string, unknown>, name: string, fn: AnyCallback) =>
		Object.defineProperty(proto, name, { value: fn, writable: true, configurable: true });

	define(nodeProto, "createEl", function (this: Node, tag: unknown, o?: unknown, cb?: unknown) {
		const el = createEl(tag as string, o as ElementInfo, cb as (el: HTMLElement) => void);
		if (typeof o === "object" && o !== null && (o as ElementInfo).prepend) this.insertBefore(el, this.firstChild);
		else this.appendChild(el);
		return el;
	});
	define(nodeProto, "createDiv", function (this: Node, o?: unknown, cb?: unknown) {
		return (this as unknown as { createEl: AnyCallback }).createEl("div", o, cb);
	});
	define(nodeProto, "createSpan", function (this: Node, o?: unknown, cb?: unknown) {
		return (this as unknown as { createEl: AnyCallback }).createEl("span", o, cb);
	});
	define(nodeProto, "createSvg", function (this: Node, tag: unknown, o?: unknown, cb?: unknown) {
		const el = createSvg(tag as string, o as ElementInfo, cb as (el: SVGElement) => void);
		this.appendChild(el);
		return el;
	});
	define(nodeProto, "empty", function (this: Node) {
		while (this.firstChild) this.removeChild(this.firstChild);
	});
	define(nodeProto, "detach", function (this: Node) {
		this.parentNode?.removeChild(this);
	});
	define(nodeProto, "appendText", function (this: Node, text: unknown) {
		this.appendChild(win.document.createTextNode(String(text)));
	});
	define(nodeProto, "indexOf", function (this: Node, other: unknown) {
		return Array.prototype.indexOf.call(this.childNodes, other);
	});
	define(nodeProto, "setChildrenInPlace", function (this: Node, children: unknown) {
		while (this.firstChild) this.removeChild(this.firstChild);
		for (const child of children as Node[]) this.appendChild(child);
	});
	define(nodeProto, "instanceOf", function (this: Node, type: unknown) {
		return this instanceof (type as new () => unknown);
	});
	Object.defineProperty(nodeProto, "doc", { get: () => win.document, configurable: true });
	Object.defineProperty(nodeProto, "win", { get: () => win, configurable: true });

	define(elProto, "getText", function (this: Element) {
		return this.textContent ?? "";
	});
	define(elProto, "setText", function (this: Element, text: unknown) {
		setElementText(this, text as string | DocumentFragment);
	});
	define(elProto, "addClass", function (this: Element, ...classes: unknown[]) {
		this.classList.add(...(classes as string[]).filter(Boolean));
	});
	define(elProto, "addClasses", function (this: Element, classes: unknown) {
		this.classList.add(...(classes as string[]).filter(Boolean));
	});
	define(elProto, "removeClass", function (this: Element, ...classes: unknown[]) {
		this.classList.remove(...(classes as string[]));
	});
	define(elProto, "removeClasses", function (this: Element, classes: unknown) {
		this.classList.remove(...(classes as string[]));
	});
	define(elProto, "toggleClass", function (this: Element, classes: unknown, value: unknown) {
		for (const c of Array.isArray(classes) ? (classes as string[]) : [classes as string]) this.classList.toggle(c, Boolean(value));
	});
	define(elProto, "hasClass", function (this: Element, cls: unknown) {
		return this.classList.contains(cls as string);
	});
	define(elProto, "setAttr", function (this: Element, name: unknown, value: unknown) {
		setAttribute(this, name as string, value as string);
	});
	define(elProto, "setAttrs", function (this: Element, attrs: unknown) {
		for (const [k, v] of Object.entries(attrs as Record<string, string>)) setAttribute(this, k, v);
	});
	define(elProto, "getAttr", function (this: Element, name: unknown) {
		return this.getAttribute(name as string);
	});
	define(elProto, "find", function (this: Element, selector: unknown) {
		return this.querySelector(selector as string);
	});
	define(elProto, "findAll", function (this: Element, selector: unknown) {
		return Array.from(this.querySelectorAll(selector as string));
	});
	define(elProto, "findAllSelf", function (this: Element, selector: unknown) {
		const all = Array.from(this.querySelectorAll(selector as string));
		return this.matches(selector as string) ? [this, ...all] : all;
	});
	define(elProto, "matchParent", function (this: Element, selector: unknown) {
		return this.closest(selector as string);
	});
	define(elProto, "setCssStyles", function (this: HTMLElement, styles: unknown) {
		Object.assign(this.style, styles);
	});
	define(elProto, "setCssProps", function (this: HTMLElement, props: unknown) {
		for (const [k, v] of Object.entries(props as Record<string, string>)) this.style.setProperty(k, v);
	});
	define(htmlProto, "show", function (this: HTMLElement) {
		this.style.removeProperty("display");
	});
	define(htmlProto, "hide", function (this: HTMLElement) {
		setStyle(this, "display", "none");
	});
	define(htmlProto, "toggle", function (this: HTMLElement, show: unknown) {
		if (show) this.style.removeProperty("display");
		else setStyle(this, "display", "none");
	});
	define(htmlProto, "toggleVisibility", function (this: HTMLElement, visible: unknown) {
		setStyle(this, "visibility", visible ? "" : "hidden");
	});
	define(htmlProto, "isShown", function (this: HTMLElement) {
		return this.style.display !== "none";
	});
	define(htmlProto, "onClickEvent", function (this: HTMLElement, listener: unknown, options?: unknown) {
		this.addEventListener("click", listener as EventListener, options as AddEventListenerOptions);
	});
	define(htmlProto, "trigger", function (this: HTMLElement, type: unknown) {
		this.dispatchEvent(new win.Event(type as string, { bubbles: true }));
	});
	define(fragProto, "find", function (this: DocumentFragment, selector: unknown) {
		return this.querySelector(selector as string);
	});
	define(fragProto, "findAll", function (this: DocumentFragment, selector: unknown) {
		return Array.from(this.querySelectorAll(selector as string));
	});

	const g = win as unknown as Record<string, unknown>;
	g.createEl = createEl;
	g.createDiv = (o?: ElementInfo | string, cb?: (el: HTMLElement) => void) => createEl("div", o, cb);
	g.createSpan = (o?: ElementInfo | string, cb?: (el: HTMLElement) => void) => createEl("span", o, cb);
	g.createSvg = createSvg;
	g.createFragment = (cb?: (el: DocumentFragment) => void) => {
		const frag = win.document.createDocumentFragment();
		cb?.(frag);
		return frag;
	};
	g.activeWindow = win;
	g.activeDocument = win.document;
	g.sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
	g.nextFrame = () => new Promise<void>((resolve) => setTimeout(resolve, 0));
}

/** Node: a happy-dom window becomes `window`/`document` and the DOM globals, with tracked timers. */
function installNodeDom(): void {
	const g = globalThis as unknown as Record<string, unknown>;
	if (typeof g.document !== "undefined") {
		installDom(g.window as Window & typeof globalThis);
		return;
	}
	const win = new HappyWindow({ url: "app://obsidian.md/", width: 1200, height: 800 }) as unknown as Window & typeof globalThis;
	const wg = win as unknown as Record<string, unknown>;
	// The plugin uses window timers (review rule); route them to Node's so they are real and trackable.
	wg.setTimeout = (fn: () => void, ms?: number, ...args: unknown[]) => {
		const handle: NodeJS.Timeout = setTimeout(() => {
			activeTimers.delete(handle);
			fn(...(args as []));
		}, ms);
		activeTimers.set(handle, "timeout");
		return handle;
	};
	wg.clearTimeout = (handle: NodeJS.Timeout | undefined) => {
		if (handle === undefined) return;
		activeTimers.delete(handle);
		clearTimeout(handle);
	};
	wg.setInterval = (fn: () => void, ms?: number, ...args: unknown[]) => {
		const handle = setInterval(fn, ms, ...args);
		activeTimers.set(handle, "interval");
		return handle;
	};
	wg.clearInterval = (handle: NodeJS.Timeout | undefined) => {
		if (handle === undefined) return;
		activeTimers.delete(handle);
		clearInterval(handle);
	};
	installDom(win);
	g.window = win;
	// In Obsidian's renderer `self` is the window too (libraries such as Emscripten's loaders read self.location).
	g.self = win;
	g.document = win.document;
	// Obsidian's renderer has WebSocket (neo4j-driver's browser channel speaks Bolt over it); Node 20 has none.
	if (typeof g.WebSocket === "undefined") g.WebSocket = NodeWebSocket;
	wg.WebSocket = g.WebSocket;
	// Obsidian (Electron) has a clipboard; Node 20 has no navigator at all.
	const clipboard = {
		writeText: (text: string) => {
			fakeClipboard.text = text;
			return Promise.resolve();
		},
		readText: () => Promise.resolve(fakeClipboard.text),
	};
	Object.defineProperty(globalThis, "navigator", { value: { clipboard, userAgent: "engrama-fake", platform: "Linux", language: "en-US" }, configurable: true, writable: true });
	for (const name of [
		"Node",
		"Element",
		"HTMLElement",
		"SVGElement",
		"HTMLInputElement",
		"HTMLSelectElement",
		"HTMLTextAreaElement",
		"HTMLButtonElement",
		"DocumentFragment",
		"Event",
		"MouseEvent",
		"KeyboardEvent",
		"InputEvent",
		"FocusEvent",
		"getComputedStyle",
		"createEl",
		"createDiv",
		"createSpan",
		"createSvg",
		"createFragment",
		"activeWindow",
		"activeDocument",
		"sleep",
		"nextFrame",
	]) {
		if (!(name in g) || name.startsWith("create") || name.startsWith("active") || name === "sleep" || name === "nextFrame") g[name] = wg[name];
	}
}

if (typeof (globalThis as { document?: unknown }).document === "undefined") installNodeDom();
else installDom(globalThis as unknown as Window & typeof globalThis);

// ---------------------------------------------------------------------------------------------
// Small utilities
// ---------------------------------------------------------------------------------------------

export function normalizePath(path: string): string {
	const cleaned = path
		.replace(/[\\/]+/g, "/")
		.replace(/\u00A0|\u202F/g, " ")
		.split("/")
		.filter((part) => part !== "" && part !== ".")
		.join("/");
	return cleaned === "" ? "/" : cleaned.normalize("NFC");
}

export interface Debouncer<T extends unknown[], V> {
	(...args: T): Debouncer<T, V>;
	cancel(): Debouncer<T, V>;
	run(): V | void;
}

export function debounce<T extends unknown[], V>(cb: (...args: [...T]) => V, timeout = 0, resetTimer = false): Debouncer<T, V> {
	let handle: number | undefined;
	let pending: T | undefined;
	const fire = () => {
		handle = undefined;
		const args = pending;
		pending = undefined;
		return args ? cb(...args) : undefined;
	};
	const debounced = ((...args: T) => {
		pending = args;
		if (handle !== undefined && resetTimer) {
			window.clearTimeout(handle);
			handle = undefined;
		}
		handle ??= window.setTimeout(fire, timeout);
		return debounced;
	}) as Debouncer<T, V>;
	debounced.cancel = () => {
		if (handle !== undefined) window.clearTimeout(handle);
		handle = undefined;
		pending = undefined;
		return debounced;
	};
	debounced.run = () => {
		if (handle !== undefined) window.clearTimeout(handle);
		return fire();
	};
	return debounced;
}

export function setIcon(el: HTMLElement, icon: string): void {
	el.empty();
	el.createSvg("svg", { cls: ["svg-icon", `lucide-${icon}`], attr: { "data-icon": icon, width: 16, height: 16, viewBox: "0 0 24 24" } });
}

export function setTooltip(el: HTMLElement, tooltip: string): void {
	el.setAttribute("aria-label", tooltip);
}

const icons = new Map<string, string>();
export function addIcon(id: string, svg: string): void {
	icons.set(id, svg);
}

export function parseYaml(text: string): unknown {
	return parseYamlText(text);
}

export function stringifyYaml(value: unknown): string {
	return stringifyYamlValue(value);
}

export function getLinkpath(linktext: string): string {
	const hash = linktext.indexOf("#");
	return hash < 0 ? linktext : linktext.slice(0, hash);
}

export function parseFrontMatterTags(frontmatter: Record<string, unknown> | null | undefined): string[] | null {
	if (!frontmatter) return null;
	const raw = frontmatter.tags ?? frontmatter.tag;
	if (raw === undefined || raw === null) return null;
	const list: unknown[] = Array.isArray(raw) ? raw : typeof raw === "string" ? raw.split(/[,\s]+/) : [];
	const names = list.filter((t): t is string | number => typeof t === "string" || typeof t === "number").map(String).filter(Boolean);
	return names.map((t) => (t.startsWith("#") ? t : `#${t}`));
}

export function getAllTags(cache: CachedMetadata): string[] | null {
	const tags = [...(parseFrontMatterTags(cache.frontmatter) ?? []), ...(cache.tags ?? []).map((t) => t.tag)];
	return tags.length > 0 ? tags : null;
}

export const Platform = {
	isDesktop: true,
	isMobile: false,
	isDesktopApp: true,
	isMobileApp: false,
	isIosApp: false,
	isAndroidApp: false,
	isPhone: false,
	isTablet: false,
	isMacOS: false,
	isWin: false,
	isLinux: true,
	isSafari: false,
	resourcePathPrefix: "app://local/",
};

export const apiVersion = "1.8.7";

export interface RequestUrlParam {
	url: string;
	method?: string;
	contentType?: string;
	body?: string | ArrayBuffer;
	headers?: Record<string, string>;
	throw?: boolean;
}

export interface RequestUrlResponse {
	status: number;
	headers: Record<string, string>;
	arrayBuffer: ArrayBuffer;
	json: unknown;
	text: string;
}

/** Obsidian's requestUrl over fetch: same response shape, throws on status >= 400 unless `throw: false`. */
export async function requestUrl(request: RequestUrlParam | string): Promise<RequestUrlResponse> {
	const req = typeof request === "string" ? { url: request } : request;
	fakeRequests.push({ url: req.url, method: req.method ?? "GET" });
	const headers: Record<string, string> = { ...(req.headers ?? {}) };
	if (req.contentType) headers["content-type"] = req.contentType;
	const response = await fetch(req.url, { method: req.method ?? "GET", headers, body: req.body });
	const buffer = await response.arrayBuffer();
	const text = new TextDecoder().decode(buffer);
	let json: unknown;
	try {
		json = JSON.parse(text);
	} catch {
		json = undefined;
	}
	const outHeaders: Record<string, string> = {};
	response.headers.forEach((value, key) => (outHeaders[key] = value));
	if (response.status >= 400 && req.throw !== false) {
		const error = new Error(`Request failed, status ${response.status}`) as Error & { status: number };
		error.status = response.status;
		throw error;
	}
	return { status: response.status, headers: outHeaders, arrayBuffer: buffer, json, text };
}

/** Every requestUrl call, for tests that check the plugin used Obsidian's HTTP. */
export const fakeRequests: { url: string; method: string }[] = [];

// ---------------------------------------------------------------------------------------------
// Events and Component
// ---------------------------------------------------------------------------------------------

export interface EventRef {
	readonly events: Events;
	readonly name: string;
	readonly callback: AnyCallback;
	readonly ctx?: unknown;
}

export class Events {
	private readonly handlers = new Map<string, EventRef[]>();

	on(name: string, callback: Callback, ctx?: unknown): EventRef {
		const ref: EventRef = { events: this, name, callback: callback as AnyCallback, ctx };
		const list = this.handlers.get(name) ?? [];
		list.push(ref);
		this.handlers.set(name, list);
		return ref;
	}

	off(name: string, callback: Callback): void {
		const list = this.handlers.get(name);
		if (list) this.handlers.set(name, list.filter((r) => r.callback !== (callback as AnyCallback)));
	}

	offref(ref: EventRef): void {
		const list = this.handlers.get(ref.name);
		if (list) this.handlers.set(ref.name, list.filter((r) => r !== ref));
	}

	trigger(name: string, ...data: unknown[]): void {
		for (const ref of [...(this.handlers.get(name) ?? [])]) this.tryTrigger(ref, data);
	}

	tryTrigger(ref: EventRef, args: unknown[]): void {
		try {
			ref.callback.apply(ref.ctx, args);
		} catch (error) {
			// Obsidian logs handler errors and keeps dispatching; tests see them in fakeErrors.
			fakeErrors.push(error);
			console.error(error);
		}
	}

	/** Test helper: how many handlers are registered (all events, or one). */
	listenerCount(name?: string): number {
		if (name !== undefined) return this.handlers.get(name)?.length ?? 0;
		let n = 0;
		for (const list of this.handlers.values()) n += list.length;
		return n;
	}
}

/** Errors thrown by event handlers (Obsidian logs them to the console). */
export const fakeErrors: unknown[] = [];

export class Component {
	private loaded = false;
	private readonly children: Component[] = [];
	private readonly cleanups: (() => unknown)[] = [];

	/** The promise an async onload returned (Obsidian awaits a plugin's onload). */
	private loading: Promise<unknown> | undefined;

	load(): void {
		if (this.loaded) return;
		this.loaded = true;
		const result: unknown = this.onload();
		if (result instanceof Promise) this.loading = result;
		for (const child of this.children) child.load();
	}

	onload(): void | Promise<void> {}

	/** Test helper: load() and wait for an async onload, as Obsidian does for plugins. */
	async fakeLoad(): Promise<void> {
		this.load();
		await this.loading;
	}

	unload(): void {
		if (!this.loaded) return;
		this.loaded = false;
		while (this.children.length > 0) this.children.pop()?.unload();
		while (this.cleanups.length > 0) {
			try {
				this.cleanups.pop()?.();
			} catch (error) {
				fakeErrors.push(error);
			}
		}
		this.onunload();
	}

	onunload(): void {}

	addChild<T extends Component>(component: T): T {
		this.children.push(component);
		if (this.loaded) component.load();
		return component;
	}

	removeChild<T extends Component>(component: T): T {
		const at = this.children.indexOf(component);
		if (at >= 0) {
			this.children.splice(at, 1);
			component.unload();
		}
		return component;
	}

	register(cb: () => unknown): void {
		this.cleanups.push(cb);
	}

	registerEvent(ref: EventRef): void {
		this.register(() => ref.events.offref(ref));
	}

	registerDomEvent(el: EventTarget, type: string, callback: (ev: Event) => unknown, options?: boolean | AddEventListenerOptions): void {
		el.addEventListener(type, callback, options);
		this.register(() => el.removeEventListener(type, callback, options));
	}

	registerInterval(id: number): number {
		this.register(() => window.clearInterval(id));
		return id;
	}

	/** Test helper. */
	get _loaded(): boolean {
		return this.loaded;
	}
}

// ---------------------------------------------------------------------------------------------
// Files: the storage under the vault (a real folder in Node, a map in the browser)
// ---------------------------------------------------------------------------------------------

export interface FakeStat {
	readonly type: "file" | "folder";
	readonly ctime: number;
	readonly mtime: number;
	readonly size: number;
}

/** What the fake vault needs from a file system; paths are vault-relative with "/". */
export interface FakeFileSystem {
	readonly basePath: string;
	/** Every entry below the root (files and folders), recursively. */
	list(): { path: string; stat: FakeStat }[];
	stat(path: string): FakeStat | null;
	read(path: string): string;
	readBinary(path: string): Uint8Array;
	write(path: string, data: string | Uint8Array): void;
	mkdir(path: string): void;
	remove(path: string): void;
	rmdir(path: string): void;
	rename(from: string, to: string): void;
}

interface NodeFs {
	readdirSync(path: string, options: { withFileTypes: true }): { name: string; isDirectory(): boolean; isFile(): boolean }[];
	statSync(path: string, options?: { throwIfNoEntry: false }): { isDirectory(): boolean; ctimeMs: number; mtimeMs: number; size: number } | undefined;
	readFileSync(path: string, encoding?: "utf8"): string & Uint8Array;
	writeFileSync(path: string, data: string | Uint8Array): void;
	mkdirSync(path: string, options: { recursive: true }): void;
	rmSync(path: string, options?: { recursive?: boolean; force?: boolean }): void;
	renameSync(from: string, to: string): void;
}

function nodeBuiltin<T>(name: string): T {
	const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
	const mod = proc?.getBuiltinModule?.(name);
	if (!mod) throw new Error(`The fake needs Node's ${name} for a folder-backed vault; use memoryFileSystem() in a browser.`);
	return mod as T;
}

/** A vault over a real folder on disk. */
export function nodeFileSystem(root: string): FakeFileSystem {
	const fs = nodeBuiltin<NodeFs>("fs");
	const full = (path: string) => (path === "" || path === "/" ? root : `${root}/${path}`);
	const toStat = (s: { isDirectory(): boolean; ctimeMs: number; mtimeMs: number; size: number }): FakeStat => ({
		type: s.isDirectory() ? "folder" : "file",
		ctime: Math.floor(s.ctimeMs),
		mtime: Math.floor(s.mtimeMs),
		size: s.size,
	});
	return {
		basePath: root,
		list() {
			const out: { path: string; stat: FakeStat }[] = [];
			const walk = (dir: string) => {
				for (const entry of fs.readdirSync(full(dir), { withFileTypes: true })) {
					const path = dir === "" ? entry.name : `${dir}/${entry.name}`;
					const stat = fs.statSync(full(path));
					if (!stat) continue;
					out.push({ path, stat: toStat(stat) });
					if (entry.isDirectory()) walk(path);
				}
			};
			walk("");
			return out;
		},
		stat(path) {
			const s = fs.statSync(full(path), { throwIfNoEntry: false });
			return s ? toStat(s) : null;
		},
		read: (path) => fs.readFileSync(full(path), "utf8"),
		readBinary: (path) => new Uint8Array(fs.readFileSync(full(path))),
		write: (path, data) => fs.writeFileSync(full(path), data),
		mkdir: (path) => fs.mkdirSync(full(path), { recursive: true }),
		remove: (path) => fs.rmSync(full(path), { force: true }),
		rmdir: (path) => fs.rmSync(full(path), { recursive: true, force: true }),
		rename: (from, to) => fs.renameSync(full(from), full(to)),
	};
}

/** A vault held in memory (browser tests): path → text or bytes. */
export function memoryFileSystem(initial: Record<string, string | Uint8Array> = {}): FakeFileSystem {
	const files = new Map<string, { data: Uint8Array; ctime: number; mtime: number }>();
	const folders = new Set<string>();
	const encoder = new TextEncoder();
	const parents = (path: string) => {
		const parts = path.split("/");
		for (let i = 1; i < parts.length; i++) folders.add(parts.slice(0, i).join("/"));
	};
	const put = (path: string, data: string | Uint8Array) => {
		const now = Date.now();
		const bytes = typeof data === "string" ? encoder.encode(data) : data;
		files.set(path, { data: bytes, ctime: files.get(path)?.ctime ?? now, mtime: now });
		parents(path);
	};
	for (const [path, data] of Object.entries(initial)) put(path, data);
	const need = (path: string) => {
		const file = files.get(path);
		if (!file) throw new Error(`ENOENT: no such file, '${path}'`);
		return file;
	};
	return {
		basePath: "/vault",
		list() {
			const out: { path: string; stat: FakeStat }[] = [];
			for (const folder of folders) out.push({ path: folder, stat: { type: "folder", ctime: 0, mtime: 0, size: 0 } });
			for (const [path, f] of files) out.push({ path, stat: { type: "file", ctime: f.ctime, mtime: f.mtime, size: f.data.byteLength } });
			return out;
		},
		stat(path) {
			const f = files.get(path);
			if (f) return { type: "file", ctime: f.ctime, mtime: f.mtime, size: f.data.byteLength };
			return folders.has(path) ? { type: "folder", ctime: 0, mtime: 0, size: 0 } : null;
		},
		read: (path) => new TextDecoder().decode(need(path).data),
		readBinary: (path) => need(path).data.slice(),
		write: put,
		mkdir(path) {
			parents(`${path}/x`);
		},
		remove: (path) => void files.delete(path),
		rmdir(path) {
			for (const key of [...files.keys()]) if (key.startsWith(`${path}/`)) files.delete(key);
			for (const key of [...folders]) if (key === path || key.startsWith(`${path}/`)) folders.delete(key);
		},
		rename(from, to) {
			const f = need(from);
			files.delete(from);
			files.set(to, { ...f, mtime: Date.now() });
			parents(to);
		},
	};
}

// ---------------------------------------------------------------------------------------------
// Vault
// ---------------------------------------------------------------------------------------------

export interface FileStats {
	ctime: number;
	mtime: number;
	size: number;
}

export abstract class TAbstractFile {
	vault!: Vault;
	path = "";
	name = "";
	parent: TFolder | null = null;
}

export class TFile extends TAbstractFile {
	stat: FileStats = { ctime: 0, mtime: 0, size: 0 };
	basename = "";
	extension = "";
}

export class TFolder extends TAbstractFile {
	children: TAbstractFile[] = [];
	isRoot(): boolean {
		return this.path === "/";
	}
}

function nameOf(path: string): string {
	return path.slice(path.lastIndexOf("/") + 1);
}

function parentOf(path: string): string {
	const at = path.lastIndexOf("/");
	return at < 0 ? "/" : path.slice(0, at);
}

export interface DataWriteOptions {
	ctime?: number;
	mtime?: number;
}

export interface ListedFiles {
	files: string[];
	folders: string[];
}

/** The adapter Obsidian gives the vault (DataAdapter); the desktop one is a FileSystemAdapter. */
export class DataAdapterBase {
	constructor(protected readonly fsys: FakeFileSystem) {}
	getName(): string {
		return "vault";
	}
	exists(path: string): Promise<boolean> {
		return Promise.resolve(this.fsys.stat(normalizePath(path)) !== null);
	}
	stat(path: string): Promise<{ type: "file" | "folder"; ctime: number; mtime: number; size: number } | null> {
		return Promise.resolve(this.fsys.stat(normalizePath(path)));
	}
	list(path: string): Promise<ListedFiles> {
		const base = normalizePath(path);
		const prefix = base === "/" ? "" : `${base}/`;
		const files: string[] = [];
		const folders: string[] = [];
		for (const entry of this.fsys.list()) {
			if (!entry.path.startsWith(prefix) || entry.path.slice(prefix.length).includes("/")) continue;
			(entry.stat.type === "folder" ? folders : files).push(entry.path);
		}
		return Promise.resolve({ files, folders });
	}
	read(path: string): Promise<string> {
		return Promise.resolve().then(() => this.fsys.read(normalizePath(path)));
	}
	readBinary(path: string): Promise<ArrayBuffer> {
		return Promise.resolve().then(() => {
			const bytes = this.fsys.readBinary(normalizePath(path));
			return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
		});
	}
	write(path: string, data: string): Promise<void> {
		return Promise.resolve().then(() => this.fsys.write(normalizePath(path), data));
	}
	writeBinary(path: string, data: ArrayBuffer): Promise<void> {
		return Promise.resolve().then(() => this.fsys.write(normalizePath(path), new Uint8Array(data)));
	}
	append(path: string, data: string): Promise<void> {
		return Promise.resolve().then(() => {
			const p = normalizePath(path);
			const before = this.fsys.stat(p) ? this.fsys.read(p) : "";
			this.fsys.write(p, before + data);
		});
	}
	mkdir(path: string): Promise<void> {
		return Promise.resolve().then(() => this.fsys.mkdir(normalizePath(path)));
	}
	remove(path: string): Promise<void> {
		return Promise.resolve().then(() => this.fsys.remove(normalizePath(path)));
	}
	rmdir(path: string, _recursive: boolean): Promise<void> {
		return Promise.resolve().then(() => this.fsys.rmdir(normalizePath(path)));
	}
	rename(from: string, to: string): Promise<void> {
		return Promise.resolve().then(() => this.fsys.rename(normalizePath(from), normalizePath(to)));
	}
	getResourcePath(path: string): string {
		return `app://local/${normalizePath(path)}`;
	}
}

export class FileSystemAdapter extends DataAdapterBase {
	getBasePath(): string {
		return this.fsys.basePath;
	}
	getFullPath(path: string): string {
		return `${this.fsys.basePath}/${normalizePath(path)}`;
	}
}

/** The adapter of Obsidian mobile: no base path, no Node fs. */
export class CapacitorAdapter extends DataAdapterBase {}

export class Vault extends Events {
	readonly adapter: FileSystemAdapter | CapacitorAdapter;
	configDir = ".obsidian";
	private readonly files = new Map<string, TAbstractFile>();
	/** Lower-case file name → files, for link resolution (Obsidian keeps a similar index). */
	private readonly byName = new Map<string, Set<TFile>>();
	private readonly root: TFolder;
	/** @internal the app's metadata cache, updated on every change. */
	metadata?: MetadataCache;

	constructor(readonly fsys: FakeFileSystem, options: { mobile?: boolean } = {}) {
		super();
		this.adapter = options.mobile ? new CapacitorAdapter(fsys) : new FileSystemAdapter(fsys);
		this.root = new TFolder();
		this.root.vault = this;
		this.root.path = "/";
		this.root.name = "";
		this.files.set("/", this.root);
		this.load();
	}

	/** Reads the whole tree (what Obsidian does at startup). Hidden folders are not indexed. */
	private load(): void {
		const entries = this.fsys.list().filter((e) => !e.path.split("/").some((part) => part.startsWith(".")));
		entries.sort((a, b) => a.path.split("/").length - b.path.split("/").length || a.path.localeCompare(b.path));
		for (const entry of entries) {
			if (entry.stat.type === "folder") this.attachFolder(entry.path);
			else this.attachFile(entry.path, entry.stat);
		}
	}

	private attachFolder(path: string): TFolder {
		const existing = this.files.get(path);
		if (existing instanceof TFolder) return existing;
		const folder = new TFolder();
		folder.vault = this;
		folder.path = path;
		folder.name = nameOf(path);
		this.link(folder, parentOf(path));
		return folder;
	}

	private attachFile(path: string, stat: FileStats): TFile {
		const file = new TFile();
		file.vault = this;
		this.setFilePath(file, path);
		file.stat = { ctime: stat.ctime, mtime: stat.mtime, size: stat.size };
		this.link(file, parentOf(path));
		return file;
	}

	private setFilePath(file: TFile, path: string): void {
		if (file.name !== "") this.byName.get(file.name.toLowerCase())?.delete(file);
		file.path = path;
		file.name = nameOf(path);
		const dot = file.name.lastIndexOf(".");
		file.basename = dot > 0 ? file.name.slice(0, dot) : file.name;
		file.extension = dot > 0 ? file.name.slice(dot + 1) : "";
		const key = file.name.toLowerCase();
		const named = this.byName.get(key) ?? new Set<TFile>();
		named.add(file);
		this.byName.set(key, named);
	}

	/** @internal Files with this name (any case), wherever they are. */
	filesNamed(name: string): TFile[] {
		return [...(this.byName.get(name.toLowerCase()) ?? [])];
	}

	private link(item: TAbstractFile, parentPath: string): void {
		const parent = parentPath === "/" ? this.root : this.attachFolder(parentPath);
		item.parent = parent;
		parent.children.push(item);
		this.files.set(item.path, item);
	}

	private unlink(item: TAbstractFile): void {
		if (item.parent) item.parent.children = item.parent.children.filter((c) => c !== item);
		this.files.delete(item.path);
		if (item instanceof TFile) this.byName.get(item.name.toLowerCase())?.delete(item);
		if (item instanceof TFolder) for (const child of [...item.children]) this.unlink(child);
	}

	getName(): string {
		return "Fake vault";
	}

	getRoot(): TFolder {
		return this.root;
	}

	getAbstractFileByPath(path: string): TAbstractFile | null {
		return this.files.get(normalizePath(path)) ?? null;
	}

	getFileByPath(path: string): TFile | null {
		const file = this.getAbstractFileByPath(path);
		return file instanceof TFile ? file : null;
	}

	getFolderByPath(path: string): TFolder | null {
		const folder = this.getAbstractFileByPath(path);
		return folder instanceof TFolder ? folder : null;
	}

	getFiles(): TFile[] {
		return [...this.files.values()].filter((f): f is TFile => f instanceof TFile);
	}

	getMarkdownFiles(): TFile[] {
		return this.getFiles().filter((f) => f.extension === "md");
	}

	getAllLoadedFiles(): TAbstractFile[] {
		return [...this.files.values()];
	}

	getAllFolders(includeRoot = false): TFolder[] {
		return [...this.files.values()].filter((f): f is TFolder => f instanceof TFolder && (includeRoot || !f.isRoot()));
	}

	async read(file: TFile): Promise<string> {
		await Promise.resolve();
		if (heldReads) {
			heldReads.onWaiting();
			await heldReads.released;
		}
		return this.fsys.read(file.path);
	}

	cachedRead(file: TFile): Promise<string> {
		return this.read(file);
	}

	async readBinary(file: TFile): Promise<ArrayBuffer> {
		await Promise.resolve();
		const bytes = this.fsys.readBinary(file.path);
		return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
	}

	async create(path: string, data: string, _options?: DataWriteOptions): Promise<TFile> {
		const p = normalizePath(path);
		await Promise.resolve();
		if (this.files.has(p) || this.fsys.stat(p)) throw new Error("File already exists.");
		const parent = parentOf(p);
		if (parent !== "/" && !(this.files.get(parent) instanceof TFolder)) throw new Error(`Folder does not exist: ${parent}`);
		this.fsys.write(p, data);
		const file = this.attachFile(p, this.statOf(p));
		this.metadata?.index(file);
		this.trigger("create", file);
		this.metadata?.announce(file);
		return file;
	}

	async createBinary(path: string, data: ArrayBuffer): Promise<TFile> {
		const p = normalizePath(path);
		await Promise.resolve();
		if (this.files.has(p)) throw new Error("File already exists.");
		this.fsys.write(p, new Uint8Array(data));
		const file = this.attachFile(p, this.statOf(p));
		this.trigger("create", file);
		return file;
	}

	async createFolder(path: string): Promise<TFolder> {
		const p = normalizePath(path);
		await Promise.resolve();
		if (this.files.has(p)) throw new Error("Folder already exists.");
		this.fsys.mkdir(p);
		const folder = this.attachFolder(p);
		this.trigger("create", folder);
		return folder;
	}

	async modify(file: TFile, data: string, _options?: DataWriteOptions): Promise<void> {
		await Promise.resolve();
		this.write(file, data);
	}

	async append(file: TFile, data: string): Promise<void> {
		await Promise.resolve();
		this.write(file, this.fsys.read(file.path) + data);
	}

	async process(file: TFile, fn: (data: string) => string, _options?: DataWriteOptions): Promise<string> {
		await Promise.resolve();
		const next = fn(this.fsys.read(file.path));
		this.write(file, next);
		return next;
	}

	private write(file: TFile, data: string): void {
		if (!this.files.has(file.path)) throw new Error(`File does not exist: ${file.path}`);
		this.fsys.write(file.path, data);
		file.stat = this.statOf(file.path);
		this.metadata?.index(file);
		this.trigger("modify", file);
		this.metadata?.announce(file);
	}

	async rename(file: TAbstractFile, newPath: string): Promise<void> {
		const to = normalizePath(newPath);
		await Promise.resolve();
		if (this.files.has(to)) throw new Error("Destination file already exists!");
		const parent = parentOf(to);
		if (parent !== "/" && !(this.files.get(parent) instanceof TFolder)) throw new Error(`Folder does not exist: ${parent}`);
		const oldPath = file.path;
		this.fsys.rename(oldPath, to);
		const moved: [TAbstractFile, string][] = [];
		const relink = (item: TAbstractFile, path: string) => {
			const before = item.path;
			this.files.delete(before);
			if (item instanceof TFile) this.setFilePath(item, path);
			else {
				item.path = path;
				item.name = nameOf(path);
			}
			this.files.set(path, item);
			moved.push([item, before]);
			if (item instanceof TFolder) for (const child of item.children) relink(child, `${path}/${child.name}`);
		};
		if (file.parent) file.parent.children = file.parent.children.filter((c) => c !== file);
		relink(file, to);
		const newParent = parent === "/" ? this.root : (this.files.get(parent) as TFolder);
		file.parent = newParent;
		newParent.children.push(file);
		for (const [item, before] of moved) {
			if (item instanceof TFile) this.metadata?.move(before, item);
			this.trigger("rename", item, before);
		}
	}

	async delete(file: TAbstractFile, _force?: boolean): Promise<void> {
		await Promise.resolve();
		if (file instanceof TFolder) this.fsys.rmdir(file.path);
		else this.fsys.remove(file.path);
		this.dropTree(file);
	}

	async trash(file: TAbstractFile, _system: boolean): Promise<void> {
		// Obsidian moves the file to .trash (hidden, not indexed): for plugins it is a delete.
		await this.delete(file);
	}

	private dropTree(file: TAbstractFile): void {
		const items: TAbstractFile[] = [];
		const collect = (item: TAbstractFile) => {
			items.push(item);
			if (item instanceof TFolder) item.children.forEach(collect);
		};
		collect(file);
		this.unlink(file);
		for (const item of items) {
			if (item instanceof TFile) this.metadata?.drop(item);
			this.trigger("delete", item);
		}
	}

	private statOf(path: string): FileStats {
		const s = this.fsys.stat(path);
		return { ctime: s?.ctime ?? Date.now(), mtime: s?.mtime ?? Date.now(), size: s?.size ?? 0 };
	}

	getResourcePath(file: TFile): string {
		return this.adapter.getResourcePath(file.path);
	}

	static recurseChildren(root: TFolder, cb: (file: TAbstractFile) => void): void {
		cb(root);
		for (const child of root.children) {
			if (child instanceof TFolder) Vault.recurseChildren(child, cb);
			else cb(child);
		}
	}
}

// ---------------------------------------------------------------------------------------------
// MetadataCache
// ---------------------------------------------------------------------------------------------

export interface Loc {
	line: number;
	col: number;
	offset: number;
}

export interface Pos {
	start: Loc;
	end: Loc;
}

export interface LinkCache {
	link: string;
	original: string;
	displayText?: string;
	position: Pos;
}

export interface TagCache {
	tag: string;
	position: Pos;
}

export interface HeadingCache {
	heading: string;
	level: number;
	position: Pos;
}

export interface CachedMetadata {
	links?: LinkCache[];
	embeds?: LinkCache[];
	tags?: TagCache[];
	headings?: HeadingCache[];
	frontmatter?: Record<string, unknown>;
	frontmatterPosition?: Pos;
	frontmatterLinks?: (LinkCache & { key: string })[];
}

/** Line starts of the text last asked about: positions are computed by binary search, not a rescan. */
let lineStartsFor: { text: string; starts: number[] } | null = null;

function locAt(text: string, offset: number): Loc {
	if (lineStartsFor?.text !== text) {
		const starts = [0];
		for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
		lineStartsFor = { text, starts };
	}
	const { starts } = lineStartsFor;
	let lo = 0;
	let hi = starts.length - 1;
	while (lo < hi) {
		const mid = (lo + hi + 1) >> 1;
		if ((starts[mid] ?? 0) <= offset) lo = mid;
		else hi = mid - 1;
	}
	return { line: lo, col: offset - (starts[lo] ?? 0), offset };
}

const FRONTMATTER = /^---\r?\n([\s\S]*?)\r?\n?---(?:\r?\n|$)/;

/** Obsidian-like parse of a note: frontmatter (YAML), links, embeds, tags, headings. */
export function parseMarkdownMetadata(raw: string): CachedMetadata {
	const text = raw.startsWith("\uFEFF") ? raw.slice(1) : raw;
	const cache: CachedMetadata = {};
	let bodyStart = 0;
	const fm = FRONTMATTER.exec(text);
	if (fm) {
		bodyStart = fm[0].length;
		cache.frontmatterPosition = { start: locAt(text, 0), end: locAt(text, fm[0].trimEnd().length) };
		try {
			const value: unknown = parseYamlText(fm[1] ?? "");
			if (value && typeof value === "object" && !Array.isArray(value)) cache.frontmatter = value as Record<string, unknown>;
		} catch {
			// Obsidian shows invalid YAML as no frontmatter.
		}
		if (cache.frontmatter) {
			const links: (LinkCache & { key: string })[] = [];
			const visit = (key: string, v: unknown) => {
				if (typeof v === "string") {
					const m = /^\[\[([^\]|#]*)(?:#[^\]|]*)?(?:\|([^\]]*))?\]\]$/.exec(v.trim());
					if (m) links.push({ key, link: m[1] ?? "", original: v, displayText: m[2] ?? m[1], position: cache.frontmatterPosition! });
				} else if (Array.isArray(v)) v.forEach((item, i) => visit(`${key}.${i}`, item));
				else if (v && typeof v === "object") for (const [k, item] of Object.entries(v)) visit(`${key}.${k}`, item);
			};
			for (const [k, v] of Object.entries(cache.frontmatter)) visit(k, v);
			if (links.length > 0) cache.frontmatterLinks = links;
		}
	}
	const body = text.slice(bodyStart).replace(/```[\s\S]*?```|`[^`\n]*`/g, (m) => " ".repeat(m.length));
	const links: LinkCache[] = [];
	const embeds: LinkCache[] = [];
	for (const m of body.matchAll(/(!?)\[\[([^\]\n]+?)\]\]/g)) {
		const inner = m[2] ?? "";
		const bar = inner.indexOf("|");
		const target = bar < 0 ? inner : inner.slice(0, bar);
		const offset = bodyStart + (m.index ?? 0);
		const entry: LinkCache = {
			link: target.trim(),
			original: m[0],
			displayText: bar < 0 ? target.trim() : inner.slice(bar + 1),
			position: { start: locAt(text, offset), end: locAt(text, offset + m[0].length) },
		};
		(m[1] ? embeds : links).push(entry);
	}
	if (links.length > 0) cache.links = links;
	if (embeds.length > 0) cache.embeds = embeds;
	const tags: TagCache[] = [];
	for (const m of body.matchAll(/(^|\s)(#[\p{L}\p{N}_/-]*[\p{L}_/-][\p{L}\p{N}_/-]*)/gu)) {
		const offset = bodyStart + (m.index ?? 0) + (m[1]?.length ?? 0);
		tags.push({ tag: m[2] ?? "", position: { start: locAt(text, offset), end: locAt(text, offset + (m[2]?.length ?? 0)) } });
	}
	if (tags.length > 0) cache.tags = tags;
	const headings: HeadingCache[] = [];
	for (const m of body.matchAll(/^(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$/gm)) {
		const offset = bodyStart + (m.index ?? 0);
		headings.push({ heading: m[2] ?? "", level: m[1]?.length ?? 1, position: { start: locAt(text, offset), end: locAt(text, offset + m[0].length) } });
	}
	if (headings.length > 0) cache.headings = headings;
	return cache;
}

export class MetadataCache extends Events {
	private readonly caches = new Map<string, CachedMetadata>();
	resolvedLinks: Record<string, Record<string, number>> = {};
	unresolvedLinks: Record<string, Record<string, number>> = {};

	constructor(private readonly vault: Vault) {
		super();
		vault.metadata = this;
		for (const file of vault.getMarkdownFiles()) this.index(file);
		this.resolveAll();
	}

	getFileCache(file: TFile): CachedMetadata | null {
		return this.caches.get(file.path) ?? null;
	}

	getCache(path: string): CachedMetadata | null {
		return this.caches.get(normalizePath(path)) ?? null;
	}

	getFirstLinkpathDest(linkpath: string, sourcePath: string): TFile | null {
		const target = getLinkpath(linkpath).trim();
		if (target === "") return this.vault.getFileByPath(sourcePath);
		const withExt = /\.[a-z0-9]+$/i.test(target) ? target : `${target}.md`;
		const exact = this.vault.getFileByPath(withExt);
		if (exact) return exact;
		const candidates = this.vault.filesNamed(nameOf(withExt)).filter((f) => !target.includes("/") || f.path.toLowerCase().endsWith(withExt.toLowerCase()));
		if (candidates.length === 0) return null;
		// Obsidian prefers the file closest to the source note.
		const sourceFolder = parentOf(sourcePath);
		return candidates.find((f) => parentOf(f.path) === sourceFolder) ?? candidates.sort((a, b) => a.path.length - b.path.length)[0] ?? null;
	}

	fileToLinktext(file: TFile, _sourcePath: string, omitMdExtension = true): string {
		const unique = this.vault.filesNamed(file.name).length === 1;
		const base = unique ? file.name : file.path;
		return omitMdExtension && base.endsWith(".md") ? base.slice(0, -3) : base;
	}

	/** @internal Vault hook: re-parse a file's text now (Obsidian does it right after a write). */
	index(file: TFile): void {
		if (file.extension !== "md") return;
		let text = "";
		try {
			text = this.vault.fsys.read(file.path);
		} catch {
			return;
		}
		this.caches.set(file.path, parseMarkdownMetadata(text));
		this.resolveOne(file.path);
	}

	/** @internal fires "changed" after the vault event, like Obsidian's asynchronous indexer. */
	announce(file: TFile): void {
		const cache = this.caches.get(file.path);
		if (!cache) return;
		queueMicrotask(() => {
			const text = (() => {
				try {
					return this.vault.fsys.read(file.path);
				} catch {
					return "";
				}
			})();
			this.trigger("changed", file, text, cache);
			this.trigger("resolved");
		});
	}

	/** @internal */
	move(oldPath: string, file: TFile): void {
		const cache = this.caches.get(oldPath);
		this.caches.delete(oldPath);
		delete this.resolvedLinks[oldPath];
		delete this.unresolvedLinks[oldPath];
		if (cache) this.caches.set(file.path, cache);
		this.resolveAll();
	}

	/** @internal */
	drop(file: TFile): void {
		const cache = this.caches.get(file.path);
		this.caches.delete(file.path);
		delete this.resolvedLinks[file.path];
		delete this.unresolvedLinks[file.path];
		if (cache) queueMicrotask(() => this.trigger("deleted", file, cache));
	}

	private resolveAll(): void {
		for (const path of this.caches.keys()) this.resolveOne(path);
	}

	private resolveOne(path: string): void {
		const cache = this.caches.get(path);
		const resolved: Record<string, number> = {};
		const unresolved: Record<string, number> = {};
		for (const link of [...(cache?.links ?? []), ...(cache?.embeds ?? [])]) {
			const dest = this.getFirstLinkpathDest(link.link, path);
			if (dest) resolved[dest.path] = (resolved[dest.path] ?? 0) + 1;
			else unresolved[link.link] = (unresolved[link.link] ?? 0) + 1;
		}
		this.resolvedLinks[path] = resolved;
		this.unresolvedLinks[path] = unresolved;
	}
}

// ---------------------------------------------------------------------------------------------
// FileManager
// ---------------------------------------------------------------------------------------------

export class FileManager {
	constructor(private readonly app: App) {}

	/**
	 * Obsidian's processFrontMatter: parse the YAML block, let `fn` mutate it, write it back
	 * (keys keep their order), keep the body as it was. Invalid YAML throws, as in Obsidian.
	 */
	async processFrontMatter(file: TFile, fn: (frontmatter: Record<string, unknown>) => void, options?: DataWriteOptions): Promise<void> {
		await this.app.vault.process(
			file,
			(raw) => {
				const bom = raw.startsWith("\uFEFF") ? "\uFEFF" : "";
				const text = raw.slice(bom.length);
				const eol = text.includes("\r\n") ? "\r\n" : "\n";
				const m = FRONTMATTER.exec(text);
				const doc = parseDocument(m ? (m[1] ?? "") : "");
				if (doc.errors.length > 0) throw new Error(`Invalid YAML frontmatter in ${file.path}: ${doc.errors[0]?.message ?? ""}`);
				const value: unknown = doc.toJS();
				const data: Record<string, unknown> = value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
				fn(data);
				const body = m ? text.slice(m[0].length) : text;
				if (Object.keys(data).length === 0 && !m) return raw;
				const yamlText = Object.keys(data).length === 0 ? "" : stringifyYamlValue(data, { lineWidth: 0 }).replace(/\n$/, "");
				const block = ["---", ...(yamlText === "" ? [] : yamlText.split("\n")), "---"].join(eol);
				return `${bom}${block}${eol}${body}`;
			},
			options,
		);
	}

	async renameFile(file: TAbstractFile, newPath: string): Promise<void> {
		await this.app.vault.rename(file, newPath);
	}

	async trashFile(file: TAbstractFile): Promise<void> {
		await this.app.vault.trash(file, true);
	}

	generateMarkdownLink(file: TFile, sourcePath: string, subpath = "", alias = ""): string {
		const text = this.app.metadataCache.fileToLinktext(file, sourcePath, true);
		return `[[${text}${subpath}${alias ? `|${alias}` : ""}]]`;
	}

	getNewFileParent(_sourcePath: string, _newFilePath?: string): TFolder {
		return this.app.vault.getRoot();
	}
}

// ---------------------------------------------------------------------------------------------
// Workspace, leaves, views
// ---------------------------------------------------------------------------------------------

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

	async openFile(file: TFile): Promise<void> {
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

// ---------------------------------------------------------------------------------------------
// App, commands, plugins
// ---------------------------------------------------------------------------------------------

export interface Command {
	id: string;
	name: string;
	icon?: string;
	hotkeys?: unknown[];
	callback?: () => unknown;
	checkCallback?: (checking: boolean) => boolean | void;
	editorCallback?: (editor: unknown, ctx: unknown) => unknown;
	editorCheckCallback?: (checking: boolean, editor: unknown, ctx: unknown) => boolean | void;
}

export class CommandRegistry {
	readonly commands: Record<string, Command> = {};

	/** Like Obsidian: false when the command is unknown or its checkCallback says it cannot run. */
	executeCommandById(id: string): boolean {
		const command = this.commands[id];
		if (!command) return false;
		if (command.checkCallback) {
			if (!command.checkCallback(true)) return false;
			command.checkCallback(false);
			return true;
		}
		if (command.callback) {
			void command.callback();
			return true;
		}
		return false;
	}

	isAvailable(id: string): boolean {
		const command = this.commands[id];
		if (!command) return false;
		return command.checkCallback ? Boolean(command.checkCallback(true)) : Boolean(command.callback);
	}
}

export interface PluginManifest {
	id: string;
	name: string;
	version: string;
	minAppVersion: string;
	description: string;
	author: string;
	isDesktopOnly?: boolean;
	dir?: string;
}

export class App {
	readonly vault: Vault;
	readonly metadataCache: MetadataCache;
	readonly fileManager: FileManager;
	readonly workspace: Workspace;
	readonly commands = new CommandRegistry();
	/** Settings tabs added by plugins. */
	readonly settingTabs: PluginSettingTab[] = [];
	/** The status bar. */
	readonly statusBarEl: HTMLElement;
	readonly ribbonEl: HTMLElement;
	/** Where modals and notices are attached (document.body in Obsidian). */
	readonly bodyEl: HTMLElement;

	constructor(fsys: FakeFileSystem, options: { mobile?: boolean } = {}) {
		this.vault = new Vault(fsys, options);
		this.metadataCache = new MetadataCache(this.vault);
		this.fileManager = new FileManager(this);
		this.workspace = new Workspace(this);
		this.bodyEl = document.body.createDiv({ cls: "app-container" });
		this.bodyEl.appendChild(this.workspace.containerEl);
		this.statusBarEl = this.bodyEl.createDiv({ cls: "status-bar" });
		this.ribbonEl = this.bodyEl.createDiv({ cls: "side-dock-ribbon" });
	}

	/**
	 * Obsidian's `app.loadLocalStorage`/`saveLocalStorage`: per-vault key-value storage on this
	 * device, kept across restarts (a new App over the same folder sees it); fakeNewDevice() forgets it.
	 */
	private get local(): Map<string, unknown> {
		const key = (this.vault.adapter as unknown as { fsys: FakeFileSystem & { basePath?: string } }).fsys;
		const id = key.basePath ?? key;
		let map = localStorages.get(id);
		if (!map) localStorages.set(id, (map = new Map<string, unknown>()));
		return map;
	}
	loadLocalStorage(key: string): unknown {
		return this.local.get(key) ?? null;
	}
	saveLocalStorage(key: string, value: unknown): void {
		if (value === null || value === undefined) this.local.delete(key);
		else this.local.set(key, value);
	}
}

export abstract class Plugin extends Component {
	readonly app: App;
	readonly manifest: PluginManifest;

	constructor(app: App, manifest: PluginManifest) {
		super();
		this.app = app;
		this.manifest = manifest;
	}

	private get dataPath(): string {
		return `${this.manifest.dir ?? `${this.app.vault.configDir}/plugins/${this.manifest.id}`}/data.json`;
	}

	async loadData(): Promise<unknown> {
		if (!(await this.app.vault.adapter.exists(this.dataPath))) return null;
		return JSON.parse(await this.app.vault.adapter.read(this.dataPath)) as unknown;
	}

	async saveData(data: unknown): Promise<void> {
		const dir = parentOf(this.dataPath);
		if (!(await this.app.vault.adapter.exists(dir))) await this.app.vault.adapter.mkdir(dir);
		await this.app.vault.adapter.write(this.dataPath, JSON.stringify(data, null, "\t"));
	}

	addCommand(command: Command): Command {
		const full = { ...command, id: `${this.manifest.id}:${command.id}` };
		this.app.commands.commands[full.id] = full;
		this.register(() => delete this.app.commands.commands[full.id]);
		return full;
	}

	removeCommand(id: string): void {
		delete this.app.commands.commands[`${this.manifest.id}:${id}`];
	}

	addRibbonIcon(icon: string, title: string, callback: (evt: MouseEvent) => unknown): HTMLElement {
		const el = this.app.ribbonEl.createDiv({ cls: ["side-dock-ribbon-action", "clickable-icon"], attr: { "aria-label": title } });
		setIcon(el, icon);
		el.addEventListener("click", (evt) => void callback(evt as MouseEvent));
		this.register(() => el.remove());
		return el;
	}

	addStatusBarItem(): HTMLElement {
		const el = this.app.statusBarEl.createDiv({ cls: ["status-bar-item", `plugin-${this.manifest.id}`] });
		this.register(() => el.remove());
		return el;
	}

	addSettingTab(tab: PluginSettingTab): void {
		this.app.settingTabs.push(tab);
		this.register(() => {
			const at = this.app.settingTabs.indexOf(tab);
			if (at >= 0) this.app.settingTabs.splice(at, 1);
		});
	}

	registerView(type: string, creator: ViewCreator): void {
		this.app.workspace.registerViewCreator(type, creator);
		this.register(() => this.app.workspace.unregisterViewCreator(type));
	}

	registerExtensions(_extensions: string[], _viewType: string): void {}
	registerMarkdownPostProcessor(_processor: unknown): void {}
	registerEditorExtension(_extension: unknown): void {}
	registerObsidianProtocolHandler(_action: string, _handler: unknown): void {}
	onExternalSettingsChange?(): unknown;
}

// ---------------------------------------------------------------------------------------------
// UI: notices, modals, suggesters, settings
// ---------------------------------------------------------------------------------------------

/** Every Notice shown, newest last (tests read what the person was told). */
export const fakeNotices: Notice[] = [];

export class Notice {
	readonly containerEl: HTMLElement;
	readonly noticeEl: HTMLElement;
	readonly messageEl: HTMLElement;
	// Obsidian's own timer, not the plugin's: kept out of the leak count (fakeActiveTimers).
	private timer: ReturnType<typeof setTimeout> | undefined;
	hidden = false;

	constructor(message: string | DocumentFragment, duration?: number) {
		this.containerEl = document.body.createDiv({ cls: "notice-container" });
		this.noticeEl = this.containerEl.createDiv({ cls: "notice" });
		this.messageEl = this.noticeEl.createDiv({ cls: "notice-message" });
		this.setMessage(message);
		fakeNotices.push(this);
		if (duration !== 0) {
			this.timer = setTimeout(() => this.hide(), duration ?? 5000);
			(this.timer as { unref?: () => void }).unref?.();
		}
	}

	setMessage(message: string | DocumentFragment): this {
		this.messageEl.setText(message);
		return this;
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

export class Scope {
	register(_modifiers: string[] | null, _key: string | null, _func: (evt: KeyboardEvent) => unknown): unknown {
		return {};
	}
}

export class Modal {
	readonly app: App;
	readonly scope = new Scope();
	readonly containerEl: HTMLElement;
	readonly modalEl: HTMLElement;
	readonly titleEl: HTMLElement;
	readonly contentEl: HTMLElement;
	shouldRestoreSelection = true;
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

	setContent(content: string | DocumentFragment): this {
		this.contentEl.setText(content);
		return this;
	}

	/** Test helper. */
	get opened(): boolean {
		return this.isOpen;
	}
}

export interface Instruction {
	command: string;
	purpose: string;
}

export abstract class SuggestModal<T> extends Modal {
	limit = 100;
	emptyStateText = "No results found.";
	readonly inputEl: HTMLInputElement;
	readonly resultContainerEl: HTMLElement;
	/** The suggestions currently shown (after the last query settled). */
	suggestions: T[] = [];
	private lastQuery: Promise<void> = Promise.resolve();

	constructor(app: App) {
		super(app);
		this.modalEl.addClass("prompt");
		this.inputEl = this.modalEl.createEl("input", { cls: "prompt-input", type: "text" });
		this.resultContainerEl = this.modalEl.createDiv({ cls: "prompt-results" });
		this.inputEl.addEventListener("input", () => {
			this.lastQuery = this.updateSuggestions();
		});
	}

	override open(): void {
		super.open();
		this.lastQuery = this.updateSuggestions();
	}

	setPlaceholder(placeholder: string): void {
		this.inputEl.setAttribute("placeholder", placeholder);
	}

	setInstructions(_instructions: Instruction[]): void {}

	onNoSuggestion(): void {
		this.resultContainerEl.empty();
		this.resultContainerEl.createDiv({ cls: "suggestion-empty", text: this.emptyStateText });
	}

	private async updateSuggestions(): Promise<void> {
		const query = this.inputEl.value;
		const items = await this.getSuggestions(query);
		if (query !== this.inputEl.value) return;
		this.suggestions = items.slice(0, this.limit);
		this.resultContainerEl.empty();
		if (this.suggestions.length === 0) {
			this.onNoSuggestion();
			return;
		}
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

	selectActiveSuggestion(evt: MouseEvent | KeyboardEvent): void {
		const first = this.suggestions[0];
		if (first !== undefined) this.selectSuggestion(first, evt);
	}

	/** Test helper: types a query and waits for the suggestions. */
	async fakeType(query: string): Promise<T[]> {
		this.inputEl.value = query;
		this.lastQuery = this.updateSuggestions();
		await this.lastQuery;
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

export function prepareSimpleSearch(query: string): (text: string) => SearchResult | null {
	const words = query.toLowerCase().split(/\s+/).filter(Boolean);
	return (text: string) => (words.every((w) => text.toLowerCase().includes(w)) ? { score: 0, matches: [] } : null);
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

abstract class ValueComponent<T> {
	disabled = false;
	abstract getValue(): T;
	abstract setValue(value: T): this;
	registerOptionListener(_listeners: Record<string, (value?: T) => T>, _key: string): this {
		return this;
	}
}

export class BaseComponent {
	disabled = false;
	then(cb: (component: this) => unknown): this {
		cb(this);
		return this;
	}
	setDisabled(disabled: boolean): this {
		this.disabled = disabled;
		return this;
	}
}

export class TextComponent extends ValueComponent<string> {
	readonly inputEl: HTMLInputElement;
	private changeCallback?: (value: string) => unknown;

	constructor(containerEl: HTMLElement, tag: "input" | "textarea" = "input") {
		super();
		this.inputEl = containerEl.createEl(tag as "input", tag === "input" ? { type: "text" } : undefined);
		this.inputEl.addEventListener("input", () => this.onChanged());
	}
	getValue(): string {
		return this.inputEl.value;
	}
	setValue(value: string): this {
		this.inputEl.value = value;
		return this;
	}
	setPlaceholder(placeholder: string): this {
		this.inputEl.setAttribute("placeholder", placeholder);
		return this;
	}
	setDisabled(disabled: boolean): this {
		this.disabled = disabled;
		this.inputEl.disabled = disabled;
		return this;
	}
	onChanged(): void {
		void this.changeCallback?.(this.getValue());
	}
	onChange(callback: (value: string) => unknown): this {
		this.changeCallback = callback;
		return this;
	}
	then(cb: (component: this) => unknown): this {
		cb(this);
		return this;
	}
}

export class TextAreaComponent extends TextComponent {
	constructor(containerEl: HTMLElement) {
		super(containerEl, "textarea");
	}
}

export class ToggleComponent extends ValueComponent<boolean> {
	readonly toggleEl: HTMLElement;
	private value = false;
	private changeCallback?: (value: boolean) => unknown;

	constructor(containerEl: HTMLElement) {
		super();
		this.toggleEl = containerEl.createDiv({ cls: "checkbox-container" });
		this.toggleEl.createEl("input", { type: "checkbox" });
		this.toggleEl.addEventListener("click", () => {
			if (this.disabled) return;
			this.setValue(!this.value);
			void this.changeCallback?.(this.value);
		});
	}
	getValue(): boolean {
		return this.value;
	}
	setValue(on: boolean): this {
		this.value = on;
		this.toggleEl.toggleClass("is-enabled", on);
		const box = this.toggleEl.querySelector("input");
		if (box) box.checked = on;
		return this;
	}
	setDisabled(disabled: boolean): this {
		this.disabled = disabled;
		this.toggleEl.toggleClass("is-disabled", disabled);
		return this;
	}
	setTooltip(tooltip: string): this {
		this.toggleEl.setAttribute("aria-label", tooltip);
		return this;
	}
	onChange(callback: (value: boolean) => unknown): this {
		this.changeCallback = callback;
		return this;
	}
	then(cb: (component: this) => unknown): this {
		cb(this);
		return this;
	}
}

export class DropdownComponent extends ValueComponent<string> {
	readonly selectEl: HTMLSelectElement;
	private changeCallback?: (value: string) => unknown;

	constructor(containerEl: HTMLElement) {
		super();
		this.selectEl = containerEl.createEl("select", { cls: "dropdown" });
		this.selectEl.addEventListener("change", () => void this.changeCallback?.(this.selectEl.value));
	}
	addOption(value: string, display: string): this {
		this.selectEl.createEl("option", { value, text: display });
		return this;
	}
	addOptions(options: Record<string, string>): this {
		for (const [value, display] of Object.entries(options)) this.addOption(value, display);
		return this;
	}
	getValue(): string {
		return this.selectEl.value;
	}
	setValue(value: string): this {
		this.selectEl.value = value;
		return this;
	}
	setDisabled(disabled: boolean): this {
		this.disabled = disabled;
		this.selectEl.disabled = disabled;
		return this;
	}
	onChange(callback: (value: string) => unknown): this {
		this.changeCallback = callback;
		return this;
	}
	then(cb: (component: this) => unknown): this {
		cb(this);
		return this;
	}
}

export class SliderComponent extends ValueComponent<number> {
	readonly sliderEl: HTMLInputElement;
	private changeCallback?: (value: number) => unknown;

	constructor(containerEl: HTMLElement) {
		super();
		this.sliderEl = containerEl.createEl("input", { type: "range", cls: "slider" });
		this.sliderEl.addEventListener("input", () => void this.changeCallback?.(Number(this.sliderEl.value)));
	}
	setLimits(min: number | null, max: number | null, step: number | "any"): this {
		if (min !== null) this.sliderEl.min = String(min);
		if (max !== null) this.sliderEl.max = String(max);
		this.sliderEl.step = String(step);
		return this;
	}
	setDynamicTooltip(): this {
		return this;
	}
	getValue(): number {
		return Number(this.sliderEl.value);
	}
	setValue(value: number): this {
		this.sliderEl.value = String(value);
		return this;
	}
	onChange(callback: (value: number) => unknown): this {
		this.changeCallback = callback;
		return this;
	}
	then(cb: (component: this) => unknown): this {
		cb(this);
		return this;
	}
}

export class ButtonComponent extends BaseComponent {
	readonly buttonEl: HTMLButtonElement;

	constructor(containerEl: HTMLElement) {
		super();
		this.buttonEl = containerEl.createEl("button");
	}
	setButtonText(name: string): this {
		this.buttonEl.setText(name);
		return this;
	}
	setCta(): this {
		this.buttonEl.addClass("mod-cta");
		return this;
	}
	removeCta(): this {
		this.buttonEl.removeClass("mod-cta");
		return this;
	}
	setWarning(): this {
		this.buttonEl.addClass("mod-warning");
		return this;
	}
	setIcon(icon: string): this {
		setIcon(this.buttonEl, icon);
		return this;
	}
	setTooltip(tooltip: string): this {
		this.buttonEl.setAttribute("aria-label", tooltip);
		return this;
	}
	setClass(cls: string): this {
		this.buttonEl.addClass(cls);
		return this;
	}
	override setDisabled(disabled: boolean): this {
		this.disabled = disabled;
		this.buttonEl.disabled = disabled;
		return this;
	}
	onClick(callback: (evt: MouseEvent) => unknown): this {
		this.buttonEl.addEventListener("click", (evt) => {
			if (!this.disabled) void callback(evt);
		});
		return this;
	}
}

export class ExtraButtonComponent extends BaseComponent {
	readonly extraSettingsEl: HTMLElement;

	constructor(containerEl: HTMLElement) {
		super();
		this.extraSettingsEl = containerEl.createDiv({ cls: ["clickable-icon", "extra-setting-button"] });
	}
	setIcon(icon: string): this {
		setIcon(this.extraSettingsEl, icon);
		return this;
	}
	setTooltip(tooltip: string): this {
		this.extraSettingsEl.setAttribute("aria-label", tooltip);
		return this;
	}
	onClick(callback: () => unknown): this {
		this.extraSettingsEl.addEventListener("click", () => {
			if (!this.disabled) void callback();
		});
		return this;
	}
}

export class Setting {
	readonly settingEl: HTMLElement;
	readonly infoEl: HTMLElement;
	readonly nameEl: HTMLElement;
	readonly descEl: HTMLElement;
	readonly controlEl: HTMLElement;
	readonly components: unknown[] = [];

	constructor(containerEl: HTMLElement) {
		this.settingEl = containerEl.createDiv({ cls: "setting-item" });
		this.infoEl = this.settingEl.createDiv({ cls: "setting-item-info" });
		this.nameEl = this.infoEl.createDiv({ cls: "setting-item-name" });
		this.descEl = this.infoEl.createDiv({ cls: "setting-item-description" });
		this.controlEl = this.settingEl.createDiv({ cls: "setting-item-control" });
	}
	setName(name: string | DocumentFragment): this {
		this.nameEl.setText(name);
		return this;
	}
	setDesc(desc: string | DocumentFragment): this {
		this.descEl.setText(desc);
		return this;
	}
	setClass(cls: string): this {
		this.settingEl.addClass(cls);
		return this;
	}
	setTooltip(tooltip: string): this {
		this.nameEl.setAttribute("aria-label", tooltip);
		return this;
	}
	setHeading(): this {
		this.settingEl.addClass("setting-item-heading");
		return this;
	}
	setDisabled(disabled: boolean): this {
		this.settingEl.toggleClass("is-disabled", disabled);
		return this;
	}
	private add<C>(component: C, cb: (component: C) => unknown): this {
		this.components.push(component);
		cb(component);
		return this;
	}
	addText(cb: (component: TextComponent) => unknown): this {
		return this.add(new TextComponent(this.controlEl), cb);
	}
	addTextArea(cb: (component: TextAreaComponent) => unknown): this {
		return this.add(new TextAreaComponent(this.controlEl), cb);
	}
	addSearch(cb: (component: TextComponent) => unknown): this {
		return this.add(new TextComponent(this.controlEl), cb);
	}
	addToggle(cb: (component: ToggleComponent) => unknown): this {
		return this.add(new ToggleComponent(this.controlEl), cb);
	}
	addDropdown(cb: (component: DropdownComponent) => unknown): this {
		return this.add(new DropdownComponent(this.controlEl), cb);
	}
	addSlider(cb: (component: SliderComponent) => unknown): this {
		return this.add(new SliderComponent(this.controlEl), cb);
	}
	addButton(cb: (component: ButtonComponent) => unknown): this {
		return this.add(new ButtonComponent(this.controlEl), cb);
	}
	addExtraButton(cb: (component: ExtraButtonComponent) => unknown): this {
		return this.add(new ExtraButtonComponent(this.controlEl), cb);
	}
	then(cb: (setting: this) => unknown): this {
		cb(this);
		return this;
	}
}

export abstract class SettingTab {
	readonly app: App;
	readonly containerEl: HTMLElement;

	constructor(app: App) {
		this.app = app;
		this.containerEl = createDiv({ cls: ["vertical-tab-content", "plugin-setting-tab"] });
	}
	abstract display(): void;
	hide(): void {
		this.containerEl.empty();
	}
}

export abstract class PluginSettingTab extends SettingTab {
	constructor(
		app: App,
		readonly plugin: Plugin,
	) {
		super(app);
	}
}

export class Menu extends Component {
	readonly items: { title: string; onClick?: () => unknown }[] = [];
	addItem(cb: (item: { setTitle(t: string): unknown; setIcon(i: string): unknown; onClick(f: () => unknown): unknown }) => unknown): this {
		const entry: { title: string; onClick?: () => unknown } = { title: "" };
		const item = {
			setTitle: (t: string) => ((entry.title = t), item),
			setIcon: () => item,
			onClick: (f: () => unknown) => ((entry.onClick = f), item),
		};
		cb(item);
		this.items.push(entry);
		return this;
	}
	addSeparator(): this {
		return this;
	}
	showAtMouseEvent(_evt: MouseEvent): this {
		return this;
	}
	showAtPosition(_pos: { x: number; y: number }): this {
		return this;
	}
	hide(): this {
		return this;
	}
}

export const Keymap = {
	isModEvent(_evt?: unknown): boolean | string {
		return false;
	},
	isModifier(_evt: unknown, _modifier: string): boolean {
		return false;
	},
};

export class MarkdownRenderer {
	static render(_app: App, markdown: string, el: HTMLElement, _sourcePath: string, _component: Component): Promise<void> {
		el.createDiv({ cls: "markdown-rendered", text: markdown });
		return Promise.resolve();
	}
}

// ---------------------------------------------------------------------------------------------
// Test helpers (not part of Obsidian's API)
// ---------------------------------------------------------------------------------------------

/** Timers started through window.setTimeout/setInterval that have not fired or been cleared. */
export function fakeActiveTimers(): { timeouts: number; intervals: number } {
	let timeouts = 0;
	let intervals = 0;
	for (const kind of activeTimers.values()) {
		if (kind === "timeout") timeouts++;
		else intervals++;
	}
	return { timeouts, intervals };
}

let heldReads: { released: Promise<void>; onWaiting: () => void } | null = null;

/**
 * Holds every Vault.read/cachedRead until `release()` (long work caught mid-way, without timing):
 * `waiting` resolves once a read is held.
 */
export function fakeHoldReads(): { waiting: Promise<void>; release(): void } {
	let release!: () => void;
	let waited!: () => void;
	const released = new Promise<void>((resolve) => (release = resolve));
	const waiting = new Promise<void>((resolve) => (waited = resolve));
	const hold = { released, onWaiting: waited };
	heldReads = hold;
	return {
		waiting,
		release() {
			if (heldReads === hold) heldReads = null;
			release();
		},
	};
}

/** Forgets recorded notices, modals, errors and requests (between tests). */
/** Local storage per vault folder (or in-memory file system), as Obsidian keeps it per vault and device. */
const localStorages = new Map<unknown, Map<string, unknown>>();

/** The next App over any vault behaves as another device: its local storage starts empty. */
export function fakeNewDevice(): void {
	localStorages.clear();
}

export function fakeReset(): void {
	fakeNotices.splice(0).forEach((n) => n.hide());
	fakeOpenModals.splice(0).forEach((m) => m.close());
	fakeErrors.splice(0);
	fakeRequests.splice(0);
}

/** Builds an App over a folder on disk (Node) or a file system of your choice. */
export function createFakeApp(vault: string | FakeFileSystem, options: { mobile?: boolean } = {}): App {
	return new App(typeof vault === "string" ? nodeFileSystem(vault) : vault, options);
}
