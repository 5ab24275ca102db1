import { spawn } from "node:child_process";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/run-cli";
import { makeTempDir } from "../helpers/temp-dir";

const ROOT = join(__dirname, "..", "..");
const temps: { cleanup(): void }[] = [];
afterEach(() => {
	for (const t of temps.splice(0)) t.cleanup();
});

function workspace(): { vault: string; db: string } {
	const temp = makeTempDir("engrama-cli-sync-");
	temps.push(temp);
	const vault = join(temp.path, "vault");
	cpSync(join(ROOT, "examples/vault"), vault, { recursive: true });
	return { vault, db: join(temp.path, "memory.db") };
}

interface SyncJson {
	dry_run: boolean;
	counts: Record<string, number>;
	ids_written: string[];
	notes_written: string[];
	problems: { path: string; severity: string; problem: string; action: string }[];
	timings_ms: Record<string, number>;
}

describe("engrama sync", () => {
	it("--json on the example vault prints counts, the files given an id, problems and timings", () => {
		const { vault, db } = workspace();
		const result = runCli(["--vault", vault, "--db", db, "--modules", "teaching", "sync", "--json"]);
		expect(result.stderr).toBe("");
		expect(result.status).toBe(0);
		const data = result.json<SyncJson>();
		expect(data.dry_run).toBe(false);
		expect(data.counts).toMatchObject({ files_scanned: 60, nodes_created: 60, stubs_created: 3, relations_added: 139, ids_written: 59, problems: 4 });
		// An unknown status, and the three meetings whose `type: meeting` is no label (indexed as Note).
		expect(data.problems.map((p) => `${p.path} ${p.severity}`).sort()).toEqual([
			"Meetings/2026-02-24 Acme kickoff.md warning",
			"Meetings/2026-03-04 Salud Norte sync.md warning",
			"Meetings/2026-03-10 Madrid Tech School planning.md warning",
			"Problems/Stale invoice totals after a plan change.md warning",
		]);
		expect(data.timings_ms.totalMs).toBeGreaterThan(0);
		const status = runCli(["--db", db, "--json", "status"]).json<{ backend: { node_count: number } }>();
		expect(status.backend.node_count).toBe(63);
		const again = runCli(["--vault", vault, "--db", db, "--modules", "teaching", "sync", "--json"]).json<SyncJson>();
		expect(again.counts).toMatchObject({ files_unchanged: 60, nodes_created: 0, nodes_updated: 0, relations_added: 0, ids_written: 0 });
	});

	it("--dry-run writes nothing to the vault or the graph", () => {
		const { vault, db } = workspace();
		const before = readFileSync(join(vault, "Concepts/CRDTs.md"), "utf8");
		const result = runCli(["--vault", vault, "--db", db, "--modules", "teaching", "sync", "--dry-run", "--json"]);
		expect(result.status).toBe(0);
		const data = result.json<SyncJson>();
		expect(data.dry_run).toBe(true);
		expect(data.counts.nodes_created).toBe(60);
		expect(data.ids_written).toContain("Concepts/CRDTs.md");
		expect(readFileSync(join(vault, "Concepts/CRDTs.md"), "utf8")).toBe(before);
		const status = runCli(["--db", db, "--json", "status"]).json<{ backend: { node_count: number } }>();
		expect(status.backend.node_count).toBe(0);
	});

	it("prints a readable summary without --json", () => {
		const { vault, db } = workspace();
		const result = runCli(["--vault", vault, "--db", db, "--modules", "teaching", "sync"]);
		expect(result.status).toBe(0);
		expect(result.stdout).toContain("nodes created 60, updated 0, archived 0, moved 0; stubs 3");
		expect(result.stdout).toContain("relations added 139, removed 0");
		expect(result.stdout).toContain("problems (4):");
	});

	it("reports a note with an alias bomb by its path and syncs the rest (sync, --dry-run, sync-note)", () => {
		const { vault, db } = workspace();
		const bomb = `---\nd: &d x\nitems: [${Array(101).fill("*d").join(", ")}]\n---\nBody\n`;
		writeFileSync(join(vault, "Bomb.md"), bomb);
		const bombProblem = (data: SyncJson) => data.problems.filter((p) => p.path === "Bomb.md");
		const dry = runCli(["--vault", vault, "--db", db, "--modules", "teaching", "sync", "--dry-run", "--json"]);
		expect(dry.stderr).toBe("");
		expect(dry.status).toBe(0);
		expect(bombProblem(dry.json<SyncJson>())).toEqual([
			expect.objectContaining({ severity: "error", problem: expect.stringMatching(/line 2.*aliases \(\*name\) too often/) as unknown }),
		]);
		const full = runCli(["--vault", vault, "--db", db, "--modules", "teaching", "sync", "--json"]);
		expect(full.status).toBe(0);
		const data = full.json<SyncJson>();
		expect(bombProblem(data)).toHaveLength(1);
		// Its frontmatter unreadable, the bomb's body is still indexed, as an untyped Note (never given an id).
		expect(data.counts.nodes_created).toBe(61);
		const one = runCli(["--vault", vault, "--db", db, "--modules", "teaching", "sync-note", "Bomb.md", "--json"]);
		expect(one.stderr).toBe("");
		expect(one.status).toBe(0);
		expect(bombProblem(one.json<SyncJson>())).toHaveLength(1);
		expect(readFileSync(join(vault, "Bomb.md"), "utf8")).toBe(bomb);
	});

	it("explains a missing vault", () => {
		const { db } = workspace();
		const result = runCli(["--db", db, "--json", "sync"], { env: { VAULT_PATH: "" } });
		expect(result.status).toBe(2);
		expect(result.stderr).toContain("--vault");
	});
});

