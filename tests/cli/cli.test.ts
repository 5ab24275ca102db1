import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/run-cli";
import { makeTempDir } from "../helpers/temp-dir";

describe("engrama command line", { timeout: 120_000 }, () => {
	let dir: ReturnType<typeof makeTempDir>;
	let db: string;
	const cli = (...args: string[]) => runCli(["--db", db, "--json", ...args]);

	beforeEach(() => {
		dir = makeTempDir("engrama-cli-");
		db = join(dir.path, "memory.db");
	});
	afterEach(() => dir.cleanup());

	it("prints help", () => {
		const result = runCli(["--help"]);
		expect(result.status).toBe(0);
		expect(result.stdout).toMatch(/remember/);
		expect(result.stdout).toMatch(/--json/);
	});

	it("remembers, relates, gets, searches, walks context and forgets with stable JSON", () => {
		const created = cli("remember", "--label", "project", "--name", "Billing Portal", "--props", '{"description":"Invoices for clients"}');
		expect(created.status).toBe(0);
		const node = created.json<{ created: boolean; node: Record<string, unknown> }>();
		expect(node.created).toBe(true);
		expect(Object.keys(node.node).sort()).toEqual(["created_at", "key_field", "label", "name", "node_id", "props", "status", "updated_at"]);
		expect(node.node).toMatchObject({ label: "Project", name: "Billing Portal", status: "active" });

		expect(cli("remember", "--label", "Technology", "--name", "Python").status).toBe(0);
		const related = cli("relate", "Project", "Billing Portal", "uses", "Technology", "Python");
		expect(related.json()).toMatchObject({ created: true, type: "USES", from: { name: "Billing Portal" }, to: { name: "Python" } });

		const got = cli("get", "--label", "Project", "--name", "Billing Portal");
		expect(got.json<{ node: { node_id: string } }>().node.node_id).toBe(node.node.node_id);

		const search = cli("search", "invoices").json<{ results: { name: string; label: string; scores: object }[] }>();
		expect(search.results.map((r) => r.name)).toEqual(["Billing Portal"]);

		const context = cli("context", "--label", "Project", "--name", "Billing Portal", "--hops", "1").json<{
			neighbours: { name: string }[];
			relations: unknown[];
		}>();
		expect(context.neighbours.map((n) => n.name)).toEqual(["Python"]);
		expect(context.relations).toMatchObject([{ from: "Billing Portal", from_label: "Project", type: "USES", to: "Python", to_label: "Technology", direction: "out" }]);

		const forgotten = cli("forget", "--label", "Project", "--name", "Billing Portal");
		expect(forgotten.json()).toMatchObject({ mode: "archived", forgotten: { status: "archived" } });
		expect(cli("search", "invoices").json<{ results: unknown[] }>().results).toEqual([]);

		const status = cli("status").json<{ backend: { name: string; node_count: number; edge_count: number } }>();
		expect(status.backend).toMatchObject({ name: "sqlite", node_count: 2, edge_count: 1 });
	});

	it("keeps the --json shapes the README documents", () => {
		const keys = (value: unknown) => Object.keys(value as object).sort();
		const NODE = ["created_at", "key_field", "label", "name", "node_id", "props", "status", "updated_at"];
		const REF = ["label", "name", "node_id", "status"];

		const remembered = cli("remember", "--label", "Project", "--name", "Billing Portal", "--props", '{"description":"Invoices for clients"}').json<{
			node: unknown;
			warnings: unknown;
		}>();
		expect(keys(remembered)).toEqual(expect.arrayContaining(["created", "node", "warnings"]));
		expect(keys(remembered.node)).toEqual(NODE);
		expect(Array.isArray(remembered.warnings)).toBe(true);
		cli("remember", "--label", "Technology", "--name", "Python");

		const related = cli("relate", "Project", "Billing Portal", "USES", "Technology", "Python").json<{ from: unknown; to: unknown }>();
		expect(keys(related)).toEqual(["created", "from", "to", "type"]);
		expect(keys(related.from)).toEqual(REF);
		expect(keys(related.to)).toEqual(REF);

		const got = cli("get", "--label", "Project", "--name", "Billing Portal").json<{ node: unknown }>();
		expect(keys(got)).toEqual(["node"]);
		expect(keys(got.node)).toEqual(NODE);

		const search = cli("search", "invoices").json<{ degraded: unknown; results: { scores: unknown }[] }>();
		// reason and degraded_cause only when degraded (no embedder here), proactive_hint only when an Insight matches.
		expect(keys(search)).toEqual(expect.arrayContaining(["degraded", "mode", "query", "results"]));
		expect(keys(search).filter((k) => !["degraded", "mode", "query", "reason", "degraded_cause", "results", "proactive_hint"].includes(k))).toEqual([]);
		expect(typeof search.degraded).toBe("boolean");
		expect(search).toMatchObject({ degraded: true, degraded_cause: "no_embedder" });
		expect(keys(search.results[0])).toEqual(["confidence", "label", "name", "node_id", "score", "scores", "summary", "tags", "updated_at"]);
		expect(typeof search.results[0].scores).toBe("object");

		const context = cli("context", "--label", "Project", "--name", "Billing Portal").json<{ node: unknown; neighbours: unknown[]; relations: unknown[] }>();
		expect(keys(context)).toEqual(["neighbours", "node", "relations", "truncated"]);
		expect(keys(context.node)).toEqual(NODE);
		expect(keys(context.neighbours[0])).toEqual(["depth", "label", "name", "node_id", "status"]);
		expect(keys(context.relations[0])).toEqual(["direction", "from", "from_id", "from_label", "to", "to_id", "to_label", "type"]);

		const status = cli("status").json<{ backend: unknown; identity: unknown }>();
		expect(keys(status)).toEqual(["backend", "database", "identity", "labels", "profile", "version"]);
		expect(keys(status.backend)).toEqual(["edge_count", "name", "node_count", "ok"]);
		expect(keys(status.identity)).toEqual(["org_id", "user_id"]);

		const forgotten = cli("forget", "--label", "Technology", "--name", "Python").json<{ forgotten: unknown }>();
		expect(keys(forgotten)).toEqual(["forgotten", "mode"]);
		expect(keys(forgotten.forgotten)).toEqual(NODE);
		const hard = cli("forget", "--label", "Project", "--name", "Billing Portal", "--hard").json();
		expect(hard).toMatchObject({ mode: "hard", forgotten: { name: "Billing Portal" } });
		expect(cli("get", "--label", "Project", "--name", "Billing Portal").json()).toEqual({ node: null });
	}, 120_000);

	it("defaults to ENGRAMA_DB_PATH and derives the standalone identity once per memory", () => {
		const fromEnv = runCli(["--json", "remember", "--label", "Concept", "--name", "Idempotency"], { env: { ENGRAMA_DB_PATH: db } });
		expect(fromEnv.status).toBe(0);
		const first = cli("status").json<{ backend: { node_count: number }; identity: { org_id: string; user_id: string } }>();
		expect(first.backend.node_count).toBe(1);
		expect(first.identity.org_id).toBe("standalone");
		expect(first.identity.user_id).toMatch(/^local-/);
		expect(cli("status").json<{ identity: unknown }>().identity).toEqual(first.identity);
		// The text form shows it too: the ids another program (the Python engrama) reads this memory with.
		const text = runCli(["--db", db, "status"]);
		expect(text.stdout).toContain(`identity: org_id standalone, user_id ${first.identity.user_id}`);
	});

	it("chooses the profile and modules from flags or the environment, and GRAPH_BACKEND=null stores nothing", () => {
		const message = (result: { stderr: string }) => (JSON.parse(result.stderr) as { error: { message: string } }).error.message;
		expect(message(cli("remember", "--label", "Vulnerability", "--name", "CVE-2024-1"))).toMatch(/Unknown label "Vulnerability".*profile base/);
		expect(cli("--modules", "hacking", "remember", "--label", "Vulnerability", "--name", "CVE-2024-1").status).toBe(0);
		expect(cli("--profile", "developer", "remember", "--label", "Library", "--name", "zod").status).toBe(0);
		const fromEnv = runCli(["--db", db, "--json", "status"], { env: { ENGRAMA_PROFILE: "base", ENGRAMA_MODULES: "hacking,teaching" } });
		expect(fromEnv.json()).toMatchObject({ profile: "base+hacking+teaching", labels: { Vulnerability: 1, Library: 1 } });

		const file = join(dir.path, "mine.yaml");
		writeFileSync(file, "name: mine\nnodes:\n  - label: Gadget\n    key: name\n    properties: [name]\nrelations:\n  - type: USES\n    from: Gadget\n    to: Widget\n");
		const bad = cli("--profile", file, "status");
		expect(bad.status).toBe(2);
		expect(message(bad)).toContain(`${file}: relations[0].to: unknown label "Widget"`);

		const dry = runCli(["--json", "remember", "--label", "Concept", "--name", "Dry run"], { env: { GRAPH_BACKEND: "null", ENGRAMA_DB_PATH: join(dir.path, "never.db") } });
		expect(dry.json()).toMatchObject({ created: true, node: { name: "Dry run" } });
		expect(existsSync(join(dir.path, "never.db"))).toBe(false);
	}, 120_000);

	it("refuses a second writer with an error naming the file and the process that holds it", async () => {
		// A long-running command holds the memory open (and its lock) while its stdin is open.
		const holder = spawn(process.execPath, [join(__dirname, "..", "..", "bin", "engrama.mjs"), "--db", db, "mcp", "--stdio"], {
			stdio: ["pipe", "ignore", "pipe"],
			env: { ...process.env, ENGRAMA_DB_PATH: "", GRAPH_BACKEND: "" },
		});
		const exited = new Promise((resolve) => holder.on("exit", resolve));
		try {
			const deadline = Date.now() + 30_000;
			while (!existsSync(`${db}.lock`) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
			expect(existsSync(`${db}.lock`)).toBe(true);

			const second = cli("remember", "--label", "Concept", "--name", "Blocked");
			expect(second.status).not.toBe(0);
			expect(second.stdout).toBe("");
			const error = JSON.parse(second.stderr) as { error: { message: string } };
			expect(error.error.message).toContain(db);
			expect(error.error.message).toContain(`process ${holder.pid}`);
			expect(runCli(["--db", db, "status"]).stderr).toMatch(/already open in process \d+/);
		} finally {
			holder.stdin.end();
			holder.kill("SIGTERM");
			await exited;
		}
		// Once the holder is gone, the memory opens again.
		expect(cli("status").status).toBe(0);
	}, 60_000);

	it("reports bad requests as JSON on stderr with exit code 2, and not-found with 3", () => {
		const unknown = cli("remember", "--label", "Spaceship", "--name", "X");
		expect(unknown.status).toBe(2);
		expect(unknown.stdout).toBe("");
		const error = JSON.parse(unknown.stderr) as { error: { code: string; message: string } };
		expect(error.error.code).toBe("invalid_input");
		expect(error.error.message).toMatch(/Allowed labels.*Project/);

		const badJson = cli("remember", "--label", "Project", "--name", "X", "--props", "{nope");
		expect(badJson.status).toBe(2);
		expect(badJson.stderr).toMatch(/not valid JSON/);

		const missing = cli("relate", "Project", "Nope", "USES", "Technology", "Nada");
		expect(missing.status).toBe(2);
		expect(missing.stderr).toMatch(/does not exist/);

		const notFound = cli("get", "--label", "Project", "--name", "Nope");
		expect(notFound.status).toBe(3);
		expect(notFound.json()).toEqual({ node: null });
		const noContext = cli("context", "--label", "Project", "--name", "Nope");
		expect(noContext.status).toBe(3);
		expect(noContext.json()).toEqual({ context: null });
	});

	it("refuses a file that is not an Engrama database and leaves it untouched", () => {
		writeFileSync(db, "these are my notes, not a database\n".repeat(200));
		const before = readFileSync(db);
		const result = cli("status");
		expect(result.status).not.toBe(0);
		expect(result.stderr).toContain(db);
		expect(readFileSync(db).equals(before)).toBe(true);
	});

	it("with --vault, remember writes a new note and relate writes into the source note's relations", () => {
		const vault = join(dir.path, "vault");
		mkdirSync(join(vault, "Projects"), { recursive: true });
		writeFileSync(join(vault, "Projects", "Billing Portal.md"), "---\nengrama_label: Project\n---\n# Billing Portal\n\nInvoices.\n");
		const inVault = (...args: string[]) => runCli(["--db", db, "--vault", vault, "--json", ...args]);
		expect(inVault("sync").status).toBe(0);
		expect(inVault("remember", "--label", "Technology", "--name", "Zig").status).toBe(0);
		expect(inVault("relate", "Project", "Billing Portal", "USES", "Technology", "Zig").status).toBe(0);
		expect(readFileSync(join(vault, "Engrama", "Technology", "Zig.md"), "utf8")).toMatch(/engrama_label: Technology/);
		expect(readFileSync(join(vault, "Projects", "Billing Portal.md"), "utf8")).toMatch(/relations:\n\s+USES:\s+- "\[\[Zig\]\]"/);
	});
});
