// Notes typed with a label of a module that is off (the five teaching notes of examples/vault):
// after the sync the plugin says why once, and its button turns the module on and syncs them.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { PLUGIN_DIR, loadPlugin, makeVault, manifest, waitFor, type LoadedPlugin } from "./harness";

let h: LoadedPlugin;
beforeAll(async () => {
	h = await loadPlugin();
});
afterAll(() => h.fake.fakeReset());

/** The five teaching notes of examples/vault: label and key. */
const TEACHING = [
	["Course", "Node.js Backend Bootcamp"],
	["Course", "React Fundamentals"],
	["Exercise", "Build an accessible booking form"],
	["Exercise", "Make the payment endpoint idempotent"],
	["Lesson", "Designing resource URLs"],
] as const;

test("the first sync says once which module the skipped notes need; its button turns it on and syncs them", async () => {
	const vault = makeVault({ settings: { sync: { debounceMs: 30 } } });
	try {
		h.fake.fakeReset();
		const app = h.fake.createFakeApp(vault.path);
		const plugin = new h.Plugin(app, manifest());
		await plugin.fakeLoad();
		await app.workspace.fakeLayoutReady();
		const controller = plugin.controller!;
		let engine = await controller.ready();
		await waitFor(() => controller.tasks.current === null && controller.counts !== null, "the startup sync");
		expect(await engine.memory.get(engine.scope, "Course", "React Fundamentals").catch(() => null)).toBeNull();
		expect(controller.settings.modules).toEqual([]);

		const offers = () => h.fake.fakeNotices.filter((n) => !n.hidden && n.text.includes("of the teaching module"));
		const offer = await waitFor(() => offers()[0], "the module offer");
		expect(offer.text).toContain("Engrama: 5 notes use labels of the teaching module, which is off. Turn it on to sync them with their labels.");
		const button = offer.noticeEl.querySelector("button");
		expect(button?.textContent).toBe("Turn on teaching");

		// Once: another full sync does not repeat it.
		await controller.fullSync(engine);
		expect(h.fake.fakeNotices.filter((n) => n.text.includes("of the teaching module"))).toHaveLength(1);

		button!.click();
		await waitFor(() => h.fake.fakeNotices.find((n) => n.text.includes("turned on module teaching")), "the module turned on");
		expect(offer.hidden).toBe(true);
		const saved = JSON.parse(readFileSync(join(vault.path, PLUGIN_DIR, "data.json"), "utf8")) as { modules: string[] };
		expect(saved.modules).toEqual(["teaching"]);
		engine = await controller.ready();
		expect(engine.profile.resolveLabel("Course")).toBeDefined();
		for (const [label, key] of TEACHING) {
			expect((await engine.memory.get(engine.scope, label, key))?.props.obsidian_path, `${label} ${key}`).toMatch(/^Courses\//);
		}
		plugin.unload();
		await plugin.closed;
	} finally {
		vault.cleanup();
	}
}, 120_000);
