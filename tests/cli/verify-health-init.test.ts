import { spawn } from "node:child_process";
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SCHEMA_VERSION } from "../../src/backends/sqlite/schema";
import { openDatabase } from "../../src/backends/sqlite/wasm/open-database";
import { runCli } from "../helpers/run-cli";
import { makeTempDir } from "../helpers/temp-dir";

const BIN = join(__dirname, "..", "..", "bin", "engrama.mjs");

interface Finding {
	check: string;
	ok: boolean;
	problems: number;
	advice: string;
}

describe("engrama verify, health and init", () => {
	let dir: ReturnType<typeof makeTempDir>;
	let db: string;
	// A hash embedder: every node gets a vector, so the vector checks have rows to read.
	const cli = (...args: string[]) => runCli(["--db", db, "--json", ...args], { env: { EMBEDDING_PROVIDER: "hash", EMBEDDING_DIMENSIONS: "32" } });
	const finding = (checks: Finding[], id: string) => checks.find((c) => c.check === id);

	beforeEach(() => {
		dir = makeTempDir("engrama-verify-");
		db = join(dir.path, "memory.db");
	});
	afterEach(() => dir.cleanup());

	it("compact rewrites the file and reports its bytes; on a backend without a file of ours it says there is nothing to do", () => {
		expect(cli("compact").status).toBe(2);
		expect(cli("remember", "--label", "Project", "--name", "Billing Portal").status).toBe(0);
		const result = cli("compact");
		expect(result.status).toBe(0);
		const view = result.json<{ backend: string; compacted: boolean; bytes_before: number; bytes_after: number }>();
		expect(view).toMatchObject({ backend: "sqlite", compacted: true });
		expect(view.bytes_after).toBeGreaterThan(0);
		expect(view.bytes_after).toBeLessThanOrEqual(view.bytes_before);
		expect(cli("get", "--label", "Project", "--name", "Billing Portal").status).toBe(0);
		const none = runCli(["--backend", "null", "compact"]);
		expect(none.status).toBe(0);
		expect(none.stdout).toMatch(/Nothing to compact: compacting rewrites the SQLite memory file, and this memory is on the null backend\./);
	});

	it("verify refuses a missing memory (exit 2) and creates nothing", () => {
		const result = cli("verify");
		expect(result.status).toBe(2);
		expect(result.stderr).toMatch(/engrama init/);
		expect(existsSync(db)).toBe(false);
	});

	it("verify passes a clean memory, finds a missing and an orphan fulltext row, a dangling relation and an orphan vector, and --fix repairs them without touching nodes", async () => {
		expect(cli("remember", "--label", "Project", "--name", "Billing Portal").status).toBe(0);
		expect(cli("remember", "--label", "Technology", "--name", "Python").status).toBe(0);
		expect(cli("relate", "Project", "Billing Portal", "USES", "Technology", "Python").status).toBe(0);
		const clean = cli("verify");
		expect(clean.status).toBe(0);
		const report = clean.json<{ ok: boolean; checks: Finding[] }>();
		expect(report.ok).toBe(true);
		expect(report.checks.map((c) => c.check)).toEqual(
			expect.arrayContaining(["storage", "fulltext_missing", "fulltext_orphans", "dangling_edges", "edge_scope", "vector_orphans", "vector_dimensions"]),
		);

		// Damage the file the way a crashed or foreign writer could (foreign keys are off on this raw connection).
		const conn = await openDatabase({ path: db });
		const python = conn.get<{ id: number }>("SELECT id FROM nodes WHERE key_value = 'Python'")!.id;
		const portal = conn.get<{ id: number }>("SELECT id FROM nodes WHERE key_value = 'Billing Portal'")!.id;
		conn.run("DELETE FROM nodes_fts WHERE rowid = ?", [portal]);
		conn.run("DELETE FROM nodes WHERE id = ?", [python]);
		conn.close();

		const broken = cli("verify");
		expect(broken.status).toBe(1);
		const checks = broken.json<{ ok: boolean; checks: Finding[] }>().checks;
		expect(finding(checks, "fulltext_missing")).toMatchObject({ ok: false, problems: 1 });
		expect(finding(checks, "fulltext_orphans")).toMatchObject({ ok: false, problems: 1 });
		expect(finding(checks, "dangling_edges")).toMatchObject({ ok: false, problems: 1 });
		expect(finding(checks, "vector_orphans")).toMatchObject({ ok: false, problems: 1 });
		expect(finding(checks, "storage")).toMatchObject({ ok: true });
		expect(finding(checks, "dangling_edges")?.advice).not.toBe("");

		// Read-only: a second run finds exactly the same.
		expect(cli("verify").json<{ checks: Finding[] }>().checks).toEqual(checks);
		const human = runCli(["--db", db, "verify"]);
		expect(human.status).toBe(1);
		expect(human.stdout).toMatch(/nothing was changed/);
		expect(human.stdout).toMatch(/FAIL {2}dangling edges: 1\./);

		// --fix removes what belongs to no node and indexes the node search lost; the node itself is untouched.
		const before = cli("get", "--label", "Project", "--name", "Billing Portal").json<{ node: unknown }>().node;
		const fixed = cli("verify", "--fix");
		expect(fixed.status).toBe(0);
		expect(fixed.json<{ repaired: Record<string, number> }>().repaired).toMatchObject({ fulltext_missing: 1, fulltext_orphans: 1, dangling_edges: 1, vector_orphans: 1 });
		expect(cli("get", "--label", "Project", "--name", "Billing Portal").json<{ node: unknown }>().node).toEqual(before);
		const found = cli("search", "Billing Portal").json<{ results: { name: string }[] }>().results.map((r) => r.name);
		expect(found).toContain("Billing Portal");
		expect(cli("verify").status).toBe(0);
	}, 180_000); // a dozen CLI processes, each compiling WASM: minutes on a loaded 2-core machine
});

