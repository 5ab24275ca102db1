import { cpSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Memory } from "../../../src/engine/memory";
import { VaultSync } from "../../../src/engine/sync/vault-sync";
import type { WriteContext } from "../../../src/engine/write/write-pipeline";
import { FolderVaultSource } from "../../../src/nodejs/folder-vault-source";
import { testBackends, type TestBackend } from "../../contracts/backends";
import { makeTempDir } from "../../helpers/temp-dir";
import { EXAMPLE_VAULT, exampleProfile, node, SCOPE } from "./sync-fixture";

// Provenance through the vault (issue 16, item 3): an agent's memory written out as a note and
// synced back stays the agent's, a person's note edited by an agent stays the person's with the
// edit recorded, and only the person's edit of the engrama_* keys in the note changes that.
// On every backend: the rules live in the engine, the props must survive each store.

/** A vault folder and a memory on one backend, synced by the engine's VaultSync. */
interface World {
	readonly vaultDir: string;
	readonly memory: Memory;
	readonly sync: VaultSync;
	read(path: string): string;
	write(path: string, text: string): void;
	/** The same vault over a fresh, empty memory on the same backend. */
	fresh(): Promise<World>;
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
	for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function world(backend: TestBackend, options: { from?: string; vaultDir?: string } = {}): Promise<World> {
	let vaultDir = options.vaultDir;
	if (!vaultDir) {
		const temp = makeTempDir("engrama-provenance-");
		cleanups.push(() => temp.cleanup());
		vaultDir = join(temp.path, "vault");
		mkdirSync(vaultDir, { recursive: true });
		if (options.from) cpSync(options.from, vaultDir, { recursive: true });
	}
	const opened = await backend.open({ profile: exampleProfile(), config: { orgId: SCOPE.orgId, userId: SCOPE.userId } });
	const memory = opened.memory;
	const sync = new VaultSync({ memory, source: new FolderVaultSource(vaultDir), scope: SCOPE, settings: { debounceMs: 40 } });
	cleanups.push(async () => {
		await sync.stop();
		await opened.close();
	});
	const dir = vaultDir;
	return {
		vaultDir: dir,
		memory,
		sync,
		read: (path) => readFileSync(join(dir, path), "utf8"),
		write(path, text) {
			mkdirSync(dirname(join(dir, path)), { recursive: true });
			writeFileSync(join(dir, path), text);
		},
		fresh: () => world(backend, { vaultDir: dir }),
	};
}

const agent: WriteContext = { scope: SCOPE, source: "mcp", agent: "claude-desktop", session: "s-1" };
const PROVENANCE = ["source", "source_agent", "source_session", "trust_level", "edited_by_source", "edited_by_agent", "edited_in_session"];

/** The provenance props a node holds (a null and a missing prop are the same: Neo4j stores no nulls). */
function provenance(props: Readonly<Record<string, unknown>>): Record<string, unknown> {
	return Object.fromEntries(PROVENANCE.filter((k) => props[k] !== undefined && props[k] !== null).map((k) => [k, props[k]]));
}

async function trustSignal(h: World, query: string, key: string): Promise<number | undefined> {
	const found = await h.memory.search(SCOPE, query, { limit: 10 });
	return found.results.find((r) => r.name === key)?.scores.trust;
}

describe.each(testBackends())("provenance through the vault on $name", (backend) => {
	it("an agent's remember, written out as a note and synced back, stays the agent's until the person removes the keys", async () => {
		const h = await world(backend, { from: EXAMPLE_VAULT });
		await h.sync.fullSync();
		h.sync.writer.attach();
		await h.memory.remember(agent, { label: "Technology", key: "Valkey", props: { description: "A key-value store forked from Redis." } });
		await h.sync.idle();
		const path = "Engrama/Technology/Valkey.md";
		const text = h.read(path);
		expect(text).toMatch(/^engrama_source: mcp$/m);
		expect(text).toMatch(/^engrama_agent: claude-desktop$/m);
		expect(text).toMatch(/^engrama_session: s-1$/m);
		expect(text).toMatch(/^engrama_trust: 0\.5$/m);
		const synced = await node(h.memory, "Technology", "Valkey");
		expect(synced.props.obsidian_path).toBe(path);
		expect(provenance(synced.props)).toEqual({ source: "mcp", source_agent: "claude-desktop", source_session: "s-1", trust_level: 0.5 });
		expect(await trustSignal(h, "Valkey key-value store", "Valkey")).toBe(0.5);

		// The person edits the body: still the agent's text as far as trust goes.
		h.write(path, `${text}\nUsed for the session cache.\n`);
		await h.sync.fullSync();
		const edited = await node(h.memory, "Technology", "Valkey");
		expect(edited.props.content_hash).not.toBe(synced.props.content_hash);
		expect(provenance(edited.props)).toEqual(provenance(synced.props));

		// A rename keeps it too.
		renameSync(join(h.vaultDir, path), join(h.vaultDir, "Engrama/Technology/Valkey cache.md"));
		await h.sync.fullSync();
		const renamed = await node(h.memory, "Technology", "Valkey");
		expect(renamed.props.obsidian_path).toBe("Engrama/Technology/Valkey cache.md");
		expect(provenance(renamed.props)).toEqual(provenance(synced.props));

		// Removing the keys is the person's vouching: the note is now theirs.
		const current = h.read("Engrama/Technology/Valkey cache.md");
		h.write("Engrama/Technology/Valkey cache.md", current.replace(/^engrama_(source|agent|session|trust):.*\n/gm, ""));
		await h.sync.fullSync();
		const vouched = await node(h.memory, "Technology", "Valkey");
		expect(provenance(vouched.props)).toEqual({ source: "sync", trust_level: 1 });
		expect(await trustSignal(h, "Valkey key-value store", "Valkey")).toBe(1);
	});

	it("an agent's remember on a person's note keeps the person's authorship, lowers trust and states the edit in the note", async () => {
		const h = await world(backend, { from: EXAMPLE_VAULT });
		await h.sync.fullSync();
		h.sync.writer.attach();
		const before = await node(h.memory, "Technology", "PostgreSQL");
		expect(provenance(before.props)).toEqual({ source: "sync", trust_level: 1 });
		await h.memory.remember({ ...agent, agent: "cursor", session: "s-9" }, { label: "Technology", key: "PostgreSQL", props: { version: "17" } });
		await h.sync.idle();
		const path = "Technologies/PostgreSQL.md";
		const text = h.read(path);
		expect(text).toContain('version: "17"');
		expect(text).not.toMatch(/^engrama_source:/m);
		expect(text).toMatch(/^engrama_trust: 0\.5$/m);
		expect(text).toMatch(/^engrama_edit_source: mcp$/m);
		expect(text).toMatch(/^engrama_edited_by: cursor$/m);
		expect(text).toMatch(/^engrama_edit_session: s-9$/m);
		const edited = await node(h.memory, "Technology", "PostgreSQL");
		const expected = { source: "sync", trust_level: 0.5, edited_by_source: "mcp", edited_by_agent: "cursor", edited_in_session: "s-9" };
		expect(provenance(edited.props)).toEqual(expected);
		expect(await trustSignal(h, "PostgreSQL relational database", "PostgreSQL")).toBe(0.5);

		// A later edit by another agent (no session) replaces the record of the earlier one; trust stays at the lowest.
		await h.memory.remember({ scope: SCOPE, source: "sdk", agent: "importer" }, { label: "Technology", key: "PostgreSQL", props: { version: "17.1" } });
		await h.sync.idle();
		expect(h.read(path)).toMatch(/^engrama_edit_source: sdk\nengrama_edited_by: importer\n/m);
		expect(h.read(path)).not.toMatch(/^engrama_edit_session:/m);
		expect(provenance((await node(h.memory, "Technology", "PostgreSQL")).props)).toEqual({ source: "sync", trust_level: 0.5, edited_by_source: "sdk", edited_by_agent: "importer" });
		await h.memory.remember({ ...agent, agent: "cursor", session: "s-9" }, { label: "Technology", key: "PostgreSQL", props: { version: "17" } });
		await h.sync.idle();
		expect(h.read(path)).toMatch(/^engrama_edit_session: s-9$/m);

		// The person's own edit of the text keeps the record; sync keeps the keys.
		h.write(path, h.read(path).replace("do a lot of the correctness work.", "do most of the correctness work."));
		await h.sync.fullSync();
		expect(provenance((await node(h.memory, "Technology", "PostgreSQL")).props)).toEqual(expected);
		expect(h.read(path)).toMatch(/^engrama_edited_by: cursor$/m);

		// The person removes the keys: they vouch for the edit.
		h.write(path, h.read(path).replace(/^engrama_(trust|edit_source|edited_by|edit_session):.*\n/gm, ""));
		await h.sync.fullSync();
		const vouched = await node(h.memory, "Technology", "PostgreSQL");
		expect(provenance(vouched.props)).toEqual({ source: "sync", trust_level: 1 });
		expect(vouched.props.version).toBe("17");
		// The history still says the agent changed the version.
		const history = await h.memory.graph.nodeHistory(SCOPE, vouched.id, { limit: 50 });
		expect(history.find((e) => e.prop === "version")).toMatchObject({ before: "16", after: "17", source: "mcp" });
	});

	it("keeps an agent's marks that never reached the note (nothing replicating): a person's edit does not launder them", async () => {
		const h = await world(backend, { from: EXAMPLE_VAULT });
		await h.sync.fullSync();
		// No writer attached: like `engrama serve` without --vault writing into the memory the plugin syncs.
		await h.memory.remember(agent, { label: "Technology", key: "Python", props: { summary: "Agent text." } });
		const path = "Technologies/Python.md";
		h.write(path, `${h.read(path)}\nA person's line.\n`);
		await h.sync.fullSync();
		const kept = await node(h.memory, "Technology", "Python");
		expect(provenance(kept.props)).toMatchObject({ trust_level: 0.5, edited_by_source: "mcp", edited_by_agent: "claude-desktop" });
		// The person vouches by stating full trust in the note.
		h.write(path, h.read(path).replace("type: Technology\n", "type: Technology\nengrama_trust: 1\n"));
		await h.sync.fullSync();
		expect(provenance((await node(h.memory, "Technology", "Python")).props)).toEqual({ source: "sync", trust_level: 1 });

		// Same for a note that does state its provenance: unchanged keys do not overrule a newer agent edit.
		const detach = h.sync.writer.attach();
		await h.memory.remember({ scope: SCOPE, source: "cli" }, { label: "Concept", key: "Vacuum" });
		await h.sync.idle();
		detach();
		const vacuum = "Engrama/Concept/Vacuum.md";
		expect(h.read(vacuum)).toMatch(/^engrama_source: cli\nengrama_trust: 1$/m);
		await h.memory.remember(agent, { label: "Concept", key: "Vacuum", props: { summary: "Agent text." } });
		h.write(vacuum, `${h.read(vacuum)}\nA person's line.\n`);
		await h.sync.fullSync();
		expect(provenance((await node(h.memory, "Concept", "Vacuum")).props)).toMatchObject({ source: "cli", trust_level: 0.5, edited_by_agent: "claude-desktop" });
	});

	it("a full rebuild from the vault alone (a fresh database) gives every node the same provenance", async () => {
		const h = await world(backend, { from: EXAMPLE_VAULT });
		await h.sync.fullSync();
		h.sync.writer.attach();
		await h.memory.remember(agent, { label: "Technology", key: "Valkey", props: { description: "A key-value store." } });
		await h.memory.remember({ scope: SCOPE, source: "sdk", agent: "importer" }, { label: "Concept", key: "Write-ahead log" });
		await h.memory.remember({ scope: SCOPE, source: "cli" }, { label: "Concept", key: "Vacuum" });
		await h.memory.remember({ ...agent, session: "s-2" }, { label: "Technology", key: "PostgreSQL", props: { version: "17" } });
		await h.sync.idle();
		expect(h.read("Engrama/Concept/Vacuum.md")).toMatch(/^engrama_source: cli\nengrama_trust: 1$/m);
		const fresh = await h.fresh();
		await fresh.sync.fullSync();
		const keys = [
			["Technology", "Valkey"],
			["Concept", "Write-ahead log"],
			["Concept", "Vacuum"],
			["Technology", "PostgreSQL"],
			["Technology", "Python"],
		] as const;
		for (const [label, key] of keys) {
			const a = provenance((await node(h.memory, label, key)).props);
			expect(provenance((await node(fresh.memory, label, key)).props), `${label} ${key}`).toEqual(a);
		}
		expect(provenance((await node(fresh.memory, "Concept", "Write-ahead log")).props)).toEqual({ source: "sdk", source_agent: "importer", trust_level: 0.8 });
		expect(provenance((await node(fresh.memory, "Technology", "PostgreSQL")).props)).toMatchObject({ source: "sync", trust_level: 0.5, edited_in_session: "s-2" });
	});

	it("an agent's relation on a person's note is the agent's, on its own frontmatter line and its edge, through a rebuild; the note keeps trust 1", async () => {
		const h = await world(backend, { from: EXAMPLE_VAULT });
		await h.sync.fullSync();
		h.sync.writer.attach();
		await h.memory.relate(agent, { label: "Technology", key: "PostgreSQL" }, "IN_DOMAIN", { label: "Domain", key: "Payments" });
		await h.sync.idle();
		const path = "Technologies/PostgreSQL.md";
		const text = h.read(path);
		// The relation's own line says who made it; the note's keys are untouched (the person's text stays theirs).
		expect(text).toContain('IN_DOMAIN: ["[[Web Development]]", {to: "[[Payments]]", source: mcp, agent: claude-desktop, session: s-1, trust: 0.5}]');
		expect(text).not.toMatch(/^engrama_(source|agent|session|trust|edit)/m);
		const live = await node(h.memory, "Technology", "PostgreSQL");
		expect(provenance(live.props)).toEqual({ source: "sync", trust_level: 1 });
		const edgeProvenance = async (memory: Memory, target: string) => {
			const from = await node(memory, "Technology", "PostgreSQL");
			const edge = (await memory.graph.edgesOf(SCOPE, from.id, "out")).find((e) => e.type === "IN_DOMAIN" && e.node.key === target);
			return provenance(edge?.edge.props ?? {});
		};
		const agents = { source: "mcp", source_agent: "claude-desktop", source_session: "s-1", trust_level: 0.5 };
		expect(await edgeProvenance(h.memory, "Payments")).toEqual(agents);
		expect(await edgeProvenance(h.memory, "Web Development")).toEqual({ source: "sync", trust_level: 1 });

		// Rebuilt from the vault alone: the edge is the agent's again, agent and session included, and the node the person's.
		const fresh = await h.fresh();
		await fresh.sync.fullSync();
		expect(await edgeProvenance(fresh.memory, "Payments")).toEqual(agents);
		expect(await edgeProvenance(fresh.memory, "Web Development")).toEqual({ source: "sync", trust_level: 1 });
		expect(provenance((await node(fresh.memory, "Technology", "PostgreSQL")).props)).toEqual({ source: "sync", trust_level: 1 });

		// The person vouches for the relation by stating full trust on its line.
		h.write(path, h.read(path).replace("trust: 0.5}", "trust: 1}"));
		await h.sync.fullSync();
		expect(await edgeProvenance(h.memory, "Payments")).toEqual({ ...agents, trust_level: 1 });
	});

	it("an agent's relation does not cost the person's note its place: it stays first for its own question", async () => {
		const h = await world(backend, { from: EXAMPLE_VAULT });
		await h.sync.fullSync();
		h.sync.writer.attach();
		// First by a narrow margin (0.5 % over a decision note): a trust term at 0.5 would drop it.
		const query = "Which relational database do I use?";
		const first = async () => (await h.memory.search(SCOPE, query, { limit: 5 })).results[0];
		expect((await first())?.name).toBe("PostgreSQL");
		await h.memory.relate(agent, { label: "Technology", key: "PostgreSQL" }, "IN_DOMAIN", { label: "Domain", key: "Payments" });
		await h.sync.idle();
		const top = await first();
		expect(top?.name).toBe("PostgreSQL");
		expect(top?.scores.trust).toBe(1);
	});

	it("reports provenance keys it cannot read, by path, and reads them safely", async () => {
		const h = await world(backend);
		h.write("Tools/Odd.md", "---\nengrama_label: Technology\nengrama_source: robot\nengrama_trust: lots\n---\n# Odd\n");
		const report = await h.sync.fullSync();
		const problems = report.problems.filter((p) => p.path === "Tools/Odd.md").map((p) => p.problem);
		expect(problems.join("\n")).toMatch(/engrama_source "robot" is not one of/);
		expect(problems.join("\n")).toMatch(/engrama_trust "lots" is not a number between 0 and 1/);
		expect(provenance((await node(h.memory, "Technology", "Odd")).props)).toEqual({ source: "sync", trust_level: 1 });
	});
});