describe("engrama sync-note", () => {
	it("syncs one note by its vault path", () => {
		const { vault, db } = workspace();
		const result = runCli(["--vault", vault, "--db", db, "--modules", "teaching", "sync-note", "Concepts/CRDTs.md", "--json"]);
		expect(result.status).toBe(0);
		const data = result.json<SyncJson>();
		expect(data.counts).toMatchObject({ nodes_created: 1, ids_written: 1 });
		expect(readFileSync(join(vault, "Concepts/CRDTs.md"), "utf8")).toMatch(/engrama_id: [0-9a-f-]{36}/);
	});

	it("refuses a note in an excluded folder", () => {
		const { vault, db } = workspace();
		const result = runCli(["--vault", vault, "--db", db, "--modules", "teaching", "sync-note", "Templates/Problem.md"]);
		expect(result.status).toBe(2);
		expect(result.stderr).toContain("is not synced");
	});
});

describe("engrama watch", () => {
	it("syncs, then follows file changes until interrupted", async () => {
		const { vault, db } = workspace();
		const child = spawn(process.execPath, [join(ROOT, "bin/engrama.mjs"), "--vault", vault, "--db", db, "--modules", "teaching", "watch", "--json"], {
			env: { ...process.env, ENGRAMA_DB_PATH: "", GRAPH_BACKEND: "" },
		});
		let stdout = "";
		let stderr = "";
		child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
		child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
		const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)));
		const until = async (check: () => boolean) => {
			const started = Date.now();
			while (!check()) {
				if (Date.now() - started > 20_000) throw new Error(`timed out; stdout=${stdout} stderr=${stderr}`);
				await new Promise((r) => setTimeout(r, 50));
			}
		};
		try {
			await until(() => stderr.includes("Watching"));
			writeFileSync(join(vault, "Inbox/Watched idea.md"), "---\nengrama_label: Concept\n---\nA thought worth keeping.\n");
			await until(() => stdout.includes("Inbox/Watched idea.md"));
		} finally {
			child.kill("SIGINT");
		}
		expect(await exited).toBe(0);
		const events = stdout.trim().split("\n").map((line) => JSON.parse(line) as { event: string; counts?: Record<string, number> });
		expect(events[0]).toMatchObject({ event: "full_sync", counts: { nodes_created: 60 } });
		expect(events.some((e) => e.event === "batch" && e.counts?.nodes_created === 1)).toBe(true);
		expect(events[events.length - 1]).toMatchObject({ event: "stopped", failed_batches: 0 });
		expect(readFileSync(join(vault, "Inbox/Watched idea.md"), "utf8")).toMatch(/engrama_id: /);
	});
});
