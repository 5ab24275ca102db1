// The first run of the built main.js in a vault that never had the plugin (no data.json): the
// welcome in the panel, its dry run, and nothing in the vault written before its Start.
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { afterEach, beforeAll, describe, expect, test, vi } from "vitest";
import { PLUGIN_DIR, TEST_HOME, loadPlugin, makeVault, manifest, waitFor, type LoadedPlugin, type PluginInstance, type VaultCopy } from "./harness";
import type { WelcomePanel } from "../../src/plugin/ui/welcome";

let h: LoadedPlugin;
const cleanup: (() => Promise<void> | void)[] = [];

beforeAll(async () => {
	h = await loadPlugin();
});

afterEach(async () => {
	for (const step of cleanup.splice(0).reverse()) await step();
	h.fake.fakeReset();
});

/** Every file under `dir` with its bytes and mtime (what "no file written" is checked against). */
function snapshot(dir: string): Map<string, string> {
	const out = new Map<string, string>();
	const walk = (d: string) => {
		if (!existsSync(d)) return;
		for (const name of readdirSync(d)) {
			const path = join(d, name);
			const stat = statSync(path);
			if (stat.isDirectory()) walk(path);
			else out.set(relative(dir, path), `${stat.mtimeMs} ${readFileSync(path, "base64")}`);
		}
	};
	walk(dir);
	return out;
}

function modelToggle(panel: HTMLElement): HTMLElement {
	const setting = Array.from(panel.querySelectorAll(".setting-item")).find((s) => s.textContent?.includes("Download the local model"));
	const toggle = setting?.querySelector<HTMLElement>(".checkbox-container");
	if (!toggle) throw new Error("no model toggle in the welcome");
	return toggle;
}

const homeData = () => snapshot(join(TEST_HOME, ".engrama", "vaults"));
const idOf = (text: string) => /^engrama_id: (.+)$/m.exec(text)?.[1];

async function firstRun(vault: VaultCopy): Promise<{ plugin: PluginInstance; welcome: WelcomePanel; app: ReturnType<LoadedPlugin["fake"]["createFakeApp"]> }> {
	const app = h.fake.createFakeApp(vault.path);
	const plugin = new h.Plugin(app, manifest());
	await plugin.fakeLoad();
	await app.workspace.fakeLayoutReady();
	cleanup.push(async () => {
		plugin.unload();
		await plugin.closed;
		vault.cleanup();
	});
	// The panel opens by itself on a first run, with the welcome in it.
	const view = await waitFor(() => app.workspace.getLeavesOfType("engrama-panel")[0]?.view as { welcome?: WelcomePanel | null } | undefined, "the panel");
	const welcome = await waitFor(() => view.welcome, "the welcome", 60_000);
	return { plugin, welcome, app };
}

// A dry run and a first sync of the example vault each: minutes at the load of a shared 2-core machine.
vi.setConfig({ testTimeout: 240_000 });

