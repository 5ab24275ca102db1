import type { DataAdapter } from "obsidian";
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

const MODEL_MANIFEST = "engrama-model.json";
const RUNTIME_MANIFEST = "engrama-runtime.json";

/**
 * Local models and the ONNX Runtime binary, kept in the plugin's folder through the vault adapter
 * (desktop and mobile): `models/<owner>/<name>/…` and `models/onnxruntime-web/<version>/…`.
 * A model counts as installed only when its manifest exists and every file has the recorded size.
 */
export class ModelStore {
	readonly root: string;

	constructor(
		readonly adapter: DataAdapter,
		pluginFolder: string,
	) {
		this.root = `${pluginFolder}/models`;
	}

	modelFolder(model: string): string {
		if (!isValidModelId(model)) throw new Error(`"${model}" is not a model id of the form owner/name.`);
		return `${this.root}/${model}`;
	}

	runtimeFolder(version: string): string {
		return `${this.root}/onnxruntime-web/${version.replace(/[^\w.-]/g, "_")}`;
	}

	/** A fresh folder for one download; removed when it fails or is cancelled. */
	stagingFolder(): string {
		return `${this.root}/.partial/${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
	}

	async installedModel(model: string): Promise<InstalledModel | null> {
		if (!isValidModelId(model)) return null;
		const manifest = await this.readJson<InstalledModel>(`${this.modelFolder(model)}/${MODEL_MANIFEST}`);
		const files: unknown = manifest?.files;
		if (!manifest || manifest.model !== model || !Array.isArray(files)) return null;
		for (const file of files as readonly InstalledFile[]) {
			const stat = await this.adapter.stat(`${this.modelFolder(model)}/${file.path}`);
			if (!stat || stat.type !== "file" || stat.size !== file.size) return null;
		}
		return manifest;
	}

	async installedRuntime(version: string): Promise<InstalledRuntime | null> {
		const folder = this.runtimeFolder(version);
		const manifest = await this.readJson<InstalledRuntime>(`${folder}/${RUNTIME_MANIFEST}`);
		if (!manifest || manifest.version !== version) return null;
		const stat = await this.adapter.stat(`${folder}/${ORT_WASM_FILE}`);
		return stat && stat.type === "file" && stat.size === manifest.file.size ? manifest : null;
	}

	/** The installed binary, checked against the pinned release's SHA-256 before it runs. */
	async readRuntime(version: string): Promise<ArrayBuffer> {
		const path = `${this.runtimeFolder(version)}/${ORT_WASM_FILE}`;
		const bytes = await this.adapter.readBinary(path);
		const sha256 = Array.from(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)), (b) => b.toString(16).padStart(2, "0")).join("");
		if (version !== ORT_RELEASE.version || sha256 !== ORT_RELEASE.wasmSha256) {
			throw new Error(`${path} is not ONNX Runtime ${ORT_RELEASE.version}'s binary (SHA-256 ${sha256}); press Download model in the Engrama settings to fetch it again.`);
		}
		return bytes;
	}

	/** Moves a verified download into place; the manifest goes last. */
	async installModel(staging: string, manifest: InstalledModel): Promise<void> {
		const folder = this.modelFolder(manifest.model);
		await this.removeFolder(folder);
		for (const file of manifest.files) await this.move(`${staging}/${file.path}`, `${folder}/${file.path}`);
		await this.adapter.write(`${folder}/${MODEL_MANIFEST}`, JSON.stringify(manifest, null, "\t"));
	}

	async installRuntime(staging: string, manifest: InstalledRuntime): Promise<void> {
		const folder = this.runtimeFolder(manifest.version);
		await this.removeFolder(folder);
		await this.move(`${staging}/${ORT_WASM_FILE}`, `${folder}/${ORT_WASM_FILE}`);
		await this.adapter.write(`${folder}/${RUNTIME_MANIFEST}`, JSON.stringify(manifest, null, "\t"));
	}

	async removeModel(model: string): Promise<void> {
		await this.removeFolder(this.modelFolder(model));
	}

	async writeBinary(path: string, data: ArrayBuffer): Promise<void> {
		await this.ensureFolder(parentOf(path));
		await this.adapter.writeBinary(path, data);
	}

	/** Reads one file of an installed (or staged) model folder; null when it is not there. */
	async readFile(folder: string, path: string): Promise<ArrayBuffer | null> {
		const full = `${folder}/${path}`;
		if (!(await this.adapter.exists(full))) return null;
		return this.adapter.readBinary(full);
	}

	async removeFolder(folder: string): Promise<void> {
		if (await this.adapter.exists(folder)) await this.adapter.rmdir(folder, true);
	}

	private async move(from: string, to: string): Promise<void> {
		await this.ensureFolder(parentOf(to));
		await this.adapter.rename(from, to);
	}

	private async ensureFolder(folder: string): Promise<void> {
		if (folder === "" || (await this.adapter.exists(folder))) return;
		await this.ensureFolder(parentOf(folder));
		await this.adapter.mkdir(folder);
	}

	private async readJson<T>(path: string): Promise<T | null> {
		try {
			if (!(await this.adapter.exists(path))) return null;
			return JSON.parse(await this.adapter.read(path)) as T;
		} catch {
			return null;
		}
	}
}

function parentOf(path: string): string {
	const at = path.lastIndexOf("/");
	return at < 0 ? "" : path.slice(0, at);
}

export { MODEL_FILES };
