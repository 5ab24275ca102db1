// A local stand-in for the Hugging Face hub and the onnxruntime-web CDN, for the plugin's local
// model download tests: the tiny generated model under <model>/resolve/main/<file> and the real
// ONNX Runtime WASM from node_modules under npm/onnxruntime-web@<version>/dist/<file>. It answers
// Range requests (206 + Content-Range) as both do, names LFS files' SHA-256 in X-Linked-Etag like
// the hub, and can be slowed down or made to fail.
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { createRequire } from "node:module";

const requireHere = createRequire(import.meta.url);

export const ORT_DIST = dirname(requireHere.resolve("onnxruntime-web/ort-wasm-simd-threaded.wasm"));
export const ORT_VERSION = (JSON.parse(readFileSync(join(ORT_DIST, "..", "package.json"), "utf8")) as { version: string }).version;

export interface HubServer {
	readonly url: string;
	/** The runtime URL setting for this server ({version} left for the plugin to fill in). */
	readonly runtimeUrl: string;
	readonly requests: string[];
	/** Milliseconds to wait before each answer (lets a test cancel mid-download). */
	delayMs: number;
	/** Paths that answer 404. */
	readonly missing: Set<string>;
	/** Paths served with one byte changed (the X-Linked-Etag still names the real file's hash). */
	readonly corrupt: Set<string>;
	close(): Promise<void>;
}

export async function startHubServer(modelsRoot: string): Promise<HubServer> {
	const requests: string[] = [];
	const state = { delayMs: 0, missing: new Set<string>(), corrupt: new Set<string>() };
	const server: Server = createServer((req, res) => {
		const path = decodeURIComponent((req.url ?? "/").split("?")[0]);
		requests.push(`${req.method ?? "GET"} ${path} ${req.headers.range ?? ""}`.trim());
		const answer = () => {
			const file = resolveFile(modelsRoot, path);
			if (!file || state.missing.has(path) || !existsSync(file)) {
				res.writeHead(404, { "content-type": "text/plain" }).end("Entry not found");
				return;
			}
			let data = readFileSync(file);
			const headers: Record<string, string> = { "content-type": "application/octet-stream", "accept-ranges": "bytes" };
			if (path.endsWith(".onnx")) headers["x-linked-etag"] = `"${createHash("sha256").update(data).digest("hex")}"`;
			if (state.corrupt.has(path)) {
				data = Buffer.from(data);
				data[data.length - 1] ^= 0xff;
			}
			const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? "");
			if (!range) {
				res.writeHead(200, { ...headers, "content-length": String(data.length) }).end(data);
				return;
			}
			const start = Number(range[1]);
			const end = Math.min(range[2] ? Number(range[2]) : data.length - 1, data.length - 1);
			if (start >= data.length) {
				res.writeHead(416, { "content-range": `bytes */${data.length}` }).end();
				return;
			}
			res.writeHead(206, { ...headers, "content-range": `bytes ${start}-${end}/${data.length}`, "content-length": String(end - start + 1) }).end(data.subarray(start, end + 1));
		};
		if (state.delayMs > 0) setTimeout(answer, state.delayMs);
		else answer();
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	return {
		url,
		runtimeUrl: `${url}/npm/onnxruntime-web@{version}/dist`,
		requests,
		get delayMs() {
			return state.delayMs;
		},
		set delayMs(ms: number) {
			state.delayMs = ms;
		},
		missing: state.missing,
		corrupt: state.corrupt,
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}

/** Hub layout: /<owner>/<name>/resolve/main/<file>; CDN layout: /npm/onnxruntime-web@<version>/dist/<file>. */
function resolveFile(modelsRoot: string, path: string): string | null {
	if (path.includes("..")) return null;
	const runtime = /^\/npm\/onnxruntime-web@([^/]+)\/dist\/([\w.-]+)$/.exec(path);
	if (runtime) return runtime[1] === ORT_VERSION ? join(ORT_DIST, runtime[2]) : null;
	const model = /^\/([\w.-]+)\/([\w.-]+)\/resolve\/main\/(.+)$/.exec(path);
	return model ? join(modelsRoot, model[1], model[2], ...model[3].split("/")) : null;
}

/** The same layouts for a Playwright page's route (`route.fulfill`): the page's origin serves the hub under a prefix. */
export function hubRouteAnswer(modelsRoot: string, path: string, range: string | undefined): { status: number; body: Buffer | string; headers?: Record<string, string> } {
	const file = resolveFile(modelsRoot, path);
	if (!file || !existsSync(file)) return { status: 404, body: "Entry not found" };
	const data = readFileSync(file);
	const r = /^bytes=(\d+)-(\d*)$/.exec(range ?? "");
	if (!r) return { status: 200, body: data, headers: { "content-type": "application/octet-stream" } };
	const start = Number(r[1]);
	const end = Math.min(r[2] ? Number(r[2]) : data.length - 1, data.length - 1);
	return { status: 206, body: data.subarray(start, end + 1), headers: { "content-type": "application/octet-stream", "content-range": `bytes ${start}-${end}/${data.length}` } };
}