describe("first run in a vault with notes", () => {
	test("writes no file (vault, data.json, database) until Start; then the start does what the preview said", async () => {
		const vault = makeVault();
		const homeBefore = homeData();
		const before = snapshot(vault.path);
		expect([...before.keys()].some((p) => p.startsWith(PLUGIN_DIR))).toBe(false);
		const { plugin, welcome, app } = await firstRun(vault);
		const preview = await waitFor(() => welcome.lastPreview, "the dry run's figures", 90_000);
		const panel = app.workspace.getLeavesOfType("engrama-panel")[0].view.containerEl;
		// Offered on desktop; this test downloads nothing (plugin-local-model.test.ts covers the download).
		expect(modelToggle(panel).classList.contains("is-enabled")).toBe(true);
		modelToggle(panel).click();
		expect(panel.textContent).toContain("Welcome to Engrama");
		expect(panel.textContent).toContain(`${preview.notes} notes will be indexed`);
		expect(panel.textContent).toContain(`${preview.ids} notes get one engrama_id line`);
		expect(panel.textContent).toContain("skipped: in folders left out");
		expect(preview.notes).toBeGreaterThan(40);
		// The example vault's notes lack ids but one; Templates is left out.
		expect(preview.ids).toBeGreaterThan(40);
		expect(preview.idPaths.some((p) => p.startsWith("Templates/"))).toBe(false);
		// A second dry run (the person changes a choice) still writes nothing.
		expect(await welcome.refresh()).toMatchObject({ notes: preview.notes, ids: preview.ids });
		expect(plugin.controller!.awaitingStart).toBe(true);
		expect(plugin.controller!.host.state.kind).toBe("idle");
		await expect(plugin.controller!.ready()).rejects.toThrow(/press Start/);
		expect(snapshot(vault.path)).toEqual(before);
		expect(homeData()).toEqual(homeBefore);

		await welcome.start();
		const report = plugin.controller!.activity.lastReport;
		expect(report?.counts.nodesCreated).toBe(preview.notes);
		expect(report?.counts.stubsCreated).toBe(preview.stubs);
		expect(report?.counts.relationsAdded).toBe(preview.relations);
		// The ids written are exactly the notes the preview named, each with its node's id.
		const engine = await plugin.controller!.ready();
		const withId = preview.idPaths.filter((path) => idOf(readFileSync(join(vault.path, path), "utf8")) !== undefined);
		expect(withId.sort()).toEqual([...preview.idPaths].sort());
		for (const path of preview.idPaths.slice(0, 5)) {
			const id = idOf(readFileSync(join(vault.path, path), "utf8"))!;
			expect((await engine.memory.graph.getNodeById(engine.scope, id))?.props.obsidian_path).toBe(path);
		}
		const data = JSON.parse(readFileSync(join(vault.path, PLUGIN_DIR, "data.json"), "utf8")) as { firstRun: string; sync: { writeEngramaIds: boolean } };
		expect(data).toMatchObject({ firstRun: "done", sync: { writeEngramaIds: true } });
		// Left-out folders were not touched.
		for (const [path, state] of before) if (path.startsWith("Templates/")) expect(snapshot(vault.path).get(path)).toBe(state);
	});

	test("the path-only choice never writes a note: not at the start, not after an edit", async () => {
		const vault = makeVault();
		const before = snapshot(vault.path);
		const { plugin, welcome, app } = await firstRun(vault);
		await waitFor(() => welcome.lastPreview, "the dry run", 90_000);
		const panel = app.workspace.getLeavesOfType("engrama-panel")[0].view.containerEl;
		const select = panel.querySelector<HTMLSelectElement>(".engrama-welcome-choices select")!;
		select.value = "paths";
		select.dispatchEvent(new window.Event("change"));
		modelToggle(panel).click();
		await waitFor(() => panel.textContent?.includes("No note is touched"), "the path-only figures", 90_000);
		await welcome.start();
		const engine = await plugin.controller!.ready();
		expect(plugin.controller!.activity.lastReport?.counts.nodesCreated).toBe(welcome.lastPreview?.notes);
		const after = snapshot(vault.path);
		for (const [path, state] of before) expect(after.get(path), path).toBe(state);
		expect([...after.keys()].filter((p) => !before.has(p))).toEqual([`${PLUGIN_DIR}/data.json`]);
		// A note edited afterwards is synced, still without an id.
		const file = app.vault.getFileByPath("Concepts/CRDTs.md")!;
		const hash = async () => (await engine.memory.graph.listNodes(engine.scope, { label: "Concept" })).find((n) => n.props.obsidian_path === "Concepts/CRDTs.md")?.props.content_hash;
		const hashBefore = await hash();
		expect(hashBefore).toBeTruthy();
		await app.vault.modify(file, `${await app.vault.read(file)}\nMerge without coordination.\n`);
		await waitFor(async () => {
			await engine.sync.idle();
			return (await hash()) !== hashBefore;
		}, "the edit synced", 60_000);
		expect(idOf(readFileSync(join(vault.path, "Concepts/CRDTs.md"), "utf8"))).toBeUndefined();
		expect(JSON.parse(readFileSync(join(vault.path, PLUGIN_DIR, "data.json"), "utf8"))).toMatchObject({ sync: { writeEngramaIds: false } });
	});
});

