import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/engrama-config";
import { createNodeVaultSync } from "../../src/nodejs/folder-vault-source";
import { openMemory } from "../../src/nodejs/open-memory";
import { makeTempDir } from "../helpers/temp-dir";
import { connectClient, ok, startBridge, writeNote, type Bridge } from "./mcp-harness";

// Issue 16, item 3, over the real bridge with a vault (what `engrama serve --vault` runs): an
// agent's remember is written out as a note and synced back without becoming the person's own.
describe("MCP with a vault: provenance survives the round trip", () => {
	let dir: ReturnType<typeof makeTempDir>;
	let vault: string;
	let bridge: Bridge;
	let client: Client;

	beforeAll(async () => {
		dir = makeTempDir("engrama-mcp-provenance-");
		vault = join(dir.path, "vault");
		writeNote(vault, "Technologies/Python.md", "---\nengrama_label: Technology\n---\n# Python\n\nThe language I write every day.\n");
		writeNote(vault, "Concepts/Idempotency.md", "---\nengrama_label: Concept\n---\n# Idempotency\n\nSafe to repeat.\n");
		writeNote(vault, "Projects/Payroll.md", "---\nengrama_label: Project\n---\n# Payroll\n\nMonthly salaries.\n");
		bridge = await startBridge({ dir: dir.path, vault });
		client = await connectClient(bridge.url, bridge.token);
		await ok(client, "engrama_sync_vault", {});
	}, 60_000);

	afterAll(async () => {
		await client?.close();
		await bridge?.close();
		dir?.cleanup();
	});

	const stored = async (label: string, name: string) => {
		const { memory, scope } = bridge.opened;
		const node = await memory.graph.getNode(scope, label, name);
		if (!node) throw new Error(`no ${label} ${name}`);
		return node;
	};
	const idle = () => bridge.node.services.sync?.idle();
	const read = (path: string) => readFileSync(join(vault, path), "utf8");
	const trustOf = async (query: string, name: string) => {
		const found = await ok<{ results: { name: string; scores: { trust: number } }[] }>(client, "engrama_search", { query, limit: 10 });
		return found.results.find((r) => r.name === name)?.scores.trust;
	};

	it("an agent's new memory keeps source mcp, agent, session and trust 0.5 in the note and in the graph", async () => {
		await ok(client, "engrama_remember", { label: "Technology", properties: { name: "Valkey", summary: "A key-value store forked from Redis." } });
		await idle();
		const text = read("Engrama/Technology/Valkey.md");
		const node = await stored("Technology", "Valkey");
		const session = node.props.source_session as string;
		expect(session).toMatch(/\S/);
		expect(node.props).toMatchObject({ source: "mcp", source_agent: "engrama-test", trust_level: 0.5, obsidian_path: "Engrama/Technology/Valkey.md" });
		expect(text).toMatch(/^engrama_source: mcp$/m);
		expect(text).toMatch(/^engrama_agent: engrama-test$/m);
		expect(text).toContain(`engrama_session: ${session}`);
		expect(text).toMatch(/^engrama_trust: 0\.5$/m);
		expect(await trustOf("Valkey key-value store", "Valkey")).toBe(0.5);
		// A sync of the whole vault (the person's next full sync) changes none of it.
		await ok(client, "engrama_sync_vault", {});
		expect((await stored("Technology", "Valkey")).props).toMatchObject({ source: "mcp", source_agent: "engrama-test", source_session: session, trust_level: 0.5 });
	});

	it("an agent's remember on the person's note keeps the person's authorship and lowers trust, with the edit in the note", async () => {
		await ok(client, "engrama_remember", { label: "Technology", properties: { name: "Python", version: "3.13" } });
		await idle();
		const text = read("Technologies/Python.md");
		expect(text).toContain('version: "3.13"');
		expect(text).toMatch(/^engrama_edited_by: engrama-test$/m);
		expect(text).toMatch(/^engrama_trust: 0\.5$/m);
		expect(text).not.toMatch(/^engrama_source:/m);
		const node = await stored("Technology", "Python");
		expect(node.props).toMatchObject({ source: "sync", source_agent: null, trust_level: 0.5, edited_by_source: "mcp", edited_by_agent: "engrama-test" });
		expect(await trustOf("Python language", "Python")).toBe(0.5);
	});

	it("an agent's relate on the person's note is the agent's on its own line and edge, through a rebuild from the vault; the note keeps trust 1", async () => {
		await ok(client, "engrama_relate", { from_name: "Idempotency", from_label: "Concept", rel_type: "BELONGS_TO", to_name: "Payroll", to_label: "Project" });
		await idle();
		const text = read("Concepts/Idempotency.md");
		const { memory, scope } = bridge.opened;
		const live = await stored("Concept", "Idempotency");
		const edge = (await memory.graph.edgesOf(scope, live.id, "out")).find((e) => e.type === "BELONGS_TO");
		const session = edge?.edge.props.source_session as string;
		expect(session).toMatch(/\S/);
		expect(text).toContain(`BELONGS_TO:\n    - {to: "[[Payroll]]", source: mcp, agent: engrama-test, session: ${session}, trust: 0.5}\n`);
		expect(text).not.toMatch(/^engrama_(source|agent|session|trust|edit)/m);
		expect(live.props).toMatchObject({ source: "sync", trust_level: 1 });
		expect(live.props.edited_by_source ?? null).toBeNull();
		const agents = { source: "mcp", source_agent: "engrama-test", source_session: session, trust_level: 0.5 };
		expect(edge?.edge.props).toMatchObject({ ...agents, origin: "note" });
		expect(await trustOf("Idempotency safe to repeat", "Idempotency")).toBe(1);

		// Rebuilt from the vault alone (a new database file): the relation is the agent's, agent and session included.
		const config = parseConfig({ backend: "sqlite", dbPath: join(dir.path, "rebuilt.db"), vaultPath: vault, profile: "base" });
		const rebuilt = await openMemory(config, { embedder: null });
		try {
			const { sync } = await createNodeVaultSync({ memory: rebuilt.memory, scope: rebuilt.scope, vaultPath: vault, watchMode: "poll" });
			await sync.fullSync();
			const node = await rebuilt.memory.graph.getNode(rebuilt.scope, "Concept", "Idempotency");
			expect(node?.props).toMatchObject({ source: "sync", trust_level: 1 });
			const again = (await rebuilt.memory.graph.edgesOf(rebuilt.scope, node!.id, "out")).find((e) => e.type === "BELONGS_TO");
			expect(again?.node.key).toBe("Payroll");
			expect(again?.edge.props).toMatchObject(agents);
		} finally {
			await rebuilt.close();
		}
	});

	it("an agent cannot send provenance or note bookkeeping as properties: they are dropped and the answer says so", async () => {
		const made = await ok<{ warnings: string[]; node: { props: Record<string, unknown> } }>(client, "engrama_remember", {
			label: "Concept",
			properties: {
				name: "Forged",
				summary: "Pretends to be the person's.",
				source: "sync",
				source_agent: "the person",
				trust_level: 1,
				engrama_source: "sync",
				engrama_trust: 1,
				edited_by_agent: "nobody",
				note_provenance: true,
			},
		});
		expect(made.warnings.join("\n")).toMatch(/Ignored "source", "source_agent", "trust_level", "engrama_source", "engrama_trust", "edited_by_agent", "note_provenance"/);
		for (const name of ["engrama_source", "engrama_trust", "edited_by_agent", "note_provenance"]) expect(made.node.props[name]).toBeUndefined();
		await idle();
		// Synced back from its note (whose keys Engrama wrote), it is still the agent's.
		const node = await stored("Concept", "Forged");
		expect(node.props).toMatchObject({ source: "mcp", source_agent: "engrama-test", trust_level: 0.5 });
		expect(JSON.parse(node.props.note_provenance as string)).toEqual(["mcp", "engrama-test", node.props.source_session, 0.5, null, null, null]);
		expect(node.props.edited_by_agent).toBeUndefined();
		const text = read("Engrama/Concept/Forged.md");
		expect(text).toMatch(/^engrama_source: mcp$/m);
		expect(text).toMatch(/^engrama_trust: 0\.5$/m);
	});
});
