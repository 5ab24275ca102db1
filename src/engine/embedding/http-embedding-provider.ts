import type { EmbedderHealth, EmbeddingProvider } from "../protocols";
import { errorMessage } from "../errors";
import { embedInBatches } from "./batching";
import { checkVector, knownDimensions } from "./dimensions";
import { EmbedderError, isRetryableStatus } from "./embedder-error";
import type { HttpClient, HttpResponse } from "./http-client";
import { DEFAULT_RETRY, realSleep, withRetry, type RetryPolicy, type Sleep } from "./retry";

export interface HttpEmbeddingOptions {
	readonly baseUrl: string;
	readonly model: string;
	/** 0 = take it from the known-model table, else learn it from the first answer. */
	readonly dimensions?: number;
	readonly apiKey?: string;
	/** Per request. */
	readonly timeoutMs?: number;
	/** Texts per request. */
	readonly batchSize?: number;
	readonly retry?: RetryPolicy;
	/** Injected so tests of the backoff do not wait. */
	readonly sleep?: Sleep;
	/** Longer texts are cut (models have a token limit; nodeToText already caps at 8000). */
	readonly maxChars?: number;
}

export const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * What the OpenAI-compatible and Ollama providers share: batching, timeouts, retries with
 * backoff, and the dimension check (the first answer fixes the dimension when it was not known).
 */
export abstract class HttpEmbeddingProvider implements EmbeddingProvider {
	abstract readonly name: string;
	readonly model: string;
	protected readonly baseUrl: string;
	protected readonly apiKey: string;
	protected readonly timeoutMs: number;
	protected readonly batchSize: number;
	private readonly retry: RetryPolicy;
	private readonly sleep: Sleep;
	private readonly maxChars: number;
	private readonly configuredDimensions: number;
	private learned = 0;

	constructor(
		protected readonly http: HttpClient,
		options: HttpEmbeddingOptions,
		defaults: { readonly baseUrl: string; readonly batchSize: number },
	) {
		this.model = options.model.trim();
		this.baseUrl = (options.baseUrl.trim() || defaults.baseUrl).replace(/\/+$/, "");
		this.apiKey = options.apiKey ?? "";
		this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
		this.batchSize = options.batchSize ?? defaults.batchSize;
		this.retry = options.retry ?? DEFAULT_RETRY;
		this.sleep = options.sleep ?? realSleep;
		this.maxChars = options.maxChars ?? 8000;
		this.configuredDimensions = options.dimensions && options.dimensions > 0 ? options.dimensions : knownDimensions(this.model);
	}

	/** Configured, known for the model, or learned from the first answer; 0 until then. */
	get dimensions(): number {
		return this.configuredDimensions || this.learned;
	}

	/** Requests a batch from the server; the caller checks sizes. */
	protected abstract request(texts: readonly string[], timeoutMs: number): Promise<Float32Array[]>;

	async embed(text: string): Promise<Float32Array> {
		const [vector] = await this.embedBatch([text]);
		return vector;
	}

	async embedBatch(texts: readonly string[]): Promise<Float32Array[]> {
		if (texts.length === 0) return [];
		const prepared = texts.map((t) => (t.length > this.maxChars ? t.slice(0, this.maxChars) : t).trim() || " ");
		return embedInBatches(prepared, this.batchSize, (batch) => withRetry(() => this.checked(batch, this.timeoutMs), this.retry, this.sleep));
	}

	private async checked(batch: readonly string[], timeoutMs: number): Promise<Float32Array[]> {
		const vectors = await this.request(batch, timeoutMs);
		if (vectors.length !== batch.length) {
			throw new EmbedderError("bad_response", `${this.describe()} returned ${vectors.length} vectors for ${batch.length} texts.`);
		}
		for (const vector of vectors) checkVector(vector, this.dimensions, this.describe());
		if (this.dimensions === 0) this.learned = vectors[0].length;
		return vectors;
	}

	/**
	 * One quick request (no retries, at most 5 s) that fixes the dimension when unknown; used at
	 * start-up, where a down server must not stall the program. Throws what the server said.
	 */
	async probe(): Promise<number> {
		await this.checked(["dimension probe"], Math.min(this.timeoutMs, 5000));
		return this.dimensions;
	}

	async health(): Promise<EmbedderHealth> {
		try {
			const dims = await this.probe();
			return { ok: true, detail: `${this.describe()}: ${dims} dimensions` };
		} catch (error) {
			return { ok: false, detail: errorMessage(error) };
		}
	}

	protected describe(): string {
		return `The ${this.name} embedder (${this.model} at ${this.baseUrl})`;
	}

	protected headers(): Record<string, string> {
		const headers: Record<string, string> = { "Content-Type": "application/json" };
		if (this.apiKey) headers.Authorization = `Bearer ${this.apiKey}`;
		return headers;
	}

	/** Maps a non-200 answer to an error that says what to change. */
	protected checkStatus(response: HttpResponse, url: string): void {
		if (response.status === 200) return;
		const message = serverMessage(response.json);
		const suffix = message ? `: ${message}` : "";
		if (response.status === 401 || response.status === 403) {
			throw new EmbedderError("http", `${this.describe()} refused the API key (HTTP ${response.status})${suffix}. Check the embedding API key.`, {
				status: response.status,
			});
		}
		if (response.status === 404) {
			throw new EmbedderError(
				"model",
				`${this.describe()} answered 404 for ${url}${suffix}. Check the base URL and that the model "${this.model}" is available (for Ollama: ollama pull ${this.model}).`,
				{ status: 404 },
			);
		}
		throw new EmbedderError(
			"http",
			`${this.describe()} answered HTTP ${response.status}${suffix}.`,
			{ status: response.status },
			isRetryableStatus(response.status),
		);
	}
}

function serverMessage(json: unknown): string {
	if (!json || typeof json !== "object") return "";
	const error = (json as { error?: unknown }).error;
	if (typeof error === "string") return error.slice(0, 300);
	if (error && typeof error === "object" && typeof (error as { message?: unknown }).message === "string") {
		return (error as { message: string }).message.slice(0, 300);
	}
	return "";
}