describe("from paths to ids later, in settings", () => {
	test("turning on engrama_id shows how many notes get one, in a git vault the hint, and then writes exactly those", async () => {
		const vault = makeVault();
		mkdirSync(join(vault.path, ".git"));
		const { plugin, welcome, app } = await firstRun(vault);
		await waitFor(() => welcome.lastPreview, "the dry run", 90_000);
		const panel = app.workspace.getLeavesOfType("engrama-panel")[0].view.containerEl;
		const select = panel.querySelector<HTMLSelectElement>(".engrama-welcome-choices select")!;
		select.value = "paths";
		select.dispatchEvent(new window.Event("change"));
		modelToggle(panel).click();
		await welcome.start();
		await plugin.controller!.ready();
		const before = snapshot(vault.path);

		const tab = app.settingTabs[0];
		tab.display();
		const ids = Array.from(tab.containerEl.querySelectorAll<HTMLElement>(".setting-item")).find((s) => s.querySelector(".setting-item-name")?.textContent === "Write engrama_id")!;
		ids.querySelector<HTMLElement>(".checkbox-container")!.click();
		const modal = await waitFor(() => h.fake.fakeOpenModals.at(-1), "the preview of the switch", 90_000);
		const text = modal.contentEl.textContent ?? "";
		const count = Number(/([\d,]+) notes get one engrama_id line/.exec(text)?.[1]?.replace(/,/g, ""));
		expect(count).toBeGreaterThan(40);
		expect(text).toContain("git repository");
		// Nothing was written for the preview.
		expect(snapshot(vault.path)).toEqual(before);
		Array.from(modal.contentEl.querySelectorAll("button")).find((b) => b.textContent === "Write the ids")!.click();
		await waitFor(() => (JSON.parse(readFileSync(join(vault.path, PLUGIN_DIR, "data.json"), "utf8")) as { sync: { writeEngramaIds: boolean } }).sync.writeEngramaIds, "the saved choice");
		await waitFor(() => h.fake.fakeNotices.some((n) => n.text.includes("wrote engrama_id into")), "the ids written", 60_000);
		const written = [...before.keys()].filter((p) => p.endsWith(".md") && idOf(readFileSync(join(vault.path, p), "utf8")) !== undefined && idOf(Buffer.from(before.get(p)!.split(" ")[1], "base64").toString("utf8")) === undefined);
		expect(written.length).toBe(count);
		expect(h.fake.fakeNotices.some((n) => n.text.includes(`wrote engrama_id into ${count} notes`))).toBe(true);
	});
});

describe("who sees the welcome", () => {
	test("a vault whose data.json an earlier version wrote (it synced already) starts at once, without the welcome", async () => {
		const vault = makeVault({ settings: { vaultId: "", sync: { autoSync: true, writeEngramaIds: true }, mcp: { enabled: false } } });
		const app = h.fake.createFakeApp(vault.path);
		const plugin = new h.Plugin(app, manifest());
		await plugin.fakeLoad();
		await app.workspace.fakeLayoutReady();
		cleanup.push(async () => {
			plugin.unload();
			await plugin.closed;
			vault.cleanup();
		});
		expect(plugin.controller!.awaitingStart).toBe(false);
		await plugin.controller!.ready();
		expect(app.workspace.getLeavesOfType("engrama-panel")).toEqual([]);
		await waitFor(() => plugin.controller!.activity.lastReport, "the startup sync", 60_000);
	});
});

