import type { ModelFiles } from "./model-files";
import { sha256Hex } from "../../engine/plain-values";
import { isValidModelId, MODEL_FILES, ORT_RELEASE, ORT_WASM_FILE } from "./catalogue";

/** What a finished download left: written last, so a model without it is never used. */
export interface InstalledModel {
	readonly model: string;
	readonly dimensions: number;
	readonly files: readonly InstalledFile[];
	readonly source: string;
	readonly downloadedAt: string;
}

export interface InstalledFile {
	readonly path: string;
	readonly size: number;
	readonly sha256: string;
}

export interface InstalledRuntime {
	readonly version: string;
	readonly file: InstalledFile;
	readonly source: string;
}

export const MODEL_MANIFEST = "engrama-model.json";
export const RUNTIME_MANIFEST = "engrama-runtime.json";

/**
 * Local models and the ONNX Runtime binary: `<owner>/<name>/…` and `onnxruntime-web/<version>/…`
 * under a root that model-location.ts picks (desktop: a per-user folder outside the vault; mobile:
 * the plugin folder). Paths here are relative to that root. A model counts as installed only when
 * its manifest exists and every file has the recorded size; its bytes are checked against the
 * recorded SHA-256 when they are read to load it.
 */
export class ModelStore {
	private layer: Promise<ModelFiles> | undefined;

	/** `files` is called once, on first use (on desktop it first moves models out of the vault). */
	constructor(private readonly files: () => Promise<ModelFiles>) {}

	private fs(): Promise<ModelFiles> {
		// A folder that could not be made (permissions) is tried again at the next use, not remembered.
		this.layer ??= this.files().catch((error: unknown) => {
			this.layer = undefined;
			throw error;
		});
		return this.layer;
	}

	/** Where the files live (a folder path), for the settings text and messages. */
	async location(): Promise<string> {
		return (await this.fs()).location;
	}

	modelFolder(model: string): string {
		if (!isValidModelId(model)) throw new Error(`"${model}" is not a model id of the form owner/name.`);
		return model;
	}

	runtimeFolder(version: string): string {
		return `onnxruntime-web/${version.replace(/[^\w.-]/g, "_")}`;
	}

	/** A fresh folder for one download; removed when it fails or is cancelled. */
	stagingFolder(): string {
		return `${STAGING}/${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
	}

	async installedModel(model: string): Promise<InstalledModel | null> {
		if (!isValidModelId(model)) return null;
		return checkedModel(await this.fs(), this.modelFolder(model), model);
	}

	async installedRuntime(version: string): Promise<InstalledRuntime | null> {
		return checkedRuntime(await this.fs(), this.runtimeFolder(version), version);
	}

	/** The installed binary, checked against the pinned release's SHA-256 before it runs. */
	async readRuntime(version: string): Promise<ArrayBuffer> {
		const fs = await this.fs();
		const path = `${this.runtimeFolder(version)}/${ORT_WASM_FILE}`;
		const bytes = await fs.readBinary(path);
		const sha256 = await sha256Hex(bytes);
		if (version !== ORT_RELEASE.version || sha256 !== ORT_RELEASE.wasmSha256) {
			throw new Error(`${fs.location}/${path} is not ONNX Runtime ${ORT_RELEASE.version}'s binary (SHA-256 ${sha256}); press Download model in the Engrama settings to fetch it again.`);
		}
		return bytes;
	}

	/** Moves a verified download into place; the manifest goes last. */
	async installModel(staging: string, manifest: InstalledModel): Promise<void> {
		const fs = await this.fs();
		const folder = this.modelFolder(manifest.model);
		await fs.removeFolder(folder);
		for (const file of manifest.files) await fs.rename(`${staging}/${file.path}`, `${folder}/${file.path}`);
		await fs.write(`${folder}/${MODEL_MANIFEST}`, JSON.stringify(manifest, null, "\t"));
	}

	async installRuntime(staging: string, manifest: InstalledRuntime): Promise<void> {
		const fs = await this.fs();
		const folder = this.runtimeFolder(manifest.version);
		await fs.removeFolder(folder);
		await fs.rename(`${staging}/${ORT_WASM_FILE}`, `${folder}/${ORT_WASM_FILE}`);
		await fs.write(`${folder}/${RUNTIME_MANIFEST}`, JSON.stringify(manifest, null, "\t"));
	}

	async removeModel(model: string): Promise<void> {
		await (await this.fs()).removeFolder(this.modelFolder(model));
	}

	async writeBinary(path: string, data: ArrayBuffer): Promise<void> {
		await (await this.fs()).writeBinary(path, data);
	}

	/**
	 * Reads one file of an installed (or staged) model folder; null when it is not there. With
	 * `expected` (the manifest's entry), bytes that are not the downloaded ones are refused.
	 */
	async readFile(folder: string, path: string, expected?: InstalledFile): Promise<ArrayBuffer | null> {
		const fs = await this.fs();
		const full = `${folder}/${path}`;
		if ((await fs.stat(full))?.type !== "file") return null;
		const bytes = await fs.readBinary(full);
		if (expected) {
			const sha256 = await sha256Hex(bytes);
			if (sha256 !== expected.sha256 || bytes.byteLength !== expected.size) {
				throw new Error(`${fs.location}/${full} is not the file that was downloaded (SHA-256 ${sha256}, recorded ${expected.sha256})`);
			}
		}
		return bytes;
	}

	async removeFolder(folder: string): Promise<void> {
		await (await this.fs()).removeFolder(folder);
	}
}

/** Partial downloads (and moves) go here, one folder each. */
export const STAGING = ".partial";

/** A model folder's manifest if every file it names is there with the recorded size. */
export async function checkedModel(fs: ModelFiles, folder: string, model?: string): Promise<InstalledModel | null> {
	const manifest = await readJson<InstalledModel>(fs, `${folder}/${MODEL_MANIFEST}`);
	const files: unknown = manifest?.files;
	if (!manifest || (model !== undefined && manifest.model !== model) || !isValidModelId(String(manifest.model)) || !Array.isArray(files)) return null;
	for (const file of files as readonly InstalledFile[]) {
		const stat = await fs.stat(`${folder}/${file.path}`);
		if (!stat || stat.type !== "file" || stat.size !== file.size) return null;
	}
	return manifest;
}

/** A runtime folder's manifest if its binary is there with the recorded size. */
export async function checkedRuntime(fs: ModelFiles, folder: string, version?: string): Promise<InstalledRuntime | null> {
	const manifest = await readJson<InstalledRuntime>(fs, `${folder}/${RUNTIME_MANIFEST}`);
	if (!manifest || (version !== undefined && manifest.version !== version) || typeof manifest.file?.size !== "number") return null;
	const stat = await fs.stat(`${folder}/${ORT_WASM_FILE}`);
	return stat && stat.type === "file" && stat.size === manifest.file.size ? manifest : null;
}

async function readJson<T>(fs: ModelFiles, path: string): Promise<T | null> {
	try {
		if ((await fs.stat(path))?.type !== "file") return null;
		return JSON.parse(await fs.read(path)) as T;
	} catch {
		return null;
	}
}

export { MODEL_FILES };
