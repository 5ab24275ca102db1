// The local embedding model inside Obsidian, through the built main.js: the settings tab's
// Download button fetches the ONNX Runtime WASM and a (tiny, generated) model from a local
// stand-in for the hub, with progress; on desktop the files land in ~/.engrama/obsidian-models
// (outside the vault), are verified, and embeddings then work with the server gone. Cancel keeps
// nothing; a failed download says so and the installed model keeps working. Models an earlier
// version left in the plugin folder move out on first start. Each group has a home of its own
// (os.homedir() follows HOME), so no group sees another's downloads.
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { makeTempDir } from "../helpers/temp-dir";
import { TINY_DIMS, writeTinyModel } from "../nodejs/embedders/tiny-onnx-model";
import { PLUGIN_DIR, TEST_HOME, loadPlugin, makeVault, manifest, waitFor, type LoadedPlugin, type PluginInstance, type VaultCopy } from "./harness";
import { ORT_DIST, ORT_VERSION, startHubServer, type HubServer } from "./model-hub-server";

const MODEL = "engrama/tiny-encoder";
const RUNTIME = `onnxruntime-web/${ORT_VERSION}`;
const WASM_BYTES = statSync(join(ORT_DIST, "ort-wasm-simd-threaded.wasm")).size;

let h: LoadedPlugin;
const hub = makeTempDir("engrama-hub-");

beforeAll(async () => {
	h = await loadPlugin();
	writeTinyModel(hub.path, MODEL);
});

afterAll(() => {
	hub.cleanup();
	process.env.HOME = TEST_HOME;
});

/** The model folder the download group filled (the moving group copies from it). */
let downloaded: string | undefined;

let homes = 0;
/** A fresh home for this group: the desktop plugin's shared model folder starts empty. */
function freshHome(): string {
	const home = join(TEST_HOME, `models-${++homes}`);
	mkdirSync(home, { recursive: true });
	process.env.HOME = home;
	return home;
}

/** The desktop plugin's model folder under the current HOME. */
function modelsDir(): string {
	return join(process.env.HOME!, ".engrama", "obsidian-models");
}

type App = ReturnType<LoadedPlugin["fake"]["createFakeApp"]>;

interface Session {
	readonly app: App;
	readonly plugin: PluginInstance;
}

function notes(vault: string): void {
	writeFileSync(join(vault, "Cats.md"), "the cat sat on the mat\n");
	writeFileSync(join(vault, "Dogs.md"), "the dog ran in the park\n");
	writeFileSync(join(vault, "Storage.md"), "sqlite graph database with vector search\n");
}

function writeSettings(vault: string, settings: unknown): void {
	mkdirSync(join(vault, PLUGIN_DIR), { recursive: true });
	writeFileSync(join(vault, PLUGIN_DIR, "data.json"), JSON.stringify(settings));
}

function localSettings(server: HubServer): unknown {
	return { embedding: { provider: "local", model: MODEL, hubUrl: server.url, runtimeUrl: server.runtimeUrl } };
}

async function open(vault: string): Promise<Session> {
	const app = h.fake.createFakeApp(vault);
	const plugin = new h.Plugin(app, manifest());
	await plugin.fakeLoad();
	await app.workspace.fakeLayoutReady();
	await plugin.controller!.ready();
	await plugin.controller!.tasks.whenIdle();
	return { app, plugin };
}

async function close(session: Session): Promise<void> {
	session.plugin.unload();
	await session.plugin.closed;
}

function tab(session: Session): InstanceType<LoadedPlugin["fake"]["PluginSettingTab"]> {
	const t = session.app.settingTabs[0];
	t.display();
	return t;
}

function setting(container: HTMLElement, name: string): HTMLElement {
	const found = Array.from(container.querySelectorAll<HTMLElement>(".setting-item")).find((s) => s.querySelector(".setting-item-name")?.textContent === name);
	if (!found) throw new Error(`No setting "${name}"`);
	return found;
}

function button(container: HTMLElement, settingName: string, text: string): HTMLButtonElement {
	const found = Array.from(setting(container, settingName).querySelectorAll("button")).find((b) => b.textContent === text);
	if (!found) throw new Error(`No button "${text}" in "${settingName}"`);
	return found;
}

function noticeTexts(): string[] {
	return h.fake.fakeNotices.map((n) => n.text);
}

async function search(session: Session, text: string) {
	const engine = await session.plugin.controller!.ready();
	return engine.memory.search(engine.scope, text);
}

