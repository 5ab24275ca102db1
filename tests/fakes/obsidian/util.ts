// Small utilities: paths, icons, Platform, requestUrl, the app version. Part of the one fake of `obsidian`: import it through tests/fakes/obsidian.ts.

export function normalizePath(path: string): string {
	const cleaned = path
		.replace(/[\\/]+/g, "/")
		.replace(/\u00A0|\u202F/g, " ")
		.split("/")
		.filter((part) => part !== "" && part !== ".")
		.join("/");
	return cleaned === "" ? "/" : cleaned.normalize("NFC");
}

export function setIcon(el: HTMLElement, icon: string): void {
	el.empty();
	el.createSvg("svg", { cls: ["svg-icon", `lucide-${icon}`], attr: { "data-icon": icon, width: 16, height: 16, viewBox: "0 0 24 24" } });
}

/** The plugin reads isDesktopApp; plugin-mobile.test.ts flips all four. */
export const Platform = { isDesktop: true, isMobile: false, isDesktopApp: true, isMobileApp: false };

export interface RequestUrlParam {
	url: string;
	method?: string;
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
export async function requestUrl(req: RequestUrlParam): Promise<RequestUrlResponse> {
	fakeRequests.push({ url: req.url, method: req.method ?? "GET" });
	const response = await fetch(req.url, { method: req.method ?? "GET", headers: req.headers, body: req.body });
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
