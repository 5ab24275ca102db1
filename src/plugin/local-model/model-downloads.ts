import { requestUrl } from "obsidian";
import { errorMessage } from "../../engine/errors";
import { noticeError, noticeInfo } from "../notices";
import { ProgressNotice } from "../task-runner";
import { CancelledError } from "../work-gate";
import { DEFAULT_HUB_URL, DEFAULT_RUNTIME_URL, isValidModelId } from "./catalogue";
import { downloadModel, ModelDownloadError, type DownloadProgress, type RequestFn } from "./model-downloader";
import type { InstalledModel, ModelStore } from "./model-store";
import { bundledOrtVersion } from "./runtime";

export type DownloadState =
	| { readonly kind: "idle" }
	| { readonly kind: "downloading"; readonly model: string; readonly progress: DownloadProgress | null }
	| { readonly kind: "failed"; readonly model: string; readonly error: string }
	| { readonly kind: "done"; readonly model: string; readonly installed: InstalledModel };

export interface DownloadSources {
	readonly hubUrl: string;
	readonly runtimeUrl: string;
}

/** What the settings tab shows for a model: installed (with its manifest) or not. */
export interface ModelStatus {
	readonly installed: InstalledModel | null;
	readonly runtime: boolean;
}

/**
 * One model download at a time, with a progress notice (Cancel button) and a state the settings
 * tab and the status bar follow. Failures become a notice that says what to do; the model that
 * was in use keeps working because nothing is replaced until the new files are verified.
 */
export class ModelDownloads {
	private current: DownloadState = { kind: "idle" };
	private abort: AbortController | null = null;
	private readonly listeners = new Set<() => void>();

	constructor(
		readonly store: ModelStore,
		private readonly request: RequestFn = requestUrl,
	) {}

	get state(): DownloadState {
		return this.current;
	}

	onChange(listener: () => void): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	private set(state: DownloadState): void {
		this.current = state;
		for (const listener of this.listeners) listener();
	}

	async status(model: string): Promise<ModelStatus> {
		const installed = await this.store.installedModel(model);
		const runtime = (await this.store.installedRuntime(await bundledOrtVersion())) !== null;
		return { installed: runtime ? installed : null, runtime };
	}

	/** Downloads and verifies `model`; resolves with its manifest, or null (cancelled or failed: the person was told). */
	async download(model: string, sources: DownloadSources): Promise<InstalledModel | null> {
		if (this.current.kind === "downloading") {
			noticeInfo(`the model ${this.current.model} is still downloading. Wait for it, or cancel it first.`);
			return null;
		}
		if (!isValidModelId(model)) {
			noticeInfo(`"${model}" is not a model id of the form owner/name.`);
			return null;
		}
		const abort = new AbortController();
		this.abort = abort;
		this.set({ kind: "downloading", model, progress: null });
		const notice = new ProgressNotice(`Downloading ${model}`, () => abort.abort());
		try {
			const installed = await downloadModel({
				store: this.store,
				model,
				hubUrl: sources.hubUrl || DEFAULT_HUB_URL,
				runtimeUrl: sources.runtimeUrl || DEFAULT_RUNTIME_URL,
				ortVersion: await bundledOrtVersion(),
				request: this.request,
				signal: abort.signal,
				onProgress: (progress) => {
					notice.update(describeProgress(progress));
					this.set({ kind: "downloading", model, progress });
				},
				check: async (folder) => {
					// The embedder (the engine's embedding helpers) loads here, on the first download, not with main.js.
					const { LocalEmbeddingProvider } = await import("./local-embedding-provider");
					const probe = new LocalEmbeddingProvider({ store: this.store, model, folder });
					try {
						return (await probe.embed("Engrama checks the downloaded model")).length;
					} finally {
						await probe.close();
					}
				},
			});
			this.set({ kind: "done", model, installed });
			noticeInfo(`the local model ${model} is ready (${formatMB(installed.files.reduce((n, f) => n + f.size, 0))}, ${installed.dimensions} dimensions). It works offline from now on.`);
			return installed;
		} catch (error) {
			if (error instanceof CancelledError || abort.signal.aborted) {
				this.set({ kind: "idle" });
				noticeInfo(`the download of ${model} was cancelled. Nothing was kept; the previous setting still applies.`);
			} else {
				this.set({ kind: "failed", model, error: errorMessage(error) });
				noticeError(`downloading the local model ${model} failed`, error instanceof ModelDownloadError ? error : new Error(`${errorMessage(error)}. The previous setting still applies.`));
			}
			return null;
		} finally {
			this.abort = null;
			notice.hide();
		}
	}

	cancel(): void {
		this.abort?.abort();
	}

	async remove(model: string): Promise<void> {
		await this.store.removeModel(model);
		if (this.current.kind !== "downloading") this.set({ kind: "idle" });
	}
}

/** "onnx/model_quantized.onnx 12,345 / 22,433 kB (file 4 of 4)": the notice's bar reads the fraction. */
export function describeProgress(p: DownloadProgress): string {
	const kB = (n: number) => Math.ceil(n / 1024).toLocaleString("en-US");
	const size = p.total > 0 ? `${kB(p.loaded)} / ${kB(p.total)} kB` : `${kB(p.loaded)} kB`;
	return `${p.file} ${size} (file ${p.fileIndex} of ${p.fileCount})`;
}

export function formatMB(bytes: number): string {
	return `${(bytes / 1_048_576).toFixed(1)} MB`;
}