describe("before Start", () => {
	test("the settings tab, the commands and a failed model download save nothing and point to the welcome", async () => {
		const vault = makeVault();
		const { plugin, welcome, app } = await firstRun(vault);
		await waitFor(() => welcome.lastPreview, "the dry run", 90_000);
		const dataJson = join(vault.path, PLUGIN_DIR, "data.json");
		// The settings tab: no "Opening…", no keychain secret, no data.json; a way to the welcome.
		const tab = app.settingTabs[0];
		tab.display();
		expect(tab.containerEl.textContent).toContain("Engrama has not started in this vault");
		expect(tab.containerEl.textContent).not.toContain("Opening");
		expect(tab.containerEl.textContent).not.toContain("Write engrama_id");
		expect(app.secretStorage.listSecrets()).not.toContain("engrama-mcp-token");
		// Commands: they say so instead of saving a setting or failing.
		const command = (id: string) => app.commands.commands[`${String(manifest().id)}:${id}`];
		command("start-mcp-bridge").checkCallback!(false);
		command("sync-vault").callback!();
		await waitFor(() => h.fake.fakeNotices.filter((n) => n.text.includes("not started in this vault yet")).length >= 2, "the commands' answers");
		expect(h.fake.fakeNotices.some((n) => /is not ready|failed/.test(n.text))).toBe(false);
		expect(existsSync(dataJson)).toBe(false);
		expect(plugin.controller!.settings.mcp.enabled).toBe(false);
		expect(app.secretStorage.listSecrets()).not.toContain("engrama-mcp-token");
		// The model is downloaded first and only then chosen: a hub that cannot be reached leaves search by words.
		await plugin.controller!.saveSettings((s) => (s.embedding.hubUrl = "http://127.0.0.1:9"), { save: false, apply: false });
		expect(welcome.lastPreview).not.toBeNull();
		await welcome.start();
		const data = JSON.parse(readFileSync(dataJson, "utf8")) as { firstRun: string; embedding: { provider: string } };
		expect(data).toMatchObject({ firstRun: "done", embedding: { provider: "none" } });
		expect(plugin.controller!.settings.embedding.provider).toBe("none");
	});
});

describe("a first run cancelled halfway", () => {
	test("counts only the notes that get an id, says how to finish, and the next start finishes them paced", async () => {
		const vault = makeVault();
		// Two notes typed with a label of a module that is off: skipped, named as such, never promised an id.
		mkdirSync(join(vault.path, "Lectures"));
		for (const name of ["Intro", "Graphs"]) writeFileSync(join(vault.path, "Lectures", `${name}.md`), `---\nengrama_label: Course\n---\n# ${name}\n\nA lecture.\n`);
		const { plugin, welcome, app } = await firstRun(vault);
		const preview = await waitFor(() => welcome.lastPreview, "the dry run", 90_000);
		const panel = app.workspace.getLeavesOfType("engrama-panel")[0].view.containerEl;
		const skipped = preview.skipped.find((s) => s.reason.includes("module that is off"));
		// The example vault has notes of off modules too; ours are among them.
		expect(skipped?.count).toBeGreaterThanOrEqual(2);
		expect(skipped?.reason).toMatch(/off \(.*teaching.*\)/);
		expect(panel.textContent).not.toContain(".;");
		expect(panel.textContent).not.toContain("cannot be read as notes (each is named after the start)");
		modelToggle(panel).click();

		const details: string[] = [];
		const controller = plugin.controller!;
		const off = controller.tasks.onChange(() => {
			const current = controller.tasks.current;
			if (current?.title === "Writing engrama_id into notes" && current.detail !== "") details.push(current.detail);
		});
		const start = welcome.start();
		await waitFor(() => details.some((d) => /^[1-9]/.test(d)), "the first ids written", 120_000);
		controller.tasks.cancel();
		await start;
		off();
		// The total is what the welcome promised, not every note lacking an id.
		expect(details[0]).toBe(`0 / ${preview.ids}`);
		// The count, then the time left once there is enough to tell ("· about 1 min left").
		const counted = new RegExp(`^\\d+ / ${preview.ids}( · .+ left)?$`);
		expect(details.every((d) => counted.test(d))).toBe(true);
		expect(h.fake.fakeNotices.some((n) => n.text.includes("was cancelled") && n.text.includes("The next start finishes them"))).toBe(true);
		const withId = () => preview.idPaths.filter((path) => idOf(readFileSync(join(vault.path, path), "utf8")) !== undefined);
		const afterCancel = withId().length;
		expect(afterCancel).toBeGreaterThan(0);
		expect(afterCancel).toBeLessThan(preview.ids);

		// The next start (Obsidian reopened): the catch-up finishes the ids as a paced task with progress.
		plugin.unload();
		await plugin.closed;
		const again = new h.Plugin(app, manifest());
		const steps: string[] = [];
		await again.fakeLoad();
		const offAgain = again.controller!.tasks.onChange(() => {
			const current = again.controller!.tasks.current;
			if (current?.title === "Writing engrama_id into notes" && current.detail !== "") steps.push(current.detail);
		});
		cleanup.push(async () => {
			offAgain();
			again.unload();
			await again.closed;
		});
		await app.workspace.fakeLayoutReady();
		await waitFor(() => withId().length === preview.ids, "every promised id written", 120_000);
		expect(steps[0]).toBe(`0 / ${preview.ids - afterCancel}`);
		// Paced: progress moved in steps of at most ten notes.
		const done = steps.map((s) => Number(s.split(" / ")[0]));
		for (let i = 1; i < done.length; i++) expect(done[i] - done[i - 1]).toBeLessThanOrEqual(10);
	});
});

