// Runs inside Chromium for `npm run bench -- embed-ui`: the built main.js evaluated as Obsidian
// does, over the fake `obsidian` with an in-memory vault (the mobile adapter), the local model
// chosen but not downloaded. `engramaEmbedSetup` loads the plugin and waits for the first sync
// (nodes stored without vectors); `engramaEmbedWindow` then downloads the model the way the
// settings' Download button does (the engine reopens and embeds the missing vectors), watches the
// progress the person sees (status bar, progress notice, panel) for a fixed window, and cancels.
import * as fake from "../../fakes/obsidian";

interface EmbedPlugin {
	fakeLoad(): Promise<void>;
	unload(): void;
	closed: Promise<void>;
	controller: {
		ready(): Promise<unknown>;
		tasks: { current: { title: string; detail: string } | null; cancel(): void };
	} | null;
	actions: { downloadLocalModel(): Promise<boolean>; openPanel(): Promise<void> } | null;
}
type PluginClass = new (app: unknown, manifest: unknown) => EmbedPlugin;

let session: { app: fake.App; plugin: EmbedPlugin } | null = null;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function setup(vaultUrl: string, mainJs: string, manifest: Record<string, unknown>, pluginDir: string, settings: Record<string, unknown>): Promise<{ notes: number; syncMs: number }> {
	const files = (await (await window.fetch(vaultUrl)).json()) as Record<string, string>;
	files[`${pluginDir}/data.json`] = JSON.stringify(settings);
	const module = { exports: {} as { default?: PluginClass } };
	const requireShim = (id: string): unknown => {
		if (id === "obsidian") return fake;
		throw new Error(`Cannot find module '${id}'`);
	};
	// eslint-disable-next-line @typescript-eslint/no-implied-eval -- this is how Obsidian evaluates a plugin's main.js
	const evaluate = new Function("module", "exports", "require", mainJs) as (m: unknown, e: unknown, r: unknown) => void;
	evaluate(module, module.exports, requireShim);
	const app = fake.createFakeApp(fake.memoryFileSystem(files), { mobile: true });
	const plugin = new module.exports.default!(app, manifest);
	await plugin.fakeLoad();
	const started = performance.now();
	await app.workspace.fakeLayoutReady();
	await plugin.controller!.ready();
	while (plugin.controller!.tasks.current) await sleep(100);
	// The panel open in the sidebar, as a person watching the embed would have it (its renders count).
	await plugin.actions!.openPanel();
	const leaf = app.workspace.getLeavesOfType("engrama-panel")[0];
	if (leaf) document.getElementById("sidebar")?.appendChild(leaf.containerEl);
	session = { app, plugin };
	return { notes: Object.keys(files).filter((f) => f.endsWith(".md")).length, syncMs: performance.now() - started };
}

interface Seen {
	readonly s: number;
	readonly task: string;
	readonly status: string;
	readonly notice: string;
}

/** Download, then `windowMs` of the embed that follows (marks engrama:embed:start/end in the trace), then Cancel. */
async function embedWindow(windowMs: number, pluginDir: string): Promise<{ downloadMs: number; seen: Seen[]; finished: boolean; worker: boolean; snapshotBytes: number }> {
	const { app, plugin } = session!;
	const controller = plugin.controller!;
	const started = performance.now();
	const done = plugin.actions!.downloadLocalModel();
	let finished = false;
	void done.then(() => (finished = true));
	while (controller.tasks.current?.title !== "Embedding missing vectors" && !finished) await sleep(50);
	const downloadMs = performance.now() - started;
	console.timeStamp("engrama:embed:start");
	const embedStarted = performance.now();
	const seen: Seen[] = [];
	while (performance.now() - embedStarted < windowMs && controller.tasks.current) {
		await sleep(1000);
		const notice = fake.fakeNotices.find((n) => n.noticeEl.querySelector(".engrama-progress-cancel"));
		seen.push({
			s: Math.round((performance.now() - embedStarted) / 1000),
			task: controller.tasks.current ? `${controller.tasks.current.title}: ${controller.tasks.current.detail}` : "",
			status: app.statusBarEl.textContent ?? "",
			notice: notice?.text ?? "",
		});
	}
	console.timeStamp("engrama:embed:end");
	const finishedInWindow = finished || !controller.tasks.current;
	controller.tasks.cancel();
	await done;
	// The mobile database lives in memory and is kept as a whole-file snapshot: its size now.
	const snapshotBytes = (await app.vault.adapter.stat(`${pluginDir}/engrama.db`))?.size ?? 0;
	return { downloadMs, seen, finished: finishedInWindow, worker: (globalThis as { __engramaOrtWorker?: unknown }).__engramaOrtWorker !== undefined, snapshotBytes };
}

async function teardown(): Promise<void> {
	if (!session) return;
	session.plugin.unload();
	await session.plugin.closed;
	session = null;
}

Object.assign(window, { engramaEmbedSetup: setup, engramaEmbedWindow: embedWindow, engramaEmbedTeardown: teardown });
