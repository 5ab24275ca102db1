import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TOOL_NAMES } from "../../src/mcp";
import { makeTempDir } from "../helpers/temp-dir";
import { call, connectClient, ok, startBridge, textOf, writeNote, type Bridge } from "./mcp-harness";

describe("MCP bridge: every tool through the SDK client over real HTTP", () => {
	let dir: ReturnType<typeof makeTempDir>;
	let vault: string;
	let outside: string;
	let bridge: Bridge;
	let client: Client;

	beforeAll(async () => {
		dir = makeTempDir("engrama-mcp-");
		vault = join(dir.path, "vault");
		outside = join(dir.path, "outside");
		mkdirSync(outside, { recursive: true });
		writeFileSync(join(outside, "secret.md"), "# Secret\n\nNot part of the vault.\n");
		writeNote(vault, "Projects/Billing Portal.md", "---\nengrama_label: Project\nrelations:\n  USES: [Python]\n---\n# Billing Portal\n\nInvoices for clients, built on [[Python]].\n");
		writeNote(vault, "Technologies/Python.md", "---\nengrama_label: Technology\n---\n# Python\n\nThe language.\n");
		writeNote(vault, "Daily/2026-01-05.md", "Met with Ana about the [[Billing Portal]] rollout.\n");
		writeNote(vault, ".obsidian/plugins/engrama/data.json.md", "token: should never be readable\n");
		symlinkSync(join(outside, "secret.md"), join(vault, "Leak.md"));
		// Gateway mode: the scope-header tests below play a gateway's tenants.
		bridge = await startBridge({ dir: dir.path, vault, allowTenantHeaders: true });
		client = await connectClient(bridge.url, bridge.token);
	});

	afterAll(async () => {
		await client?.close();
		await bridge?.close();
		dir?.cleanup();
	});

	it("lists the sixteen tools with the Python names, annotations, profile enums and output schemas", async () => {
		const { tools } = await client.listTools();
		expect(tools.map((t) => t.name).sort()).toEqual([...TOOL_NAMES].sort());
		for (const tool of tools) {
			expect(tool.description?.length ?? 0).toBeGreaterThan(80);
			expect(tool.annotations).toMatchObject({ openWorldHint: false });
			expect(typeof tool.annotations?.readOnlyHint).toBe("boolean");
			expect(typeof tool.annotations?.destructiveHint).toBe("boolean");
			expect(typeof tool.annotations?.idempotentHint).toBe("boolean");
			expect(tool.outputSchema?.type).toBe("object");
		}
		const byName = new Map(tools.map((t) => [t.name, t]));
		expect(byName.get("engrama_gdpr_forget")?.annotations?.destructiveHint).toBe(true);
		expect(byName.get("engrama_search")?.annotations?.readOnlyHint).toBe(true);
		expect(byName.get("engrama_remember")?.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: true });
		const relate = byName.get("engrama_relate")?.inputSchema as { properties: Record<string, { enum?: string[] }>; required: string[] };
		expect(relate.properties.from_label.enum).toEqual(expect.arrayContaining(["Project", "Technology", "Decision"]));
		expect(relate.properties.rel_type.enum).toEqual(expect.arrayContaining(["USES", "SOLVED_BY", "RELATED_TO"]));
		expect(relate.required.sort()).toEqual(["from_label", "from_name", "rel_type", "to_label", "to_name"]);
		const search = byName.get("engrama_search")?.inputSchema as { properties: Record<string, { maxLength?: number; maximum?: number }> };
		expect(search.properties.query.maxLength).toBe(500);
		expect(search.properties.limit.maximum).toBe(50);
	});

	it("engrama_status has exactly the seed's shape", async () => {
		const status = await ok<Record<string, Record<string, unknown>>>(client, "engrama_status");
		expect(Object.keys(status).sort()).toEqual(["admin_tools", "backend", "embedder", "search", "vault", "version"]);
		expect(status.version).toBe("test");
		expect(status.backend).toMatchObject({ name: "sqlite", ok: true });
		expect(typeof status.backend.node_count).toBe("number");
		// Notes only: the config folder and the symlink leading out are not part of the vault.
		expect(status.vault).toEqual({ configured: true, path: vault, note_count: 3 });
		expect(status.embedder).toMatchObject({ configured: true, provider: "hash", dimensions: 64 });
		expect(Object.keys(status.embedder).sort()).toEqual(["configured", "dimensions", "model", "provider"]);
		// No vector stored yet: what engrama_search would say now (the bridge's memory is still empty here).
		expect(status.search).toEqual({ mode: "rrf", degraded: true, reason: expect.stringMatching(/no vectors yet/) as string, degraded_cause: "no_vectors", channels: "fulltext_only" });
		expect((status.admin_tools as unknown as { name: string }[]).map((t) => t.name)).toEqual(["engrama_status", "engrama_reindex"]);
	});

	it("engrama_sync_vault previews with dry_run, then syncs; engrama_sync_note syncs one note", async () => {
		const dry = await ok<{ dry_run: boolean; counts: Record<string, number>; ids_written: string[] }>(client, "engrama_sync_vault", { dry_run: true });
		expect(dry.dry_run).toBe(true);
		expect(dry.counts.nodes_created).toBeGreaterThanOrEqual(3);
		expect([...dry.ids_written].sort()).toEqual(["Daily/2026-01-05.md", "Projects/Billing Portal.md", "Technologies/Python.md"]);
		expect(readFileSync(join(vault, "Projects/Billing Portal.md"), "utf8")).not.toContain("engrama_id");

		const real = await ok<{ dry_run: boolean; counts: Record<string, number> }>(client, "engrama_sync_vault", {});
		expect(real.dry_run).toBe(false);
		expect(real.counts.nodes_created).toBe(dry.counts.nodes_created);
		expect(readFileSync(join(vault, "Projects/Billing Portal.md"), "utf8")).toMatch(/engrama_id: [0-9a-f-]{36}/);

		writeNote(vault, "Projects/Billing Portal.md", readFileSync(join(vault, "Projects/Billing Portal.md"), "utf8").replace("Invoices for clients", "Invoices and refunds for clients"));
		const preview = await ok<{ would: { label: string; name: string; relations: unknown[] } }>(client, "engrama_sync_note", { path: "Projects/Billing Portal.md", dry_run: true });
		expect(preview.would).toMatchObject({ label: "Project", name: "Billing Portal", relations: [{ type: "USES", target: "Python" }] });
		const note = await ok<{ counts: Record<string, number> }>(client, "engrama_sync_note", { path: "Projects/Billing Portal.md" });
		expect(note.counts.nodes_updated).toBe(1);
		const found = await ok<{ results: { name: string }[] }>(client, "engrama_search", { query: "refunds" });
		expect(found.results[0]?.name).toBe("Billing Portal");
	});

	it("engrama_search gives a body match's note and section; engrama_read_note reads that section within a bound", async () => {
		writeNote(
			vault,
			"Guides/Deploy.md",
			"# Deploy\n\nHow we ship.\n\n## Rollback\nIf the canary fails, run the rollback playbook and page the on-call.\n\n## Monitoring\nDashboards live in Grafana.\n",
		);
		await ok(client, "engrama_sync_note", { path: "Guides/Deploy.md" });
		const found = await ok<{ results: { name: string; path?: string; passages?: { heading: string; line: number; snippet: string }[] }[] }>(client, "engrama_search", {
			query: "canary playbook",
		});
		const hit = found.results[0];
		expect(hit).toMatchObject({ name: "Deploy", path: "Guides/Deploy.md" });
		expect(hit.passages?.[0]).toMatchObject({ heading: "Deploy > Rollback" });
		expect(hit.passages?.[0].snippet).toContain("**canary**");
		const lines = readFileSync(join(vault, "Guides/Deploy.md"), "utf8").split("\n");
		expect(lines[(hit.passages?.[0].line ?? 0) - 1]).toBe("## Rollback");

		const section = await ok<{ heading: string; line: number; text: string; truncated: boolean }>(client, "engrama_read_note", {
			path: hit.path,
			heading: hit.passages?.[0].heading,
		});
		expect(section).toMatchObject({ heading: "Deploy > Rollback", truncated: false });
		expect(section.text).toBe("## Rollback\nIf the canary fails, run the rollback playbook and page the on-call.");
		const short = await ok<{ text: string; truncated: boolean }>(client, "engrama_read_note", { path: "Guides/Deploy.md", line: 1, max_chars: 200 });
		expect(short.text.startsWith("# Deploy")).toBe(true);
		expect(short.text).toContain("Grafana");
		const missing = await call(client, "engrama_read_note", { path: "Guides/Deploy.md", heading: "Nope" });
		expect(missing.isError).toBe(true);
		expect(textOf(missing)).toMatch(/no heading "Nope"/);
	});

	it("sync, ingest and insight tools refuse paths outside the vault (.., absolute, symlinks, hidden folders)", async () => {
		const attempts: [string, Record<string, unknown>, RegExp][] = [
			["engrama_sync_note", { path: "../outside/secret.md" }, /leaves the vault/],
			["engrama_sync_note", { path: join(outside, "secret.md") }, /absolute/],
			["engrama_sync_note", { path: "C:\\Windows\\x.md" }, /absolute/],
			["engrama_sync_note", { path: "Leak.md" }, /symbolic link/],
			["engrama_ingest", { source: "Projects/../../outside/secret.md" }, /leaves the vault/],
			["engrama_ingest", { source: "Leak.md" }, /symbolic link/],
			["engrama_ingest", { source: ".obsidian/plugins/engrama/data.json.md" }, /hidden folder/],
			["engrama_ingest", { source: "Projects/notes.txt" }, /not a note/],
			["engrama_sync_vault", { folder: "../outside" }, /leaves the vault/],
			["engrama_read_note", { path: "../outside/secret.md" }, /leaves the vault/],
			["engrama_read_note", { path: join(outside, "secret.md") }, /absolute/],
			["engrama_read_note", { path: "Leak.md" }, /symbolic link/],
			["engrama_read_note", { path: ".obsidian/plugins/engrama/data.json.md" }, /hidden folder/],
		];
		for (const [tool, args, message] of attempts) {
			const result = await call(client, tool, args);
			expect(result.isError, `${tool} ${JSON.stringify(args)}`).toBe(true);
			expect(textOf(result)).toMatch(message);
		}
		expect(readFileSync(join(outside, "secret.md"), "utf8")).not.toContain("engrama_id");
	});

	it("engrama_sync_note and engrama_sync_vault report a note with an alias bomb by its path instead of failing", async () => {
		writeNote(vault, "Inbox/Bomb.md", `---\nd: &d x\nitems: [${Array(101).fill("*d").join(", ")}]\n---\nBody\n`);
		try {
			type Problems = { problems: { path: string; severity: string; problem: string }[] };
			const bomb = { path: "Inbox/Bomb.md", severity: "error", problem: expect.stringMatching(/aliases \(\*name\) too often/) as unknown };
			const preview = await ok<Problems>(client, "engrama_sync_note", { path: "Inbox/Bomb.md", dry_run: true });
			expect(preview.problems).toEqual([expect.objectContaining(bomb)]);
			const note = await ok<Problems>(client, "engrama_sync_note", { path: "Inbox/Bomb.md" });
			expect(note.problems).toEqual([expect.objectContaining(bomb)]);
			const vaultSync = await ok<Problems>(client, "engrama_sync_vault", { dry_run: true });
			expect(vaultSync.problems.filter((p) => p.path === "Inbox/Bomb.md")).toEqual([expect.objectContaining(bomb)]);
		} finally {
			rmSync(join(vault, "Inbox"), { recursive: true, force: true });
		}
	});

	it("remember, relate, search and context work together", async () => {
		const made = await ok<{ created: boolean; node: { label: string; name: string; node_id: string }; degree: number; relations: { outcome: string }[] }>(
			client,
			"engrama_remember",
			{
				label: "Decision",
				properties: { title: "Use SQLite for local memory", summary: "One file with FTS5 and vectors.", tags: ["storage"] },
				relations: { USES: ["SQLite"] },
			},
		);
		expect(made).toMatchObject({ created: true, node: { label: "Decision", name: "Use SQLite for local memory" }, degree: 1 });
		expect(made.relations[0]).toMatchObject({ outcome: "stubbed" });

		const again = await ok<{ created: boolean; node: { node_id: string } }>(client, "engrama_remember", {
			label: "Decision",
			properties: { name: "Use SQLite for local memory", details: "WAL mode." },
		});
		expect(again).toMatchObject({ created: false, node: { node_id: made.node.node_id } });

		const related = await ok(client, "engrama_relate", { from_name: "Billing Portal", from_label: "Project", rel_type: "INFORMED_BY", to_name: "Use SQLite for local memory", to_label: "Decision" });
		expect(related).toMatchObject({ created: true, type: "INFORMED_BY", from: { name: "Billing Portal" }, to: { name: "Use SQLite for local memory" } });
		const twice = await ok(client, "engrama_relate", { from_name: "Billing Portal", from_label: "Project", rel_type: "INFORMED_BY", to_name: "Use SQLite for local memory", to_label: "Decision" });
		expect(twice).toMatchObject({ created: false });

		const context = await ok<{ node: { name: string; props: Record<string, unknown> }; neighbours: { name: string }[]; relations: { type: string; direction: string }[] }>(
			client,
			"engrama_context",
			{ label: "Decision", name: "Use SQLite for local memory", hops: 1 },
		);
		expect(context.node.props).toMatchObject({ summary: "One file with FTS5 and vectors.", details: "WAL mode." });
		expect(context.neighbours.map((n) => n.name).sort()).toEqual(["Billing Portal", "SQLite"]);
		expect(context.relations).toEqual(expect.arrayContaining([expect.objectContaining({ type: "INFORMED_BY", direction: "in" })]));

		const search = await ok<{ results: { name: string; label: string; summary: string }[]; degraded: boolean }>(client, "engrama_search", { query: "FTS5 vectors", limit: 5 });
		expect(search.degraded).toBe(false);
		expect(search.results[0]).toMatchObject({ name: "Use SQLite for local memory", label: "Decision", summary: "One file with FTS5 and vectors." });
		const narrowed = await ok<{ results: { label: string }[] }>(client, "engrama_search", { query: "FTS5 vectors", labels: ["Project"] });
		expect(narrowed.results.length).toBeGreaterThan(0);
		expect(narrowed.results.every((r) => r.label === "Project")).toBe(true);
	});

	it("answers mistakes with isError results that say what to change", async () => {
		const cases: [string, Record<string, unknown>, RegExp][] = [
			["engrama_remember", { label: "Spaceship", properties: { name: "X" } }, /Label "Spaceship" is not in profile base\. Use one of: .*Project/],
			["engrama_remember", { label: "Project", properties: { summary: "no name" } }, /must include "name"/],
			["engrama_remember", { label: "Project", properties: { name: "!!!" } }, /no letters or digits/],
			["engrama_relate", { from_name: "Billing Portal", from_label: "Project", rel_type: "LOVES", to_name: "Python", to_label: "Technology" }, /Relation type "LOVES" is not in profile/],
			["engrama_relate", { from_name: "Billing Portal", from_label: "Project", rel_type: "SOLVED_BY", to_name: "Python", to_label: "Technology" }, /not allowed/],
			["engrama_relate", { from_name: "Nope", from_label: "Project", rel_type: "USES", to_name: "Python", to_label: "Technology" }, /Nope/],
			["engrama_context", { label: "Project", name: "Nowhere" }, /No Project "Nowhere"/],
			["engrama_search", { query: "" }, /query must not be empty/],
			["engrama_search", { query: "x".repeat(501) }, /longer than 500/],
			["engrama_reindex", { mode: "fix" }, /mode must be 'detect', 'classify' or 'apply'/],
			["engrama_context", { label: "Project", name: "Billing Portal", hops: 5 }, /hops must be a whole number from 1 to 3\./],
			["engrama_search", { query: "billing", limit: "ten" }, /limit must be a whole number from 1 to 50, not "ten"\./],
			["engrama_surface_insights", { limit: 2.5 }, /limit must be a whole number from 1 to 100\./],
			["engrama_reindex", { mode: "detect", limit: 0 }, /limit must be a whole number from 1 to 1000\./],
			["engrama_remember", { label: "Project" }, /properties is required: an object with name/],
			["engrama_remember", { label: "Project", properties: "Billing" }, /properties must be an object of property name/],
			["engrama_remember", { label: "Project", properties: { name: "Long key", ["k".repeat(65)]: 1 } }, /Property names are at most 64 characters/],
			["engrama_sync_note", { path: "../x.md" }, /leaves the vault \(it contains "\.\."\)\. Give a path inside the vault/],
			["engrama_gdpr_forget", { mode: "everything" }, /mode must be 'dry-run'/],
		];
		for (const [tool, args, message] of cases) {
			const result = await call(client, tool, args);
			expect(result.isError, `${tool} ${JSON.stringify(args).slice(0, 80)}`).toBe(true);
			expect(textOf(result)).toMatch(message);
		}
	});

	it("engrama_ingest returns text and notes with guidance and dedup hints", async () => {
		const text = await ok<{ kind: string; content: string; dedup_hints: { name: string }[]; guidance: { instructions: string[] }; context_hint: string }>(
			client,
			"engrama_ingest",
			{ source: "We moved the Billing Portal to Python 3.12 last week.", source_type: "text", context_hint: "billing" },
		);
		expect(text.kind).toBe("text");
		expect(text.context_hint).toBe("billing");
		expect(text.guidance.instructions.length).toBeGreaterThan(2);
		expect(text.dedup_hints.map((h) => h.name)).toContain("Billing Portal");
		const note = await ok<{ source: string; content: string }>(client, "engrama_ingest", { source: "Daily/2026-01-05.md" });
		expect(note.source).toBe("Daily/2026-01-05.md");
		expect(note.content).toContain("Met with Ana");
		// The content itself without source_type (the description allows it): the error says which source_type to pass.
		const content = await call(client, "engrama_ingest", { source: "今天和王伟讨论了数据库迁移，决定用 SQLite 代替 MySQL。" });
		expect(content.isError).toBe(true);
		expect(textOf(content)).toMatch(/not a note.*source_type 'text'/);
		const missing = await call(client, "engrama_ingest", { source: "Daily/none.md" });
		expect(missing.isError).toBe(true);
		expect(textOf(missing)).toMatch(/No note "Daily\/none.md"/);
	});

	it("engrama_reindex detects and applies within the caller's scope", async () => {
		const detect = await ok<{ mode: string; dry_run: boolean; scanned: number; to_embed: number }>(client, "engrama_reindex", { mode: "detect" });
		expect(detect).toMatchObject({ mode: "detect", dry_run: true });
		expect(detect.scanned).toBeGreaterThan(3);
		const apply = await ok<{ dry_run: boolean; embedded: number; to_embed: number }>(client, "engrama_reindex", { mode: "apply", dry_run: false });
		expect(apply.dry_run).toBe(false);
		expect(apply.embedded).toBe(apply.to_embed);
	});

	it("reflect proposes Insights; surface, approve/dismiss and write an approved one into a note", async () => {
		// Three projects on the same technology and concept: patterns for the detectors.
		for (const name of ["Invoice Service", "Refund Worker"]) {
			await ok(client, "engrama_remember", { label: "Project", properties: { name, summary: "Billing work." }, relations: { USES: ["Python"], APPLIES: ["Idempotency"] } });
		}
		await ok(client, "engrama_relate", { from_name: "Billing Portal", from_label: "Project", rel_type: "APPLIES", to_name: "Idempotency", to_label: "Concept" });
		const report = await ok<{ created: number; detectors: { detector: string; ran: boolean }[]; insights: { title: string }[] }>(client, "engrama_reflect");
		expect(report.detectors).toHaveLength(9);
		expect(report.insights.length).toBeGreaterThan(1);
		const pending = await ok<{ insights: { title: string; status: string; about: unknown[] }[] }>(client, "engrama_surface_insights", { limit: 50 });
		expect(pending.insights.map((i) => i.title).sort()).toEqual(report.insights.map((i) => i.title).sort());
		const [first, second] = pending.insights;
		const hinted = await ok<{ proactive_hint?: string }>(client, "engrama_search", { query: "Idempotency" });
		expect(hinted.proactive_hint).toMatch(/pending Insight(s relate| relates) to this search/);

		const notYet = await call(client, "engrama_write_insight_to_vault", { title: first.title, target_note: "Projects/Billing Portal.md" });
		expect(notYet.isError).toBe(true);
		expect(textOf(notYet)).toMatch(/only approved Insights are written/);

		const approved = await ok<{ insight: { status: string }; previous_status: string; changed: boolean }>(client, "engrama_approve_insight", { title: first.title, reason: "useful" });
		expect(approved).toMatchObject({ insight: { status: "approved" }, previous_status: "pending", changed: true });
		await ok(client, "engrama_approve_insight", { title: second.title, action: "dismiss" });

		const escaped = await call(client, "engrama_write_insight_to_vault", { title: first.title, target_note: "../outside/secret.md" });
		expect(escaped.isError).toBe(true);
		expect(textOf(escaped)).toMatch(/leaves the vault/);
		// Without target_note the new note goes to the Insights folder: a symlink there leads out too.
		mkdirSync(join(vault, "Engrama"), { recursive: true });
		symlinkSync(outside, join(vault, "Engrama", "Insights"));
		const viaFolder = await call(client, "engrama_write_insight_to_vault", { title: first.title });
		unlinkSync(join(vault, "Engrama", "Insights"));
		expect(viaFolder.isError).toBe(true);
		expect(textOf(viaFolder)).toMatch(/Insights folder "Engrama\/Insights" leads outside the vault through a symbolic link/);
		expect(readdirSync(outside)).toEqual(["secret.md"]);
		const written = await ok<{ path: string; created: boolean; written: boolean }>(client, "engrama_write_insight_to_vault", { title: first.title, target_note: "Projects/Billing Portal.md" });
		expect(written).toMatchObject({ path: "Projects/Billing Portal.md", created: false, written: true });
		expect(readFileSync(join(vault, "Projects/Billing Portal.md"), "utf8")).toContain(`## Insight (`);
		const twice = await ok<{ written: boolean }>(client, "engrama_write_insight_to_vault", { title: first.title, target_note: "Projects/Billing Portal" });
		expect(twice.written).toBe(false);

		const byTitle = await ok<{ insights: unknown[]; note: string }>(client, "engrama_surface_insights", { title: first.title });
		expect(byTitle.insights).toEqual([]);
		expect(byTitle.note).toMatch(/approved, not pending/);
		const again = await ok<{ insights: { title: string }[] }>(client, "engrama_reflect");
		expect(again.insights.map((i) => i.title)).not.toContain(first.title);
		expect(again.insights.map((i) => i.title)).not.toContain(second.title);
		const unknown = await call(client, "engrama_approve_insight", { title: "No such insight" });
		expect(unknown.isError).toBe(true);
		expect(textOf(unknown)).toMatch(/No Insight is titled "No such insight"/);
	});

	it("scope headers: both set a tenant; exactly one reads nothing and refuses writes", async () => {
		const tenant = await connectClient(bridge.url, bridge.token, { "X-Engrama-Org-Id": "acme", "X-Engrama-User-Id": "bob" });
		const partial = await connectClient(bridge.url, bridge.token, { "X-Engrama-Org-Id": "acme" });
		try {
			await ok(tenant, "engrama_remember", { label: "Project", properties: { name: "Acme Secret Project", summary: "Only for bob." } });
			expect((await ok<{ results: { name: string }[] }>(tenant, "engrama_search", { query: "Acme Secret" })).results[0]?.name).toBe("Acme Secret Project");
			const names = async (c: Client, query: string) => (await ok<{ results: { name: string }[] }>(c, "engrama_search", { query })).results.map((r) => r.name);
			expect(await names(client, "Acme Secret")).not.toContain("Acme Secret Project");
			expect(await names(tenant, "Billing Portal")).toEqual(["Acme Secret Project"]);

			expect((await ok<{ results: unknown[] }>(partial, "engrama_search", { query: "Acme Secret" })).results).toEqual([]);
			expect((await ok<{ results: unknown[] }>(partial, "engrama_search", { query: "Billing Portal" })).results).toEqual([]);
			const context = await call(partial, "engrama_context", { label: "Project", name: "Billing Portal" });
			expect(context.isError).toBe(true);
			const write = await call(partial, "engrama_remember", { label: "Project", properties: { name: "Half scoped" } });
			expect(write.isError).toBe(true);
			expect(textOf(write)).toMatch(/Only X-Engrama-Org-Id was sent\. Send both/);
			const relate = await call(partial, "engrama_relate", { from_name: "Billing Portal", from_label: "Project", rel_type: "USES", to_name: "Python", to_label: "Technology" });
			expect(relate.isError).toBe(true);
			expect((await call(partial, "engrama_gdpr_forget", { mode: "apply" })).isError).toBe(true);
			// The vault is the standalone person's: another tenant cannot sync it.
			const sync = await call(tenant, "engrama_sync_vault", { dry_run: true });
			expect(sync.isError, textOf(sync)).toBe(true);
			expect(textOf(sync)).toMatch(/without X-Engrama-Org-Id/);
			// Graph → vault replication writes the standalone person's relations into notes, never a tenant's.
			for (const c of [client, tenant]) {
				const name = c === client ? "Standalone Side Project" : "Acme Secret Project";
				await ok(c, "engrama_remember", { label: "Project", properties: { name, summary: "Side work." } });
				await ok(c, "engrama_remember", { label: "Technology", properties: { name: "Rust", summary: "A language." } });
				await ok(c, "engrama_relate", { from_name: name, from_label: "Project", rel_type: "USES", to_name: "Rust", to_label: "Technology" });
			}
			await bridge.node.services.sync?.idle();
			expect(readFileSync(join(vault, "Engrama", "Project", "Standalone Side Project.md"), "utf8")).toMatch(/Rust/);
			expect(existsSync(join(vault, "Engrama", "Project", "Acme Secret Project.md"))).toBe(false);
		} finally {
			await tenant.close();
			await partial.close();
		}
	});

	it("engrama_gdpr_forget reports, then erases only the caller's own memory", async () => {
		const tenant = await connectClient(bridge.url, bridge.token, { "X-Engrama-Org-Id": "acme", "X-Engrama-User-Id": "bob" });
		try {
			const dry = await ok<{ mode: string; scope: object; counts: { nodes: number } }>(tenant, "engrama_gdpr_forget", {});
			expect(dry).toMatchObject({ mode: "dry-run", scope: { org_id: "acme", user_id: "bob" }, counts: { nodes: 2, edges: 1 } });
			expect((await ok<{ results: { name: string }[] }>(tenant, "engrama_search", { query: "Acme Secret" })).results[0]?.name).toBe("Acme Secret Project");
			const applied = await ok<{ mode: string; counts: { nodes: number } }>(tenant, "engrama_gdpr_forget", { mode: "apply" });
			expect(applied).toMatchObject({ mode: "apply", counts: { nodes: 2, edges: 1 } });
			expect((await ok<{ results: unknown[] }>(tenant, "engrama_search", { query: "Acme Secret" })).results).toEqual([]);
			const standalone = await ok<{ results: { name: string }[] }>(client, "engrama_search", { query: "Billing Portal" });
			// The standalone's memory is untouched, and the node named by the query comes first (before the
			// daily note whose section mentions it).
			expect(standalone.results[0]?.name).toBe("Billing Portal");
		} finally {
			await tenant.close();
		}
	});
});

describe("engrama_status with the subsystems off", () => {
	it("leaves their fields out (never null): no vault path or note count, no embedder provider, fulltext search", async () => {
		const dir = makeTempDir("engrama-mcp-status-");
		const bridge = await startBridge({ dir: dir.path, embedder: null });
		const client = await connectClient(bridge.url, bridge.token);
		try {
			const status = await ok<Record<string, unknown>>(client, "engrama_status");
			expect(Object.keys(status).sort()).toEqual(["admin_tools", "backend", "embedder", "search", "vault", "version"]);
			expect(status.backend).toEqual({ name: "sqlite", ok: true, node_count: 0 });
			expect(status.vault).toEqual({ configured: false });
			expect(status.embedder).toEqual({ configured: false });
			// What engrama_search then says: the same mode, degraded, reason and cause.
			const search = await ok<Record<string, unknown>>(client, "engrama_search", { query: "anything" });
			expect(status.search).toEqual({ mode: search.mode, degraded: true, reason: search.reason, degraded_cause: "no_embedder", channels: "fulltext_only" });
			expect(search).toMatchObject({ mode: "rrf", degraded: true, degraded_cause: "no_embedder" });
		} finally {
			await client.close();
			await bridge.close();
			dir.cleanup();
		}
	});
});
