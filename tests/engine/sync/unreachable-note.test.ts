import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createSkills } from "../../../src/engine/host";
import type { WriteContext } from "../../../src/engine/write/write-pipeline";
import { node, openHarness, outEdges, SCOPE, type SyncHarness } from "./sync-fixture";

// An agent's write to a note that cannot take it (re-saved as Latin-1, YAML broken since the last
// sync): the answer says so, the memory keeps the write with its provenance through syncs of the
// broken note, and the first sync of the fixed note writes it in, so a rebuild from the vault keeps it.

const harnesses: SyncHarness[] = [];
afterEach(async () => {
	for (const h of harnesses.splice(0)) await h.close();
});

const VALKEY = "Technologies/Valkey.md";
const agent: WriteContext = { scope: SCOPE, source: "mcp", agent: "claude-desktop", session: "s-7" };

interface Breakage {
	readonly name: string;
	readonly explains: RegExp;
	break(h: SyncHarness): void;
	fix(h: SyncHarness): void;
	/** How the fixed note is synced: a full sync, or the one note (an event batch's path). */
	readonly resync: "full" | "note";
}

const person = "---\nengrama_label: Technology\ndescription: Café-grade key-value store.\n---\nA fork of Redis.\n";

const BREAKAGES: Breakage[] = [
	{
		name: "a note re-saved as Latin-1",
		explains: /not valid UTF-8.*Save the note as UTF-8/s,
		break: (h) => writeFileSync(join(h.vaultDir, VALKEY), Buffer.from(h.read(VALKEY), "latin1")),
		fix: (h) => writeFileSync(join(h.vaultDir, VALKEY), readFileSync(join(h.vaultDir, VALKEY)).toString("latin1"), "utf8"),
		resync: "full",
	},
	{
		name: "a note whose YAML broke",
		explains: /frontmatter YAML is broken.*fix it/s,
		break: (h) => h.write(VALKEY, h.read(VALKEY).replace("description:", "tags: [cache\ndescription:")),
		fix: (h) => h.write(VALKEY, h.read(VALKEY).replace("tags: [cache\n", "tags: [cache]\n")),
		resync: "note",
	},
];

async function vault(): Promise<SyncHarness> {
	const h = await openHarness();
	harnesses.push(h);
	h.write(VALKEY, person);
	h.write("Technologies/Redis.md", "---\nengrama_label: Technology\n---\nAn in-memory store.\n");
	await h.sync.fullSync();
	h.sync.writer.attach();
	return h;
}

describe.each(BREAKAGES)("an agent's write to $name", (breakage) => {
	it("answers with a warning that names the note, why and what to do", async () => {
		const h = await vault();
		const skills = createSkills(h.memory);
		// A note that can take the write: no warning.
		const fine = await skills.remember(agent, { label: "Technology", name: "Valkey", props: { version: "8" } });
		expect(fine.warnings).toEqual([]);
		await h.sync.idle();
		breakage.break(h);
		const remembered = await skills.remember(agent, { label: "Technology", name: "Valkey", props: { summary: "The agent's summary." } });
		const warning = remembered.warnings.find((w) => w.includes(VALKEY));
		expect(warning).toMatch(breakage.explains);
		expect(warning).toMatch(/keeps the write/);
		const related = await skills.relate(agent, { label: "Technology", name: "Valkey" }, "DEPENDS_ON", { label: "Technology", name: "Redis" });
		expect(related.warnings?.some((w) => w.includes(VALKEY) && breakage.explains.test(w))).toBe(true);
		await h.sync.idle();
	});

	it("keeps the write and its provenance through a sync of the broken note, and writes it in once the note is fixed", async () => {
		const h = await vault();
		const broken = () => readFileSync(join(h.vaultDir, VALKEY));
		breakage.break(h);
		const bytes = broken();
		const skills = createSkills(h.memory);
		await skills.remember(agent, { label: "Technology", name: "Valkey", props: { summary: "The agent's summary." } });
		await skills.relate(agent, { label: "Technology", name: "Valkey" }, "DEPENDS_ON", { label: "Technology", name: "Redis" });
		await h.sync.idle();
		expect(broken().equals(bytes)).toBe(true);

		// A sync that meets the broken note keeps the node and the agent's edge as the agent left them.
		const report = await h.sync.fullSync();
		expect(report.problems.some((p) => p.path === VALKEY)).toBe(true);
		const one = await h.sync.syncNote(VALKEY);
		expect(one.problems.find((p) => p.path === VALKEY && /still wait to be written/.test(p.problem))?.action).toMatch(/first sync of the fixed note/);
		const kept = await node(h.memory, "Technology", "Valkey");
		expect(kept.props).toMatchObject({ summary: "The agent's summary.", trust_level: 0.5, edited_by_agent: "claude-desktop", edited_in_session: "s-7" });
		const [edge] = await outEdges(h.memory, kept, "DEPENDS_ON");
		expect(edge?.to.key).toBe("Redis");
		expect(edge.edge.props).toMatchObject({ source: "mcp", source_agent: "claude-desktop", source_session: "s-7" });
		expect(broken().equals(bytes)).toBe(true);

		// Fixed: the next sync writes the owed edit and its provenance into the note.
		breakage.fix(h);
		if (breakage.resync === "full") await h.sync.fullSync();
		else await h.sync.syncNote(VALKEY);
		const text = h.read(VALKEY);
		expect(text).toMatch(/^summary: The agent's summary\.$/m);
		expect(text).toMatch(/^engrama_trust: 0\.5$/m);
		expect(text).toMatch(/^engrama_edited_by: claude-desktop$/m);
		expect(text).toMatch(/to: "\[\[Redis\]\]".*agent: claude-desktop.*session: s-7.*trust: 0\.5/);
		expect(text).toContain("Café-grade");
		const after = await node(h.memory, "Technology", "Valkey");
		expect(after.props).toMatchObject({ summary: "The agent's summary.", trust_level: 0.5, edited_by_agent: "claude-desktop" });
		expect(after.props.note_pending).toBeUndefined();

		// A rebuild from the vault alone keeps the agent's summary, relation and trust.
		const rebuilt = await h.reopen({ dbPath: join(h.dbPath, "..", "rebuilt.db") });
		harnesses.push(rebuilt);
		await rebuilt.sync.fullSync();
		const valkey = await node(rebuilt.memory, "Technology", "Valkey");
		expect(valkey.props).toMatchObject({ summary: "The agent's summary.", trust_level: 0.5, edited_by_agent: "claude-desktop", edited_in_session: "s-7" });
		const [relation] = await outEdges(rebuilt.memory, valkey, "DEPENDS_ON");
		expect(relation?.to.key).toBe("Redis");
		expect(relation.edge.props).toMatchObject({ source: "mcp", source_agent: "claude-desktop", source_session: "s-7", trust_level: 0.5 });
	});
});
