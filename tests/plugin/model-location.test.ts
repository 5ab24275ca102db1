// Moving local models out of the synced plugin folder to the shared per-user folder: each model
// is checked against its recorded SHA-256, copied, read back, put in place in one step, and only
// then removed from the vault; every interrupted state finishes at the next start.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { loadNodeModules, type NodeModules } from "../../src/platform/node-builtins";
import { ORT_RELEASE } from "../../src/plugin/local-model/catalogue";
import { moveLegacyModels, removeStaleStaging } from "../../src/plugin/local-model/model-location";
import { makeTempDir } from "../helpers/temp-dir";
import { ORT_DIST } from "./model-hub-server";

let node: NodeModules;
let tmp: { path: string; cleanup(): void };
let legacy: string;
let root: string;

const sha = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

/** A model folder as a finished download leaves it: files, then the manifest naming their sizes and hashes. */
function writeModel(base: string, model: string, seed: number): Record<string, Buffer> {
	const files: Record<string, Buffer> = {
		"config.json": Buffer.from(JSON.stringify({ seed })),
		"tokenizer.json": Buffer.from(`{"tokens":${seed}}`),
		"onnx/model_quantized.onnx": Buffer.alloc(300_000 + seed, seed),
	};
	for (const [path, bytes] of Object.entries(files)) {
		mkdirSync(join(base, model, path, ".."), { recursive: true });
		writeFileSync(join(base, model, path), bytes);
	}
	const manifest = { model, dimensions: 16, files: Object.entries(files).map(([path, b]) => ({ path, size: b.length, sha256: sha(b) })), source: "test", downloadedAt: "2026-01-01T00:00:00Z" };
	writeFileSync(join(base, model, "engrama-model.json"), JSON.stringify(manifest));
	return files;
}

function writeRuntime(base: string, version: string, bytes: Buffer): void {
	const dir = join(base, "onnxruntime-web", version);
	mkdirSync(dir, { recursive: true });
	writeFileSync(join(dir, "ort-wasm-simd-threaded.wasm"), bytes);
	writeFileSync(join(dir, "engrama-runtime.json"), JSON.stringify({ version, file: { path: "ort-wasm-simd-threaded.wasm", size: bytes.length, sha256: sha(bytes) }, source: "test" }));
}

function expectModelAt(base: string, model: string, files: Record<string, Buffer>): void {
	for (const [path, bytes] of Object.entries(files)) expect(readFileSync(join(base, model, path)).equals(bytes)).toBe(true);
	expect(existsSync(join(base, model, "engrama-model.json"))).toBe(true);
}

const staged = () => (existsSync(join(root, ".partial")) ? readdirSync(join(root, ".partial")) : []);

beforeEach(async () => {
	node = (await loadNodeModules())!;
	tmp = makeTempDir("engrama-modelloc-");
	legacy = join(tmp.path, "vault", ".obsidian", "plugins", "engrama", "models");
	root = join(tmp.path, "home", ".engrama", "obsidian-models");
	mkdirSync(legacy, { recursive: true });
});

afterEach(() => tmp.cleanup());

