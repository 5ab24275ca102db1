import { cpSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/run-cli";
import { makeTempDir } from "../helpers/temp-dir";

const EXAMPLE_VAULT = join(__dirname, "..", "..", "examples", "vault");

interface InsightJson {
	title: string;
	body: string;
	status: string;
	confidence: number;
	detector: string;
	reason?: string;
	about: { name: string }[];
}

// The real built command line on a copy of the example vault: sync, reflect, review, write back.
// Each test spawns the CLI several times: generous timeouts for a loaded machine.
describe("engrama reflect, insights, approve, dismiss, write-insight", { timeout: 180_000 }, () => {
	let dir: ReturnType<typeof makeTempDir>;
	let vault: string;
	const cli = (...args: string[]) =>
		runCli(["--db", join(dir.path, "memory.db"), "--vault", vault, "--profile", "base", "--modules", "teaching", "--json", ...args]);

	beforeAll(() => {
		dir = makeTempDir("engrama-cli-reflect-");
		vault = join(dir.path, "vault");
		cpSync(EXAMPLE_VAULT, vault, { recursive: true });
		const synced = cli("sync", "--no-export");
		expect(synced.status, synced.stderr).toBe(0);
	});
	afterAll(() => dir.cleanup());

	it("reflects with a per-detector report, then finds the same Insights again without creating any", () => {
		const first = cli("reflect");
		expect(first.status, first.stderr).toBe(0);
		const report = first.json<{ created: number; detectors: { detector: string; ran: boolean; created: number }[]; insights: InsightJson[] }>();
		expect(report.detectors).toHaveLength(9);
		for (const d of report.detectors) expect(d.created, d.detector).toBeGreaterThanOrEqual(1);
		expect(report.insights.map((i) => i.title)).toContain("Hub stub: Elena Vidal (Person)");
		expect(report.insights.every((i) => i.body.length > 40 && i.about.length > 0)).toBe(true);

		const second = cli("reflect").json<{ created: number; refreshed: number; unchanged: number }>();
		expect(second).toMatchObject({ created: 0, refreshed: 0, unchanged: report.created });

		const human = runCli(["--db", join(dir.path, "memory.db"), "--profile", "base", "--modules", "teaching", "reflect", "--detector", "hub-stubs"]);
		expect(human.status, human.stderr).toBe(0);
		expect(human.stdout).toContain("Hub stubs: 0 new, 0 refreshed, 1 unchanged");
		expect(human.stdout).toContain("Cross-project solution: skipped (not requested)");
	});

	it("approves and dismisses by title with a reason, lists by status, and never resurfaces them", () => {
		const approved = cli("approve", "Training opportunity: Cache Invalidation", "--reason", "lesson planned");
		expect(approved.status, approved.stderr).toBe(0);
		expect(approved.json()).toMatchObject({ changed: true, previous_status: "pending", insight: { status: "approved", reason: "lesson planned" } });
		expect(cli("dismiss", "Under-connected: CRDTs (Concept)").json()).toMatchObject({ insight: { status: "dismissed" } });

		expect(cli("insights", "--status", "approved").json<{ insights: InsightJson[] }>().insights.map((i) => i.title)).toEqual([
			"Training opportunity: Cache Invalidation",
		]);
		const pending = cli("insights").json<{ status: string; insights: InsightJson[] }>();
		expect(pending.status).toBe("pending");
		expect(pending.insights.map((i) => i.title)).not.toContain("Under-connected: CRDTs (Concept)");
		const related = cli("insights", "--query", "Idempotency").json<{ insights: (InsightJson & { match: { by: string } })[] }>();
		expect(related.insights.map((i) => i.title)).toContain("Concept cluster: Idempotency");

		const again = cli("reflect").json<{ created: number; insights: InsightJson[] }>();
		expect(again.created).toBe(0);
		expect(again.insights.map((i) => i.title)).not.toContain("Training opportunity: Cache Invalidation");
		expect(cli("insights", "--status", "dismissed").json<{ insights: InsightJson[] }>().insights.map((i) => i.title)).toEqual([
			"Under-connected: CRDTs (Concept)",
		]);
	});

	it("writes only approved Insights into the vault", () => {
		const refused = cli("write-insight", "Concept cluster: Idempotency", "--note", "Concepts/Idempotency.md");
		expect(refused.status).toBe(2);
		expect(JSON.parse(refused.stderr)).toMatchObject({ error: { code: "invalid_input" } });
		expect((JSON.parse(refused.stderr) as { error: { message: string } }).error.message).toContain("only approved Insights are written");

		const written = cli("write-insight", "Training opportunity: Cache Invalidation", "--note", join(vault, "Concepts", "Cache Invalidation.md"));
		expect(written.status, written.stderr).toBe(0);
		expect(written.json()).toMatchObject({ path: "Concepts/Cache Invalidation.md", created: false, written: true });
		const note = readFileSync(join(vault, "Concepts", "Cache Invalidation.md"), "utf8");
		expect(note).toContain("## Insight (");
		expect(note).toContain("[[Problems/Stale invoice totals after a plan change|Stale invoice totals after a plan change]]");

		const created = cli("write-insight", "Training opportunity: Cache Invalidation");
		expect(created.json()).toMatchObject({ path: "Engrama/Insights/Training opportunity Cache Invalidation.md", created: true });
		const elsewhere = cli("write-insight", "Training opportunity: Cache Invalidation", "--folder", "Reviews/2026");
		expect(elsewhere.json()).toMatchObject({ path: "Reviews/2026/Training opportunity Cache Invalidation.md", created: true });
		expect(readFileSync(join(vault, "Reviews", "2026", "Training opportunity Cache Invalidation.md"), "utf8")).toContain("2 open problems involve Cache Invalidation");

		const missing = cli("approve", "No such insight");
		expect(missing.status).toBe(2);
		expect(JSON.parse(missing.stderr)).toMatchObject({ error: { code: "not_found" } });
	});

	it("refuses bad input with exit code 2 and a message that says what to change", () => {
		const refused = (args: string[], message: string) => {
			const result = cli(...args);
			expect(result.status, result.stdout).toBe(2);
			const error = (JSON.parse(result.stderr) as { error: { code: string; message: string } }).error;
			expect(error.code).toBe("invalid_input");
			expect(error.message).toContain(message);
		};
		refused(["reflect", "--detector", "nope"], 'Unknown detector "nope". Use one of: cross_project_solution,');
		refused(["reflect", "--budget", "0"], "--budget must be a positive whole number");
		refused(["insights", "--status", "bogus"], "--status must be one of pending, approved, dismissed");
		refused(["insights", "--status", "approved", "--query", "cache"], "--query surfaces pending Insights only");
		writeFileSync(join(dir.path, "outside.md"), "not in the vault\n");
		refused(["write-insight", "Training opportunity: Cache Invalidation", "--note", "../outside.md"], '--note "../outside.md" leaves the vault');
		expect(readFileSync(join(dir.path, "outside.md"), "utf8")).toBe("not in the vault\n");
	});

	// The MCP tool's checks, shared: a symlink inside the vault never carries a write out of it.
	it("refuses --note and --folder that lead out of the vault (symlinked file, symlinked folder, ..), writing nothing outside", () => {
		const outside = join(dir.path, "elsewhere");
		mkdirSync(outside, { recursive: true });
		writeFileSync(join(outside, "target.md"), "outside note\n");
		symlinkSync(join(outside, "target.md"), join(vault, "Link.md"));
		symlinkSync(outside, join(vault, "OutDir"));
		const refused = (args: string[], message: string) => {
			const result = cli("write-insight", "Training opportunity: Cache Invalidation", ...args);
			expect(result.status, result.stdout).toBe(2);
			const error = (JSON.parse(result.stderr) as { error: { code: string; message: string } }).error;
			expect(error.code).toBe("invalid_input");
			expect(error.message).toContain(message);
		};
		refused(["--note", "Link.md"], '--note "Link.md" leads outside the vault through a symbolic link');
		refused(["--note", join(vault, "Link.md")], '--note "Link.md" leads outside the vault through a symbolic link');
		refused(["--note", "OutDir/target.md"], "leads outside the vault through a symbolic link");
		refused(["--folder", "OutDir"], '--folder "OutDir" leads outside the vault through a symbolic link');
		refused(["--folder", "OutDir/2026"], '--folder "OutDir/2026" leads outside the vault through a symbolic link');
		refused(["--folder", "../elsewhere"], '--folder "../elsewhere" leaves the vault');
		refused(["--note", join(outside, "target.md")], "leaves the vault");
		expect(readFileSync(join(outside, "target.md"), "utf8")).toBe("outside note\n");
		expect(readdirSync(outside)).toEqual(["target.md"]);
		expect(lstatSync(join(vault, "Link.md")).isSymbolicLink()).toBe(true);
		expect(existsSync(join(vault, "OutDir", "2026"))).toBe(false);

		const syncNote = cli("sync-note", "Link.md");
		expect(syncNote.status, syncNote.stdout).toBe(2);
		expect(syncNote.stderr).toContain("leads outside the vault");
		expect(readFileSync(join(outside, "target.md"), "utf8")).toBe("outside note\n");
	});
});