describe("a model that fits the vault", () => {
	const modelSelect = (panel: HTMLElement) =>
		Array.from(panel.querySelectorAll(".setting-item"))
			.find((s) => s.textContent?.includes("Download the local model"))
			?.querySelector<HTMLSelectElement>("select");

	test("a vault mostly in Spanish is offered the multilingual model; an English one keeps the default", async () => {
		const vault = makeVault({ example: false });
		const spanish = [
			"La reunión de planificación se movió al jueves porque el equipo de pagos no tenía tiempo para revisar los cambios del proveedor.",
			"Los reintentos del webhook duplican los cobros cuando el consumidor se reinicia antes de guardar el identificador del evento.",
			"Para la migración de la base de datos hay que copiar primero las tablas de clientes y después las facturas de cada mes.",
			"El informe de ventas se genera cada noche y se envía por correo a los responsables de cada tienda con los totales del día.",
		];
		spanish.forEach((text, i) => writeFileSync(join(vault.path, `Nota ${i + 1}.md`), `# Nota ${i + 1}\n\n${text}\n`));
		writeFileSync(join(vault.path, "Readme.md"), "# Readme\n\nThis folder holds the notes of the team, and the meeting minutes are in the other folder.\n");
		const { welcome, app } = await firstRun(vault);
		const preview = await waitFor(() => welcome.lastPreview, "the dry run", 90_000);
		expect(preview.languages[0]).toEqual({ language: "es", share: 0.8 });
		const panel = app.workspace.getLeavesOfType("engrama-panel")[0].view.containerEl;
		expect(modelSelect(panel)?.value).toBe("Xenova/paraphrase-multilingual-MiniLM-L12-v2");
		expect(panel.textContent).toContain("mostly in other languages than English (Spanish 80 %, English 20 %)");
	});

	test("the example vault (English) keeps the English default", async () => {
		const { welcome, app } = await firstRun(makeVault());
		const preview = await waitFor(() => welcome.lastPreview, "the dry run", 90_000);
		expect(preview.languages[0]?.language).toBe("en");
		const panel = app.workspace.getLeavesOfType("engrama-panel")[0].view.containerEl;
		expect(modelSelect(panel)?.value).toBe("Xenova/all-MiniLM-L6-v2");
		expect(panel.textContent).toContain("Your notes are mostly English");
	});
});