describe("local embedding model in the plugin", () => {
	const vault: VaultCopy = makeVault({ example: false });
	let server: HubServer;

	beforeAll(() => void freshHome());
	afterAll(() => vault.cleanup());

	test("before the download: search degrades with a message that says where to download", async () => {
		server = await startHubServer(hub.path);
		writeSettings(vault.path, localSettings(server));
		notes(vault.path);
		const session = await open(vault.path);
		try {
			const engine = await session.plugin.controller!.ready();
			expect(engine.embedderNote).toMatch(/not downloaded yet: download the model in settings/);
			await waitFor(() => session.app.statusBarEl.textContent?.includes(`vectors: ${MODEL} (not downloaded)`), "the status bar");
			// Re-embedding says what to do instead of failing node by node.
			h.fake.fakeReset();
			expect(session.app.commands.executeCommandById("engrama:reembed-missing")).toBe(true);
			await waitFor(() => noticeTexts().some((n) => n.includes("is not downloaded yet: download the model in settings")), "the re-embed notice");
			const view = await search(session, "cat");
			expect(view.degraded).toBe(true);
			expect(view.reason).toMatch(/download the model in settings/);
			expect(view.results.map((r) => r.name)).toContain("Cats");
			const t = tab(session);
			await waitFor(() => /Not downloaded\. The first download also fetches the ONNX Runtime/.test(setting(t.containerEl, "Model files").textContent ?? ""), "the status in settings");
			expect(server.requests).toEqual([]);
		} finally {
			await close(session);
		}
	}, 120_000);

	test("Download model: progress in settings, notice and status bar; files verified into ~/.engrama/obsidian-models, none in the vault; notes embedded", async () => {
		h.fake.fakeReset();
		const session = await open(vault.path);
		try {
			const controller = session.plugin.controller!;
			const t = tab(session);
			const seen = { settings: new Set<string>(), notice: new Set<string>(), status: new Set<string>(), loaded: [] as number[] };
			const off = controller.onChange(() => {
				const state = controller.models.state;
				if (state.kind !== "downloading" || !state.progress) return;
				if (state.progress.file === "ort-wasm-simd-threaded.wasm") seen.loaded.push(state.progress.loaded);
				seen.settings.add(t.containerEl.querySelector(".engrama-model-state")?.textContent ?? "");
				seen.status.add(session.app.statusBarEl.querySelector(".engrama-status-embed")?.textContent ?? "");
				for (const n of h.fake.fakeNotices) if (n.noticeEl.querySelector(".engrama-progress-cancel")) seen.notice.add(n.text);
			});
			const started = performance.now();
			button(t.containerEl, "Model files", "Download model").click();
			await waitFor(() => controller.models.state.kind === "done", "the download", 120_000).catch((error: unknown) => {
				console.log("DEBUG", JSON.stringify(controller.models.state), noticeTexts(), server.requests.slice(-5));
				throw error;
			});
			const downloadMs = performance.now() - started;
			off();
			// Bytes / total, growing, for the 14 MB runtime (4 MiB ranges), in all three places.
			expect(seen.loaded.length).toBeGreaterThanOrEqual(4);
			expect([...seen.loaded].sort((a, b) => a - b)).toEqual(seen.loaded);
			expect(seen.loaded.at(-1)).toBe(WASM_BYTES);
			const totalKb = Math.ceil(WASM_BYTES / 1024).toLocaleString("en-US");
			expect([...seen.settings]).toContain(`Downloading ${MODEL}: ort-wasm-simd-threaded.wasm 4,096 / ${totalKb} kB (file 1 of 5)`);
			expect([...seen.notice].some((n) => n.includes(`Downloading ${MODEL}: ort-wasm-simd-threaded.wasm 8,192 / ${totalKb} kB`))).toBe(true);
			expect([...seen.status]).toContain("downloading model 29% (file 1 of 5)");
			expect(server.requests.filter((r) => r.includes("ort-wasm-simd-threaded.wasm")).every((r) => / bytes=\d+-\d+$/.test(r))).toBe(true);

			// Files outside the vault, with a manifest naming sizes and hashes; nothing staged left over, nothing in the vault.
			const manifestPath = join(modelsDir(), MODEL, "engrama-model.json");
			const installed = JSON.parse(readFileSync(manifestPath, "utf8")) as { dimensions: number; files: { path: string; size: number; sha256: string }[] };
			expect(installed.dimensions).toBe(TINY_DIMS);
			expect(installed.files.map((f) => f.path).sort()).toEqual(["config.json", "onnx/model_quantized.onnx", "tokenizer.json", "tokenizer_config.json"]);
			for (const f of installed.files) {
				expect(statSync(join(modelsDir(), MODEL, f.path)).size).toBe(f.size);
				expect(f.sha256).toMatch(/^[0-9a-f]{64}$/);
			}
			expect(statSync(join(modelsDir(), RUNTIME, "ort-wasm-simd-threaded.wasm")).size).toBe(WASM_BYTES);
			expect(existsSync(join(modelsDir(), ".partial")) ? readdirSync(join(modelsDir(), ".partial")) : []).toEqual([]);
			expect(existsSync(join(vault.path, PLUGIN_DIR, "models"))).toBe(false);
			if (process.platform !== "win32") expect(statSync(modelsDir()).mode & 0o777).toBe(0o700);
			expect(setting(t.containerEl, "Model").textContent).toContain("outside the vault, in .engrama/obsidian-models in your home folder");
			await waitFor(() => noticeTexts().some((n) => n.includes(`the local model ${MODEL} is ready`) && n.includes(`${TINY_DIMS} dimensions`)), "the ready notice");

			// The engine reopened with the model and embedded the notes that were already in memory.
			await waitFor(() => controller.host.engine?.embedderNote === `local ${MODEL}`, "the engine with the local model", 60_000);
			await waitFor(() => noticeTexts().some((n) => /Engrama: embedded 3 nodes/.test(n)), "the notes embedded", 60_000);
			const view = await search(session, "a cat on a mat");
			expect(view.degraded).toBe(false);
			expect(view.results[0]?.name).toBe("Cats");
			expect(view.results[0]?.scores.vector).toBeGreaterThan(0.5);
			expect(setting(t.containerEl, "Model files").textContent).toMatch(/Downloaded \(\d+\.\d MB, 16 dimensions\)\. Works offline\./);
			expect(session.app.statusBarEl.textContent).toContain(`vectors: ${MODEL}`);
			expect(session.app.statusBarEl.textContent).not.toContain("not downloaded");
			downloaded = modelsDir();
			console.log(`[local-model] download + verify of runtime (${WASM_BYTES} B) and tiny model: ${downloadMs.toFixed(0)} ms`);
		} finally {
			await close(session);
		}
	}, 180_000);

	test("works offline afterwards: server stopped, a new session embeds from the model folder", async () => {
		await server.close();
		h.fake.fakeReset();
		const before = server.requests.length;
		const started = performance.now();
		const session = await open(vault.path);
		try {
			const engine = await session.plugin.controller!.ready();
			expect(engine.embedderNote).toBe(`local ${MODEL}`);
			const view = await search(session, "the dog in the park");
			const loadMs = performance.now() - started;
			expect(view.degraded).toBe(false);
			expect(view.results[0]?.name).toBe("Dogs");
			// A new note is embedded on write.
			await session.app.vault.create("Mats.md", "a mat on a mat\n");
			await waitFor(async () => (await search(session, "mat mat")).results.find((r) => r.name === "Mats" && r.scores.vector_rank === 1), "the new note embedded").catch(async (error: unknown) => {
				console.log("DEBUG", JSON.stringify((await search(session, "mat mat")).results.map((r) => [r.name, r.scores])));
				throw error;
			});
			const embedder = engine.embedder!;
			const texts = Array.from({ length: 256 }, (_, i) => `the cat ${i % 2 ? "sat on the mat" : "ran in the park"} ${i}`);
			const t0 = performance.now();
			const vectors = await embedder.embedBatch(texts);
			const embedMs = performance.now() - t0;
			expect(vectors).toHaveLength(256);
			expect(vectors[0]).toHaveLength(TINY_DIMS);
			expect(server.requests.length).toBe(before);
			expect(h.fake.fakeRequests).toEqual([]);
			console.log(`[local-model] offline session: open + first search (model load) ${loadMs.toFixed(0)} ms; embedBatch 256 short texts ${embedMs.toFixed(0)} ms (${((256 / embedMs) * 1000).toFixed(0)}/s)`);
		} finally {
			await close(session);
		}
	}, 120_000);

	test("a failed download (404, then server gone) shows a clear notice and keeps the installed model", async () => {
		const failing = await startHubServer(hub.path);
		failing.missing.add(`/${MODEL}/resolve/main/onnx/model_quantized.onnx`);
		h.fake.fakeReset();
		const session = await open(vault.path);
		try {
			const controller = session.plugin.controller!;
			await controller.saveSettings((s) => {
				s.embedding.hubUrl = failing.url;
				s.embedding.runtimeUrl = failing.runtimeUrl;
			});
			const manifestPath = join(modelsDir(), MODEL, "engrama-model.json");
			const manifestBefore = readFileSync(manifestPath, "utf8");
			const t = tab(session);
			(await waitFor(() => button(t.containerEl, "Model files", "Download again"), "the installed state")).click();
			await waitFor(() => controller.models.state.kind === "failed", "the failed download", 60_000);
			await waitFor(() => noticeTexts().find((n) => n.includes(`downloading the local model ${MODEL} failed`)), "the failure notice");
			const notice404 = noticeTexts().find((n) => n.includes("failed"))!;
			expect(notice404).toContain(`${failing.url}/${MODEL}/resolve/main/onnx/model_quantized.onnx was not found (404). Check the model id and the download URL in settings.`);
			// The runtime was already there: only the model's files were asked for.
			expect(failing.requests.some((r) => r.includes("onnxruntime-web"))).toBe(false);
			expect(readFileSync(manifestPath, "utf8")).toBe(manifestBefore);
			await waitFor(() => /The last download failed: .*404/.test(setting(t.containerEl, "Model files").textContent ?? ""), "the failure in settings");

			// A file that does not match the hash the hub names is refused.
			const onnx = `/${MODEL}/resolve/main/onnx/model_quantized.onnx`;
			failing.missing.delete(onnx);
			failing.corrupt.add(onnx);
			h.fake.fakeReset();
			button(t.containerEl, "Model files", "Download again").click();
			await waitFor(() => noticeTexts().find((n) => n.includes(`downloading the local model ${MODEL} failed`)), "the damaged-file notice", 60_000);
			expect(noticeTexts().find((n) => n.includes("failed"))).toMatch(/onnx\/model_quantized\.onnx is damaged: its SHA-256 is [0-9a-f]{64}, the server said [0-9a-f]{64}\. Download it again\./);
			expect(readFileSync(manifestPath, "utf8")).toBe(manifestBefore);

			await failing.close();
			h.fake.fakeReset();
			button(t.containerEl, "Model files", "Download again").click();
			await waitFor(() => noticeTexts().find((n) => n.includes(`downloading the local model ${MODEL} failed`)), "the second failure notice", 60_000);
			expect(noticeTexts().find((n) => n.includes("failed"))).toMatch(/could not be reached \(.+\)\. Check the connection and the download URL in settings\./);
			expect(readFileSync(manifestPath, "utf8")).toBe(manifestBefore);
			const view = await search(session, "the cat sat");
			expect(view.degraded).toBe(false);
			expect(view.results[0]?.name).toBe("Cats");
		} finally {
			await close(session);
		}
	}, 120_000);
});