describe("engrama health", () => {
	let dir: ReturnType<typeof makeTempDir>;
	let db: string;

	beforeEach(() => {
		dir = makeTempDir("engrama-health-");
		db = join(dir.path, "memory.db");
	});
	afterEach(() => dir.cleanup());

	it("reports a missing memory as not healthy (exit 1) with the next step, and creates nothing", () => {
		const result = runCli(["--db", db, "--json", "health", "--port", "9"]);
		expect(result.status).toBe(1);
		const view = result.json<{ ok: boolean; backend: { ok: boolean }; advice: string[] }>();
		expect(view).toMatchObject({ ok: false, backend: { ok: false } });
		expect(view.advice.join(" ")).toMatch(/engrama init/);
		expect(existsSync(db)).toBe(false);
	});

	it("reports backend counts, schema version, embedder and bridge in a stable shape; an unreachable embedder exits 1 without leaking its key", () => {
		expect(runCli(["--db", db, "remember", "--label", "Project", "--name", "Alpha"]).status).toBe(0);
		const healthy = runCli(["--db", db, "--json", "health", "--port", "9"]);
		expect(healthy.status).toBe(0);
		expect(healthy.json()).toEqual({
			ok: true,
			backend: {
				name: "sqlite",
				ok: true,
				location: db,
				nodes: 1,
				edges: 0,
				schema_version: SCHEMA_VERSION,
				engine: expect.stringMatching(/^native SQLite 3\.\d+\.\d+ \(better-sqlite3 12\.\d+\.\d+, sqlite-vec 0\.1\.\d+\)$/) as unknown,
				detail: null,
			},
			embedder: { provider: "none", model: "", dimensions: null, configured: false, reachable: null, detail: expect.any(String) as unknown },
			bridge: { url: "http://127.0.0.1:9/mcp", reachable: false, status: null, token_file: `${db}.mcp-token`, token_file_exists: false },
			advice: [],
		});

		// Port 9 (discard) refuses on loopback: the embedder is down, the rest is still reported.
		const secret = "sk-test-never-printed-0123456789";
		const down = runCli(["--db", db, "--json", "health", "--port", "9", "--timeout", "5"], {
			env: { EMBEDDING_PROVIDER: "openai", OPENAI_BASE_URL: "http://127.0.0.1:9/v1", OPENAI_API_KEY: secret, EMBEDDING_MODEL: "text-embedding-3-small" },
		});
		expect(down.status).toBe(1);
		const view = down.json<{ ok: boolean; backend: { ok: boolean; nodes: number }; embedder: { configured: boolean; reachable: boolean }; advice: string[] }>();
		expect(view).toMatchObject({ ok: false, backend: { ok: true, nodes: 1 }, embedder: { configured: true, reachable: false } });
		expect(view.advice.length).toBe(1);
		expect(down.stdout + down.stderr).not.toContain(secret);
	});

	it("sees an HTTP server answering on the bridge port and the token file beside the database", async () => {
		expect(runCli(["--db", db, "remember", "--label", "Project", "--name", "Alpha"]).status).toBe(0);
		writeFileSync(`${db}.mcp-token`, "token\n", { mode: 0o600 });
		const server = createServer((_req, res) => res.writeHead(401).end());
		await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
		try {
			const port = (server.address() as AddressInfo).port;
			// Asynchronous child: this process must stay free to answer it.
			const child = spawn(process.execPath, [BIN, "--db", db, "--json", "health", "--port", String(port)], { env: { ...process.env, ENGRAMA_DB_PATH: "", GRAPH_BACKEND: "" } });
			let stdout = "";
			child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
			const status = await new Promise<number | null>((done) => child.on("close", done));
			expect(status).toBe(0);
			expect(JSON.parse(stdout)).toMatchObject({ bridge: { reachable: true, status: 401, token_file_exists: true } });
		} finally {
			server.close();
		}
	});

	it("rejects a bad --port as bad input (exit 2)", () => {
		expect(runCli(["--db", db, "health", "--port", "nope"]).status).toBe(2);
	});
});

