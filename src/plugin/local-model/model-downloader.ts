import type { RequestUrlParam, RequestUrlResponse } from "obsidian";
import { errorMessage } from "../../engine/errors";
import { sha256Hex } from "../../engine/plain-values";
import { CancelledError } from "../work-gate";
import { MODEL_FILES, ORT_RELEASE, ORT_WASM_FILE } from "./catalogue";
import type { InstalledFile, InstalledModel, InstalledRuntime, ModelStore } from "./model-store";

export type RequestFn = (request: RequestUrlParam) => Promise<RequestUrlResponse>;

export interface DownloadProgress {
	/** The file being downloaded (a path inside the model, or the runtime binary). */
	readonly file: string;
	readonly fileIndex: number;
	readonly fileCount: number;
	/** Bytes of this file so far, and its size once the server said it (0 before). */
	readonly loaded: number;
	readonly total: number;
	/** Bytes of every file so far. */
	readonly downloaded: number;
}

export interface DownloadRequest {
	readonly store: ModelStore;
	readonly model: string;
	/** Model hub (https://huggingface.co or a mirror): files are `<hub>/<model>/resolve/main/<file>`. */
	readonly hubUrl: string;
	/** Folder URL of the onnxruntime-web dist files; `{version}` is replaced. */
	readonly runtimeUrl: string;
	readonly ortVersion: string;
	readonly request: RequestFn;
	readonly signal: AbortSignal;
	readonly onProgress: (progress: DownloadProgress) => void;
	/** Loads the staged model and embeds a sentence: resolves with its dimension, or throws. */
	readonly check: (folder: string) => Promise<number>;
	/** Bytes per request: requestUrl has no streaming, ranges give progress and cancel points. */
	readonly chunkBytes?: number;
}

/** A download that did not finish: what failed, and what to do about it. */
export class ModelDownloadError extends Error {
	constructor(message: string) {
		super(message);
		this.name = "ModelDownloadError";
	}
}

/**
 * Downloads the ONNX Runtime binary (once per version) and the model's files into a staging
 * folder, verifies them (size against the server's, SHA-256 when the server names it, the runtime
 * against the SHA-256 recorded for the pinned release, then a real load and embed), and only then moves them into place and writes the
 * manifest. Cancelled or failed, the staging folder is removed and the installed model (if any)
 * is untouched.
 */
export async function downloadModel(req: DownloadRequest): Promise<InstalledModel> {
	const { store, signal } = req;
	const staging = store.stagingFolder();
	if (req.ortVersion !== ORT_RELEASE.version) {
		// A build mismatch, never a user error: the glue and the recorded checksum must be the same release.
		throw new ModelDownloadError(`this build carries ONNX Runtime ${req.ortVersion}, but its checksum is recorded for ${ORT_RELEASE.version}; reinstall the plugin.`);
	}
	const runtimeNeeded = !(await store.installedRuntime(req.ortVersion));
	const jobs: { file: string; url: string }[] = [];
	if (runtimeNeeded) jobs.push({ file: ORT_WASM_FILE, url: joinUrl(req.runtimeUrl.replace("{version}", req.ortVersion), ORT_WASM_FILE) });
	for (const file of MODEL_FILES) jobs.push({ file, url: joinUrl(req.hubUrl, `${req.model}/resolve/main/${file}`) });
	let downloaded = 0;
	try {
		const files: InstalledFile[] = [];
		let runtime: InstalledRuntime | null = null;
		for (const [index, job] of jobs.entries()) {
			const bytes = await fetchFile(req, job.url, (loaded, total) => {
				req.onProgress({ file: job.file, fileIndex: index + 1, fileCount: jobs.length, loaded, total, downloaded: downloaded + loaded });
			});
			downloaded += bytes.data.byteLength;
			const sha256 = await sha256Hex(bytes.data);
			if (bytes.sha256 && bytes.sha256 !== sha256) throw new ModelDownloadError(`${job.file} is damaged: its SHA-256 is ${sha256}, the server said ${bytes.sha256}. Download it again.`);
			if (job.file === ORT_WASM_FILE) {
				if (!isWasm(bytes.data)) throw new ModelDownloadError(`${job.url} is not a WebAssembly file. Check the runtime download URL.`);
				if (sha256 !== ORT_RELEASE.wasmSha256) {
					throw new ModelDownloadError(
						`${job.url} is not ONNX Runtime ${ORT_RELEASE.version}'s ${ORT_WASM_FILE}: its SHA-256 is ${sha256}, expected ${ORT_RELEASE.wasmSha256}. Nothing was kept; check the runtime download URL.`,
					);
				}
				runtime = { version: req.ortVersion, file: { path: ORT_WASM_FILE, size: bytes.data.byteLength, sha256 }, source: job.url };
			} else {
				files.push({ path: job.file, size: bytes.data.byteLength, sha256 });
			}
			await store.writeBinary(`${staging}/${job.file}`, bytes.data);
			if (signal.aborted) throw new CancelledError("Downloading the model");
		}
		// The runtime is shared by every model: keep it once it is verified (it is needed to check the model).
		if (runtime) await store.installRuntime(staging, runtime);
		let dimensions: number;
		try {
			dimensions = await req.check(staging);
		} catch (error) {
			throw new ModelDownloadError(`the downloaded model does not load (${errorMessage(error)}). Is "${req.model}" a sentence-embedding model with ONNX weights (onnx/model_quantized.onnx)?`);
		}
		if (signal.aborted) throw new CancelledError("Downloading the model");
		const manifest: InstalledModel = { model: req.model, dimensions, files, source: joinUrl(req.hubUrl, req.model), downloadedAt: new Date().toISOString() };
		await store.installModel(staging, manifest);
		return manifest;
	} finally {
		await store.removeFolder(staging).catch((error: unknown) => console.error("Engrama: removing a partial download failed", error));
	}
}

