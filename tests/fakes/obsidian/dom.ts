// The DOM: the createEl family on whatever DOM exists (happy-dom in Node), timers, clipboard. Part of the one fake of `obsidian`: import it through tests/fakes/obsidian.ts.
import { Window as HappyWindow } from "happy-dom";
import { WebSocket as NodeWebSocket } from "ws";

export type Callback = (...args: never[]) => unknown;
export type AnyCallback = (...args: unknown[]) => unknown;


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