describe("models an earlier version left in the plugin folder", () => {
	const vault: VaultCopy = makeVault({ example: false });
	afterAll(() => vault.cleanup());

	test("move out of the vault on first start, checked and complete, even after a crash midway; then embed offline", async () => {
		if (!downloaded) throw new Error("the download group did not finish");
		const legacy = join(vault.path, PLUGIN_DIR, "models");
		cpSync(join(downloaded, MODEL), join(legacy, MODEL), { recursive: true });
		cpSync(join(downloaded, RUNTIME), join(legacy, RUNTIME), { recursive: true });
		// An earlier start crashed midway: the runtime already took its place, its old copy was not removed yet.
		freshHome();
		cpSync(join(downloaded, RUNTIME), join(modelsDir(), RUNTIME), { recursive: true });
		writeSettings(vault.path, { embedding: { provider: "local", model: MODEL, hubUrl: "http://127.0.0.1:9", runtimeUrl: "http://127.0.0.1:9/{version}" } });
		notes(vault.path);
		h.fake.fakeReset();
		const session = await open(vault.path);
		try {
			const engine = await session.plugin.controller!.ready();
			expect(engine.embedderNote).toBe(`local ${MODEL}`);
			expect(noticeTexts().find((n) => n.includes("moved its local models out of the synced vault"))).toContain(`to ${modelsDir()}: ${MODEL}.`);
			expect(existsSync(legacy)).toBe(false);
			expect(readFileSync(join(modelsDir(), MODEL, "onnx", "model_quantized.onnx")).equals(readFileSync(join(downloaded, MODEL, "onnx", "model_quantized.onnx")))).toBe(true);
			const view = await waitFor(async () => {
				const found = await search(session, "a cat on a mat");
				return found.results[0]?.scores.vector_rank === 1 ? found : null;
			}, "the notes embedded", 60_000);
			expect(view.degraded).toBe(false);
			expect(view.results[0]?.name).toBe("Cats");
			expect(h.fake.fakeRequests).toEqual([]);
		} finally {
			await close(session);
		}
	}, 120_000);

	test("a model file changed after the download is refused when the model loads, saying to download again", async () => {
		const onnx = join(modelsDir(), MODEL, "onnx", "model_quantized.onnx");
		const bytes = readFileSync(onnx);
		bytes[bytes.length - 1] ^= 0xff;
		writeFileSync(onnx, bytes);
		h.fake.fakeReset();
		const session = await open(vault.path);
		try {
			const view = await search(session, "a cat on a mat");
			expect(view.degraded).toBe(true);
			expect(view.reason).toContain(`${join(modelsDir(), MODEL, "onnx", "model_quantized.onnx")}`);
			expect(view.reason).toMatch(/is not the file that was downloaded \(SHA-256 [0-9a-f]{64}, recorded [0-9a-f]{64}\)\. Download it again in settings\./);
		} finally {
			await close(session);
		}
	}, 120_000);
});

