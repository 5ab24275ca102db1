import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { embedQuery } from "../../../src/engine/embedding/dimensions";
import type { EmbedderHealth, EmbeddingProvider } from "../../../src/engine/protocols";

const key = (text: string) => createHash("sha256").update(text).digest("base64url").slice(0, 22);

/**
 * Wraps a provider with a vector cache kept in a file (git-ignored), so a benchmark re-run does
 * not re-embed the same texts. Same name, model and dimension as the wrapped provider.
 */
export class CachedEmbeddingProvider implements EmbeddingProvider {
	private readonly cache = new Map<string, Float32Array>();
	hits = 0;
	misses = 0;

	constructor(
		private readonly inner: EmbeddingProvider,
		private readonly file: string,
		/** Told apart in the file: e.g. the weights (q8, fp32) of the same model. */
		private readonly tag = "",
	) {
		if (existsSync(file)) {
			const stored = JSON.parse(readFileSync(file, "utf8")) as { model: string; vectors: Record<string, string> };
			if (stored.model === this.identity) {
				for (const [k, b64] of Object.entries(stored.vectors)) {
					const bytes = Buffer.from(b64, "base64");
					this.cache.set(k, new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4).slice());
				}
			}
		}
	}

	private get identity(): string {
		return `${this.inner.name}:${this.inner.model}${this.tag ? `:${this.tag}` : ""}`;
	}

	get name(): string {
		return this.inner.name;
	}
	get model(): string {
		return this.inner.model;
	}
	get dimensions(): number {
		return this.inner.dimensions;
	}
	get size(): number {
		return this.cache.size;
	}

	async embed(text: string): Promise<Float32Array> {
		const [v] = await this.embedBatch([text]);
		return v;
	}

	embedBatch(texts: readonly string[]): Promise<Float32Array[]> {
		return this.cached(texts, "", (missing) => this.inner.embedBatch(missing));
	}

	async embedQuery(text: string): Promise<Float32Array> {
		const [v] = await this.embedQueries([text]);
		return v;
	}

	/**
	 * Search queries: through the model's query prompt where it has one (E5's "query: "), kept
	 * apart from the same text embedded as a passage; otherwise the passage vector serves.
	 */
	embedQueries(texts: readonly string[]): Promise<Float32Array[]> {
		const inner = this.inner as EmbeddingProvider & { prompts?: { query: string }; embedQueries?: (t: readonly string[]) => Promise<Float32Array[]> };
		const prompt = inner.prompts?.query ?? "";
		if (!prompt) return this.embedBatch(texts);
		return this.cached(texts, prompt, (missing) => (inner.embedQueries ? inner.embedQueries(missing) : Promise.all(missing.map((t) => embedQuery(inner, t)))));
	}

	private async cached(texts: readonly string[], prompt: string, embed: (missing: string[]) => Promise<Float32Array[]>): Promise<Float32Array[]> {
		const keys = texts.map((t) => key(prompt + t));
		const missing = [...new Set(keys.map((k, i) => (this.cache.has(k) ? -1 : i)).filter((i) => i >= 0).map((i) => texts[i]))];
		if (missing.length > 0) {
			const vectors = await embed(missing);
			missing.forEach((t, i) => this.cache.set(key(prompt + t), vectors[i]));
		}
		this.misses += missing.length;
		this.hits += texts.length - missing.length;
		return keys.map((k) => this.cache.get(k) as Float32Array);
	}

	health(): Promise<EmbedderHealth> {
		return this.inner.health();
	}

	save(): void {
		mkdirSync(dirname(this.file), { recursive: true });
		const vectors: Record<string, string> = {};
		for (const [k, v] of this.cache) vectors[k] = Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString("base64");
		writeFileSync(this.file, JSON.stringify({ model: this.identity, vectors }));
	}
}
