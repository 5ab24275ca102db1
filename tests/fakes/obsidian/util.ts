// Small utilities: paths, debounce, icons, YAML, links and tags, Platform, requestUrl. Part of the one fake of `obsidian`: import it through tests/fakes/obsidian.ts.
import { parse as parseYamlText, stringify as stringifyYamlValue } from "yaml";
import { type CachedMetadata } from "./metadata";

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

/** The app version the fake plays (Obsidian's `apiVersion`); fakeApiVersion() changes it. */
export let apiVersion = "1.13.1";

/** Obsidian's check: true when the running app is at least `version` (numeric, part by part). */
export function requireApiVersion(version: string): boolean {
	const want = version.split(".").map(Number);
	const have = apiVersion.split(".").map(Number);
	for (let i = 0; i < Math.max(want.length, have.length); i++) {
		const a = have[i] ?? 0;
		const b = want[i] ?? 0;
		if (a !== b) return a > b;
	}
	return true;
}

/**
 * Plays an older (or newer) app: `requireApiVersion` answers for it and APIs added later are
 * missing (Notice.messageEl before 1.8.7, app.secretStorage before 1.11.4). Returns the undo.
 */
export function fakeApiVersion(version: string): () => void {
	const before = apiVersion;
	apiVersion = version;
	return () => {
		apiVersion = before;
	};
}