describe("moveLegacyModels", () => {
	test("moves every model and the pinned runtime, verified, then removes the plugin folder's copy", async () => {
		const a = writeModel(legacy, "Xenova/all-MiniLM-L6-v2", 1);
		const b = writeModel(legacy, "engrama/tiny-encoder", 2);
		const wasm = readFileSync(join(ORT_DIST, "ort-wasm-simd-threaded.wasm"));
		writeRuntime(legacy, ORT_RELEASE.version, wasm);
		// A partial download an older version left behind: junk, not moved.
		mkdirSync(join(legacy, ".partial", "x"), { recursive: true });
		writeFileSync(join(legacy, ".partial", "x", "config.json"), "{");
		const result = await moveLegacyModels(node, legacy, root);
		expect(result?.moved.slice().sort()).toEqual(["Xenova/all-MiniLM-L6-v2", "engrama/tiny-encoder", `onnxruntime-web/${ORT_RELEASE.version}`]);
		expect(result?.damaged).toEqual([]);
		expectModelAt(root, "Xenova/all-MiniLM-L6-v2", a);
		expectModelAt(root, "engrama/tiny-encoder", b);
		expect(sha(readFileSync(join(root, "onnxruntime-web", ORT_RELEASE.version, "ort-wasm-simd-threaded.wasm")))).toBe(ORT_RELEASE.wasmSha256);
		expect(existsSync(legacy)).toBe(false);
		expect(staged()).toEqual([]);
		if (process.platform !== "win32") expect(statSync(join(root, "engrama")).mode & 0o777).toBe(0o700);
	}, 120_000);

	test("nothing in the plugin folder: nothing moved, and the folder is marked done", async () => {
		expect(await moveLegacyModels(node, join(tmp.path, "elsewhere"), root)).toEqual({ moved: [], damaged: [] });
		expect(readdirSync(join(root, ".moved-from"))).toHaveLength(1);
	});

	test("a crash in the middle (one model moved, its old copy not yet removed, another not moved, a half-made staging folder): the next start finishes and loses nothing", async () => {
		const a = writeModel(legacy, "owner/first", 1);
		const b = writeModel(legacy, "owner/second", 2);
		// State after the first model took its place but before its old copy was removed ...
		writeModel(root, "owner/first", 1);
		// ... and the crash hit while the second was being copied.
		mkdirSync(join(root, ".partial", "move-crashed", "onnx"), { recursive: true });
		writeFileSync(join(root, ".partial", "move-crashed", "onnx", "model_quantized.onnx"), b["onnx/model_quantized.onnx"].subarray(0, 1000));
		// A folder left half-made in place (no manifest) is replaced, not trusted.
		mkdirSync(join(root, "owner", "second"), { recursive: true });
		writeFileSync(join(root, "owner", "second", "config.json"), "{");
		const result = await moveLegacyModels(node, legacy, root);
		expect(result?.moved).toEqual(["owner/second"]);
		expectModelAt(root, "owner/first", a);
		expectModelAt(root, "owner/second", b);
		expect(existsSync(legacy)).toBe(false);
		expect(staged()).toEqual(["move-crashed"]); // removed at start once stale (model-location.ts)
	});

	test("a copy that fails (the shared folder cannot be written) keeps the old copy and does not mark the folder done; the next start moves it", async () => {
		const a = writeModel(legacy, "owner/model", 3);
		mkdirSync(root, { recursive: true });
		// A file where the staging folder goes: every copy fails.
		writeFileSync(join(root, ".partial"), "in the way");
		await expect(moveLegacyModels(node, legacy, root)).rejects.toThrow();
		expectModelAt(legacy, "owner/model", a);
		expect(existsSync(join(root, ".moved-from"))).toBe(false);
		node.fs.rmSync(join(root, ".partial"));
		expect((await moveLegacyModels(node, legacy, root))?.moved).toEqual(["owner/model"]);
		expectModelAt(root, "owner/model", a);
		expect(existsSync(legacy)).toBe(false);
	});

	test("a damaged model (bytes no longer match the recorded SHA-256) or a runtime that is not the pinned release is not copied", async () => {
		writeModel(legacy, "owner/damaged", 4);
		const onnx = join(legacy, "owner", "damaged", "onnx", "model_quantized.onnx");
		const bytes = readFileSync(onnx);
		bytes[10] ^= 0xff;
		writeFileSync(onnx, bytes);
		writeRuntime(legacy, ORT_RELEASE.version, Buffer.from("\0asm not really"));
		const result = await moveLegacyModels(node, legacy, root);
		expect(result?.moved).toEqual([]);
		expect(result?.damaged.slice().sort()).toEqual(["onnxruntime-web/" + ORT_RELEASE.version, "owner/damaged"]);
		expect(existsSync(join(root, "owner", "damaged"))).toBe(false);
		expect(existsSync(join(root, "onnxruntime-web"))).toBe(false);
	});

	test("once done, models a phone later syncs into the plugin folder stay there (removing them here would remove them on the phone)", async () => {
		writeModel(legacy, "owner/model", 5);
		await moveLegacyModels(node, legacy, root);
		const phone = writeModel(legacy, "owner/phone", 6);
		expect(await moveLegacyModels(node, legacy, root)).toBeNull();
		expectModelAt(legacy, "owner/phone", phone);
		expect(existsSync(join(root, "owner", "phone"))).toBe(false);
	});

	test("the same model already in the shared folder (moved from another vault): the old copy is only removed", async () => {
		const a = writeModel(root, "owner/model", 7);
		writeModel(legacy, "owner/model", 7);
		expect((await moveLegacyModels(node, legacy, root))?.moved).toEqual([]);
		expectModelAt(root, "owner/model", a);
		expect(existsSync(legacy)).toBe(false);
	});

	test("staging folders a crash left behind are removed once a day old; a download in progress (recent) is not", () => {
		mkdirSync(join(root, ".partial", "move-old"), { recursive: true });
		mkdirSync(join(root, ".partial", "live-download"), { recursive: true });
		const dayAgo = new Date(Date.now() - 25 * 60 * 60 * 1000);
		utimesSync(join(root, ".partial", "move-old"), dayAgo, dayAgo);
		removeStaleStaging(node, root);
		expect(staged()).toEqual(["live-download"]);
	});
});
