import { existsSync, readFileSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { createRequire } from "node:module";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { LOCAL_BATCH_CHARS } from "../../../src/engine/embedding/batching";
import { EmbedderError } from "../../../src/engine/embedding/embedder-error";
import { TransformersEmbeddingProvider, type ModelProgress } from "../../../src/nodejs/embedders/transformers-embedding-provider";
import { makeTempDir } from "../../helpers/temp-dir";
import { TINY_DIMS, writeTinyModel } from "./tiny-onnx-model";

function cosine(a: Float32Array, b: Float32Array): number {
	let dot = 0;
	for (let i = 0; i < a.length; i++) dot += a[i] * b[i];
	return dot;
}

/** Serves `<root>/<model>/<file>` as the hub's `/<model>/resolve/main/<file>`, counting requests. */
async function startHub(root: string): Promise<{ url: string; requests: string[]; server: Server }> {
	const requests: string[] = [];
	const server = createServer((req, res) => {
		requests.push(`${req.method} ${req.url}`);
		const match = /^\/(.+?)\/resolve\/main\/(.+)$/.exec(req.url ?? "");
		const file = match ? join(root, match[1], match[2]) : "";
		if (!file || !existsSync(file)) {
			res.writeHead(404).end();
			return;
		}
		const body = readFileSync(file);
		res.writeHead(200, { "Content-Length": String(body.length), "Content-Type": "application/octet-stream" });
		res.end(req.method === "HEAD" ? undefined : body);
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, requests, server };
}

describe("local transformers.js provider with a tiny generated model", () => {
	const dir = makeTempDir("engrama-tiny-model-");
	const models = join(dir.path, "models");
	beforeAll(() => {
		writeTinyModel(models, "engrama/tiny-encoder");
	});
	afterAll(() => dir.cleanup());

	it("loads from localModelPath with remote loading off, reporting progress, and embeds", async () => {
		const events: ModelProgress[] = [];
		const provider = new TransformersEmbeddingProvider({
			model: "engrama/tiny-encoder",
			cacheDir: join(dir.path, "cache"),
			localModelPath: models,
			allowRemoteModels: false,
			onProgress: (p) => events.push(p),
		});
		expect(provider.dimensions).toBe(0);
		const [mat, similar, other] = await provider.embedBatch(["the cat sat on the mat", "a cat on a mat", "sqlite graph database"]);
		expect(provider.dimensions).toBe(TINY_DIMS);
		expect(mat.length).toBe(TINY_DIMS);
		expect(cosine(mat, mat)).toBeCloseTo(1, 5);
		expect(cosine(mat, similar)).toBeGreaterThan(cosine(mat, other));
		const files = new Set(events.filter((e) => e.status === "done").map((e) => e.file));
		expect(files).toEqual(new Set(["config.json", "tokenizer.json", "tokenizer_config.json", "onnx/model_quantized.onnx"]));
		expect(events.at(-1)?.status).toBe("ready");
		await provider.close();
	});

	it("batches and gives the same vector for the same text alone or in a batch", async () => {
		const provider = new TransformersEmbeddingProvider({
			model: "engrama/tiny-encoder",
			cacheDir: join(dir.path, "cache"),
			localModelPath: models,
			allowRemoteModels: false,
			dtype: "fp32",
			batchSize: 2,
		});
		const batch = await provider.embedBatch(["cat", "dog ran in the park", "vector search", "graph"]);
		const alone = await provider.embed("vector search");
		expect(batch).toHaveLength(4);
		for (let i = 0; i < TINY_DIMS; i++) expect(batch[2][i]).toBeCloseTo(alone[i], 5);
		await provider.close();
	});

	it("opens ONNX Runtime without spinning threads and never runs more padded text at once than the budget", async () => {
		// transformers.js loads onnxruntime-node with require: the same InferenceSession class as here.
		type Feeds = Record<string, { readonly dims: readonly number[] }>;
		const { InferenceSession } = createRequire(import.meta.url)("onnxruntime-node") as {
			InferenceSession: { create(path: unknown, options?: unknown): Promise<unknown>; prototype: { run(feeds: Feeds): Promise<unknown> } };
		};
		const create = vi.spyOn(InferenceSession, "create");
		const run = vi.spyOn(InferenceSession.prototype, "run");
		try {
			const provider = new TransformersEmbeddingProvider({ model: "engrama/tiny-encoder", cacheDir: join(dir.path, "cache"), localModelPath: models, allowRemoteModels: false, batchSize: 32 });
			const texts = Array.from({ length: 32 }, (_, i) => `${"word ".repeat(95)}w${i}`.padEnd(480, "s"));
			expect(await provider.embedBatch(texts)).toHaveLength(32);
			const options = create.mock.calls.at(-1)?.[1] as { extra?: unknown } | undefined;
			expect(options?.extra).toEqual({ session: { intra_op: { allow_spinning: "0" } } });
			// 480-character passages: the budget holds a batch (and the runtime's memory) to 2 of them.
			const rows = run.mock.calls.map(([feeds]) => feeds.input_ids.dims[0]);
			expect(rows.reduce((n, r) => n + r, 0)).toBe(32);
			expect(Math.max(...rows)).toBe(2);
			expect(LOCAL_BATCH_CHARS).toBeLessThan(3 * 480);
			await provider.close();
		} finally {
			create.mockRestore();
			run.mockRestore();
		}
	});

	it("reads E5 models' texts as \"passage: …\" and their queries as \"query: …\"; other models' both as they are", async () => {
		writeTinyModel(models, "Xenova/e5-small-v2");
		// The real e5-small-v2 is 384-d; this tiny stand-in says its own size.
		const open = (model: string) => new TransformersEmbeddingProvider({ model, cacheDir: join(dir.path, "cache"), localModelPath: models, allowRemoteModels: false, dimensions: TINY_DIMS });
		const e5 = open("Xenova/e5-small-v2");
		const plain = open("engrama/tiny-encoder");
		expect(e5.prompts).toEqual({ query: "query: ", passage: "passage: " });
		expect(plain.prompts).toEqual({ query: "", passage: "" });
		// The same weights: E5's vectors are the plain model's of the prompted text.
		const [asPassage] = await e5.embedBatch(["cat on the mat"]);
		const asQuery = await e5.embedQuery("cat on the mat");
		expect(Array.from(await e5.embed("cat on the mat"))).toEqual(Array.from(asPassage));
		expect(Array.from(asPassage)).toEqual(Array.from(await plain.embed("passage: cat on the mat")));
		expect(Array.from(asQuery)).toEqual(Array.from(await plain.embed("query: cat on the mat")));
		expect(cosine(asQuery, asPassage)).toBeLessThan(0.999);
		expect(Array.from(await plain.embedQuery("cat on the mat"))).toEqual(Array.from(await plain.embed("cat on the mat")));
		await e5.close();
		await plain.close();
	});

	it("fails with a named error when the model is not on disk and downloading is off", async () => {
		const provider = new TransformersEmbeddingProvider({
			model: "engrama/not-here",
			cacheDir: join(dir.path, "empty-cache"),
			localModelPath: models,
			allowRemoteModels: false,
		});
		const error = await provider.embed("x").catch((e: unknown) => e);
		expect(error).toBeInstanceOf(EmbedderError);
		expect((error as EmbedderError).failure).toBe("model");
		expect((error as EmbedderError).message).toMatch(/not on disk .*downloading is off/);
		expect((await provider.health()).ok).toBe(false);
	});

	it("downloads on first use with progress into the cache beside the database, then works offline", async () => {
		const hubRoot = join(dir.path, "hub");
		writeTinyModel(hubRoot, "engrama/tiny-download");
		const hub = await startHub(hubRoot);
		const cacheDir = join(dir.path, "db-folder", "models");
		const events: ModelProgress[] = [];
		try {
			const online = new TransformersEmbeddingProvider({
				model: "engrama/tiny-download",
				cacheDir,
				remoteHost: hub.url,
				onProgress: (p) => events.push(p),
			});
			const first = await online.embed("cats in the park");
			expect(hub.requests.some((r) => r.endsWith("/onnx/model_quantized.onnx"))).toBe(true);
			expect(events.some((e) => e.status === "progress" && e.file === "onnx/model_quantized.onnx" && e.progress === 100)).toBe(true);
			expect(statSync(join(cacheDir, "engrama", "tiny-download", "onnx", "model_quantized.onnx")).size).toBeGreaterThan(0);
			await online.close();

			await new Promise<void>((resolve) => hub.server.close(() => resolve()));
			const before = hub.requests.length;
			const offline = new TransformersEmbeddingProvider({ model: "engrama/tiny-download", cacheDir, allowRemoteModels: false });
			const again = await offline.embed("cats in the park");
			expect(Array.from(again)).toEqual(Array.from(first));
			expect(hub.requests.length).toBe(before);
			await offline.close();
		} finally {
			hub.server.close();
		}
	});
});