interface Fetched {
	readonly data: ArrayBuffer;
	/** The SHA-256 the server named (Hugging Face: X-Linked-Etag of LFS files, when no redirect hid it), if any. */
	readonly sha256?: string;
}

async function fetchFile(req: DownloadRequest, url: string, onBytes: (loaded: number, total: number) => void): Promise<Fetched> {
	const chunkBytes = req.chunkBytes ?? 4 * 1024 * 1024;
	const parts: Uint8Array[] = [];
	let loaded = 0;
	let total = 0;
	let sha256: string | undefined;
	for (;;) {
		if (req.signal.aborted) throw new CancelledError("Downloading the model");
		let response: RequestUrlResponse;
		try {
			response = await req.request({ url, method: "GET", headers: { Range: `bytes=${loaded}-${loaded + chunkBytes - 1}` }, throw: false });
		} catch (error) {
			throw new ModelDownloadError(`${url} could not be reached (${errorMessage(error)}). Check the connection and the download URL in settings.`);
		}
		if (req.signal.aborted) throw new CancelledError("Downloading the model");
		const headers = lowerCase(response.headers);
		sha256 ??= shaOf(headers);
		const body = new Uint8Array(response.arrayBuffer);
		if (response.status === 200) {
			// The server ignored the range: this is the whole file.
			onBytes(body.byteLength, body.byteLength);
			return checkSize(url, { data: response.arrayBuffer, sha256 }, Number(headers["x-linked-size"]) || undefined);
		}
		if (response.status !== 206) {
			throw new ModelDownloadError(
				response.status === 404
					? `${url} was not found (404). Check the model id and the download URL in settings.`
					: `${url} answered ${response.status}. Try again later, or check the download URL in settings.`,
			);
		}
		const range = /bytes\s+(\d+)-(\d+)\/(\d+|\*)/i.exec(headers["content-range"] ?? "");
		if (!range || Number(range[1]) !== loaded) throw new ModelDownloadError(`${url} answered a range request with a wrong range (${headers["content-range"] ?? "none"}).`);
		if (range[3] !== "*") total = Number(range[3]);
		parts.push(body);
		loaded += body.byteLength;
		onBytes(loaded, total);
		if (body.byteLength === 0 || (total > 0 && loaded >= total)) break;
	}
	const data = new Uint8Array(loaded);
	let at = 0;
	for (const part of parts) {
		data.set(part, at);
		at += part.byteLength;
	}
	return checkSize(url, { data: data.buffer, sha256 }, total);
}

function checkSize(url: string, fetched: Fetched, expected: number | undefined): Fetched {
	if (expected !== undefined && expected > 0 && fetched.data.byteLength !== expected) {
		throw new ModelDownloadError(`${url} ended early: ${fetched.data.byteLength} of ${expected} bytes. Download it again.`);
	}
	return fetched;
}

function lowerCase(headers: Record<string, string> | undefined): Record<string, string> {
	const out: Record<string, string> = {};
	for (const [key, value] of Object.entries(headers ?? {})) out[key.toLowerCase()] = value;
	return out;
}

function shaOf(headers: Record<string, string>): string | undefined {
	// Only Hugging Face's own header: CDN ETags are other hashes (S3 MD5, Xet) and may also be 64 hex digits.
	const value = headers["x-linked-etag"]?.replace(/^W\//, "").replace(/"/g, "").trim().toLowerCase();
	return value && /^[0-9a-f]{64}$/.test(value) ? value : undefined;
}

function isWasm(data: ArrayBuffer): boolean {
	const head = new Uint8Array(data, 0, Math.min(4, data.byteLength));
	return head.length === 4 && head[0] === 0 && head[1] === 0x61 && head[2] === 0x73 && head[3] === 0x6d;
}

export function joinUrl(base: string, path: string): string {
	return `${base.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;
}
