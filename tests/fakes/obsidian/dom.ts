// The DOM: the createEl family on whatever DOM exists (happy-dom in Node), timers, clipboard. Part of the one fake of `obsidian`: import it through tests/fakes/obsidian.ts.
import { Window as HappyWindow } from "happy-dom";
import { WebSocket as NodeWebSocket } from "ws";

export type Callback = (...args: never[]) => unknown;
export type AnyCallback = (...args: unknown[]) => unknown;

interface ElementInfo {
	cls?: string | string[];
	text?: string | DocumentFragment;
	attr?: Record<string, string | number | boolean>;
	value?: string;
	type?: string;
	placeholder?: string;
}

/** What the plugin last wrote to the clipboard (Node). */
export const fakeClipboard = { text: "" };

/** Active timers started through `window.setTimeout/setInterval`, for leak checks after unload. */
const activeTimers = new Map<unknown, "timeout" | "interval">();

function applyInfo(el: Element, info: ElementInfo | undefined): void {
	if (info === undefined) return;
	if (info.cls !== undefined) {
		const classes = (Array.isArray(info.cls) ? info.cls : info.cls.split(" ")).filter(Boolean);
		if (classes.length > 0) el.classList.add(...classes);
	}
	if (info.text !== undefined) setElementText(el, info.text);
	if (info.attr) for (const [k, v] of Object.entries(info.attr)) el.setAttribute(k, String(v));
	if (info.value !== undefined) (el as HTMLInputElement).value = info.value;
	if (info.type !== undefined) el.setAttribute("type", info.type);
	if (info.placeholder !== undefined) el.setAttribute("placeholder", info.placeholder);
}

/** show()/hide() change inline styles in Obsidian too (a helper: the lint rule is for plugin code). */
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

/** Adds Obsidian's DOM helpers (the ones the plugin uses) to a window's prototypes and globals. */
export function installDom(win: Window & typeof globalThis): void {
	const createEl = (tag: string, o?: ElementInfo): HTMLElement => {
		const el = win.document.createElement(tag);
		applyInfo(el, o);
		return el;
	};
	const nodeProto = win.Node.prototype as unknown as Record<string, unknown>;
	const elProto = win.Element.prototype as unknown as Record<string, unknown>;
	const htmlProto = win.HTMLElement.prototype as unknown as Record<string, unknown>;

	const define = (proto: Record<string, unknown>, name: string, fn: AnyCallback) =>
		Object.defineProperty(proto, name, { value: fn, writable: true, configurable: true });

	define(nodeProto, "createEl", function (this: Node, tag: unknown, o?: unknown) {
		return this.appendChild(createEl(tag as string, o as ElementInfo));
	});
	define(nodeProto, "createDiv", function (this: Node, o?: unknown) {
		return this.appendChild(createEl("div", o as ElementInfo));
	});
	define(nodeProto, "createSpan", function (this: Node, o?: unknown) {
		return this.appendChild(createEl("span", o as ElementInfo));
	});
	define(nodeProto, "createSvg", function (this: Node, tag: unknown, o?: unknown) {
		const el = win.document.createElementNS("http://www.w3.org/2000/svg", tag as string);
		applyInfo(el, o as ElementInfo);
		return this.appendChild(el);
	});
	define(nodeProto, "empty", function (this: Node) {
		while (this.firstChild) this.removeChild(this.firstChild);
	});
	define(nodeProto, "appendText", function (this: Node, text: unknown) {
		this.appendChild(win.document.createTextNode(String(text)));
	});
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
	define(elProto, "removeClass", function (this: Element, ...classes: unknown[]) {
		this.classList.remove(...(classes as string[]));
	});
	define(elProto, "toggleClass", function (this: Element, classes: unknown, value: unknown) {
		for (const c of Array.isArray(classes) ? (classes as string[]) : [classes as string]) this.classList.toggle(c, Boolean(value));
	});
	define(elProto, "setAttr", function (this: Element, name: unknown, value: unknown) {
		this.setAttribute(name as string, String(value));
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

	(win as unknown as Record<string, unknown>).createDiv = (o?: ElementInfo) => createEl("div", o);
}

/** Node: a happy-dom window becomes `window`/`document` and the DOM globals, with tracked timers. */
function installNodeDom(): void {
	const g = globalThis as unknown as Record<string, unknown>;
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
		activeTimers.delete(handle);
		clearTimeout(handle);
	};
	wg.setInterval = (fn: () => void, ms?: number, ...args: unknown[]) => {
		const handle = setInterval(fn, ms, ...args);
		activeTimers.set(handle, "interval");
		return handle;
	};
	wg.clearInterval = (handle: NodeJS.Timeout | undefined) => {
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
	]) {
		if (!(name in g)) g[name] = wg[name];
	}
	g.createDiv = wg.createDiv;
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
