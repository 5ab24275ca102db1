// ONNX Runtime is pinned to a release: package.json (with the override under transformers.js), the
// installed glue that main.js inlines, and the binary's SHA-256 the plugin checks all agree.
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { describe, expect, test } from "vitest";
import { ORT_RELEASE, ORT_WASM_FILE } from "../../src/plugin/local-model/catalogue";
import { ROOT } from "./harness";

const requireHere = createRequire(join(ROOT, "package.json"));

describe("ONNX Runtime pin", () => {
	test("package.json pins onnxruntime-web to a release, for us and for @huggingface/transformers", () => {
		const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { dependencies: Record<string, string>; overrides?: Record<string, string> };
		expect(ORT_RELEASE.version).toMatch(/^\d+\.\d+\.\d+$/);
		expect(pkg.dependencies["onnxruntime-web"]).toBe(ORT_RELEASE.version);
		expect(pkg.overrides?.["onnxruntime-web"]).toBe(ORT_RELEASE.version);
		// One copy only: transformers.js gets the same release, not its own prerelease.
		expect(existsSync(join(ROOT, "node_modules", "@huggingface", "transformers", "node_modules", "onnxruntime-web"))).toBe(false);
	});

	test("the installed release's binary is the one whose SHA-256 and size the plugin records", () => {
		const dist = dirname(requireHere.resolve(`onnxruntime-web/${ORT_WASM_FILE}`));
		const version = (JSON.parse(readFileSync(join(dist, "..", "package.json"), "utf8")) as { version: string }).version;
		expect(version).toBe(ORT_RELEASE.version);
		const bytes = readFileSync(join(dist, ORT_WASM_FILE));
		expect(bytes.length).toBe(ORT_RELEASE.wasmSize);
		expect(createHash("sha256").update(bytes).digest("hex")).toBe(ORT_RELEASE.wasmSha256);
	});
});