describe("engrama init", () => {
	let dir: ReturnType<typeof makeTempDir>;

	beforeEach(() => {
		dir = makeTempDir("engrama-init-");
	});
	afterEach(() => dir.cleanup());

	it("creates a private memory, prints the next steps, and changes nothing on a second run", () => {
		const db = join(dir.path, "new", "memory.db");
		const first = runCli(["--db", db, "--json", "init"]);
		expect(first.status).toBe(0);
		const view = first.json<{ created: boolean; backend: string; location: string; next_steps: string[] }>();
		expect(view).toMatchObject({ created: true, backend: "sqlite", location: db });
		expect(view.next_steps.join("\n")).toMatch(/sync[\s\S]*serve[\s\S]*health/);
		if (process.platform !== "win32") {
			expect(statSync(join(dir.path, "new")).mode & 0o777).toBe(0o700);
			expect(statSync(db).mode & 0o777).toBe(0o600);
		}
		// Beside the memory only the stamp of its clean close (it lets the next open skip quick_check).
		expect(readdirSync(join(dir.path, "new")).sort()).toEqual(["memory.db", "memory.db.engrama-checked"]);
		expect(runCli(["--db", db, "--json", "health", "--port", "9"]).json()).toMatchObject({ ok: true, backend: { nodes: 0, schema_version: SCHEMA_VERSION } });

		const bytes = readFileSync(db);
		const again = runCli(["--db", db, "init"]);
		expect(again.status).toBe(0);
		expect(again.stdout).toMatch(/already .*nothing was changed/);
		expect(readFileSync(db).equals(bytes)).toBe(true);
	});

	it("refuses a file that is not a SQLite database (exit 2) and leaves it as it was", () => {
		const path = join(dir.path, "notes.txt");
		writeFileSync(path, "my notes\n");
		const result = runCli(["--db", path, "init"]);
		expect(result.status).toBe(2);
		expect(result.stderr).toMatch(/not a SQLite database/);
		expect(readFileSync(path, "utf8")).toBe("my notes\n");
	});

	it("refuses the null backend (exit 2)", () => {
		expect(runCli(["--db", join(dir.path, "m.db"), "--backend", "null", "init"]).status).toBe(2);
	});
});