describe("cancelling the download", () => {
	const vault: VaultCopy = makeVault({ example: false });
	beforeAll(() => void freshHome());
	afterAll(() => vault.cleanup());

	test("Cancel in the progress notice stops it and keeps nothing; the model stays 'not downloaded'", async () => {
		const server = await startHubServer(hub.path);
		server.delayMs = 150;
		writeSettings(vault.path, localSettings(server));
		notes(vault.path);
		h.fake.fakeReset();
		const session = await open(vault.path);
		try {
			const controller = session.plugin.controller!;
			const t = tab(session);
			button(t.containerEl, "Model files", "Download model").click();
			await waitFor(() => {
				const s = controller.models.state;
				return s.kind === "downloading" && s.progress !== null && s.progress.loaded > 0;
			}, "the first bytes");
			expect(button(t.containerEl, "Model files", "Cancel").style.display).not.toBe("none");
			const notice = h.fake.fakeNotices.find((n) => n.noticeEl.querySelector(".engrama-progress-cancel"))!;
			notice.noticeEl.querySelector<HTMLButtonElement>(".engrama-progress-cancel")!.click();
			await waitFor(() => noticeTexts().some((n) => n === `Engrama: the download of ${MODEL} was cancelled. Nothing was kept; the previous setting still applies.`), "the cancelled notice", 30_000);
			expect(controller.models.state.kind).toBe("idle");
			expect(notice.hidden).toBe(true);
			const left = existsSync(modelsDir()) ? readdirSync(modelsDir(), { recursive: true }) : [];
			expect(left.filter((p) => !String(p).startsWith(".partial") && !String(p).startsWith(".moved-from"))).toEqual([]);
			expect(existsSync(join(modelsDir(), ".partial")) ? readdirSync(join(modelsDir(), ".partial")) : []).toEqual([]);
			const requestsAtCancel = server.requests.length;
			await new Promise((resolve) => setTimeout(resolve, 400));
			expect(server.requests.length).toBe(requestsAtCancel);
			const view = await search(session, "cat");
			expect(view.degraded).toBe(true);
			expect(view.reason).toMatch(/not downloaded yet/);
			expect(setting(t.containerEl, "Model files").textContent).toMatch(/Not downloaded\./);
		} finally {
			await close(session);
			await server.close();
		}
	}, 120_000);
});

