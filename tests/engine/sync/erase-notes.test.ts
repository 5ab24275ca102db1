import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createSkills } from "../../../src/engine/skills";
import { allNodes, openHarness, SCOPE, type SyncHarness } from "./sync-fixture";

const open: SyncHarness[] = [];
afterEach(async () => {
	for (const h of open.splice(0)) await h.close();
});

const agent = { scope: SCOPE, source: "mcp" as const };

async function watched(): Promise<SyncHarness> {
	const h = await openHarness();
	open.push(h);
	await h.sync.fullSync();
	h.sync.writer.attach();
	h.sync.start();
	return h;
}

// One erase path (Memory.erase): what it removes from the graph does not come back from the
// vault, the note Engrama wrote for it goes with it, and a note a person changed is kept and named.
describe("erasing nodes that have notes", () => {
	it("hard forget right after the write: the node is gone, so is the note Engrama created for it, and nothing brings it back", async () => {
		const h = await watched();
		const skills = createSkills(h.memory);
		await skills.remember(agent, { label: "Project", name: "Quillfeather", props: { description: "The zorblat plan" } });
		const result = await skills.forget(agent, { label: "Project", name: "Quillfeather" }, { hard: true });
		expect(result.notes).toEqual({ removed: 1, kept: 0, kept_paths: [] });
		await new Promise((r) => setTimeout(r, 600));
		await h.sync.idle();
		expect(existsSync(join(h.vaultDir, "Engrama/Project/Quillfeather.md"))).toBe(false);
		expect((await allNodes(h.memory)).map((n) => n.key)).not.toContain("Quillfeather");
		// A full sync finds nothing to bring back either.
		await h.sync.fullSync();
		expect((await allNodes(h.memory)).map((n) => n.key)).not.toContain("Quillfeather");
	});

	it("keeps and names the note a person edited since Engrama wrote it; an agent's later edit of an untouched note keeps it Engrama's", async () => {
		const h = await watched();
		const skills = createSkills(h.memory);
		await skills.remember(agent, { label: "Project", name: "Edited", props: { description: "one" } });
		await skills.remember(agent, { label: "Project", name: "Untouched", props: { description: "two" } });
		await h.sync.idle();
		h.write("Engrama/Project/Edited.md", `${h.read("Engrama/Project/Edited.md")}\nMy own thoughts.\n`);
		await h.sync.syncPaths(["Engrama/Project/Edited.md"]);
		// An agent's update, written into the untouched note by Engrama: still Engrama's note.
		await skills.remember(agent, { label: "Project", name: "Untouched", props: { description: "two, revised" } });
		await h.sync.idle();
		expect(h.read("Engrama/Project/Untouched.md")).toContain("two, revised");
		const report = await skills.gdprForget(agent, { apply: true });
		expect(report.notes).toEqual({ removed: 1, kept: 1, kept_paths: ["Engrama/Project/Edited.md"] });
		expect(existsSync(join(h.vaultDir, "Engrama/Project/Untouched.md"))).toBe(false);
		expect(h.read("Engrama/Project/Edited.md")).toContain("My own thoughts.");
	});
});