describe("the ONNX Runtime binary is pinned", () => {
	beforeAll(() => void freshHome());
	test("a runtime that is not the recorded release byte for byte (a mirror serving another build) is refused and nothing is kept", async () => {
		const vault = makeVault({ example: false });
		notes(vault.path);
		const server = await startHubServer(hub.path);
		server.corrupt.add(`/npm/onnxruntime-web@${ORT_VERSION}/dist/ort-wasm-simd-threaded.wasm`);
		writeSettings(vault.path, localSettings(server));
		h.fake.fakeReset();
		const session = await open(vault.path);
		try {
			const controller = session.plugin.controller!;
			button(tab(session).containerEl, "Model files", "Download model").click();
			await waitFor(() => controller.models.state.kind === "failed", "the refused download", 60_000);
			const notice = await waitFor(() => noticeTexts().find((n) => n.includes("failed")), "the failure notice");
			expect(notice).toMatch(new RegExp(`is not ONNX Runtime ${ORT_VERSION.replace(/\./g, "\\.")}'s ort-wasm-simd-threaded\\.wasm: its SHA-256 is [0-9a-f]{64}, expected [0-9a-f]{64}\\. Nothing was kept`));
			expect(existsSync(join(modelsDir(), RUNTIME))).toBe(false);
			// The magic number alone let this binary through before the pin; the model files were never fetched.
			expect(server.requests.some((r) => r.includes("model_quantized.onnx"))).toBe(false);
		} finally {
			await close(session);
			await server.close();
			vault.cleanup();
		}
	}, 120_000);
});
