import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { buildProgram } from "../../src/cli/program";
import { makeTempDir } from "../helpers/temp-dir";

/** Runs the command line in this process with the given environment; returns stdout/stderr. */
async function run(env: Record<string, string>, ...args: string[]): Promise<{ stdout: string; stderr: string; exitCode: number }> {
	const saved = { ...process.env };
	Object.assign(process.env, { GRAPH_BACKEND: "", ENGRAMA_DB_PATH: "", EMBEDDING_PROVIDER: "", ...env });
	let stdout = "";
	let stderr = "";
	const out = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => ((stdout += String(chunk)), true));
	const err = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => ((stderr += String(chunk)), true));
	process.exitCode = 0;
	try {
		await buildProgram().exitOverride().parseAsync(["node", "engrama", ...args]);
	} finally {
		out.mockRestore();
		err.mockRestore();
		process.env = saved;
	}
	const exitCode = Number(process.exitCode ?? 0);
	process.exitCode = 0;
	return { stdout, stderr, exitCode };
}

describe("engrama search and reindex", () => {
	let dir: ReturnType<typeof makeTempDir>;
	let db: string;
	beforeEach(() => {
		dir = makeTempDir("engrama-cli-search-");
		db = join(dir.path, "memory.db");
	});
	afterEach(() => dir.cleanup());

	const hash = { EMBEDDING_PROVIDER: "hash", EMBEDDING_DIMENSIONS: "64" };

	it("search --json returns hybrid results with per-signal scores", async () => {
		await run(hash, "--db", db, "--json", "remember", "--label", "Concept", "--name", "Exponential backoff", "--props", '{"description":"wait longer between retries"}');
		await run(hash, "--db", db, "--json", "remember", "--label", "Technology", "--name", "SQLite", "--props", '{"description":"embedded database"}');
		const { stdout, exitCode } = await run(hash, "--db", db, "--json", "search", "retrying backoff");
		expect(exitCode).toBe(0);
		const view = JSON.parse(stdout) as { mode: string; degraded: boolean; results: { name: string; scores: Record<string, number> }[] };
		expect(view).toMatchObject({ mode: "rrf", degraded: false });
		expect(view.results[0].name).toBe("Exponential backoff");
		expect(Object.keys(view.results[0].scores)).toEqual(expect.arrayContaining(["rrf", "fulltext", "vector", "graph", "cohesion", "anchor", "temporal", "trust"]));
		expect(view.results[0].scores).toMatchObject({ graph: 0, trust: 1 });
		expect(view.results[0].scores.vector).toBeGreaterThan(0);

		const linear = JSON.parse((await run(hash, "--db", db, "--json", "search", "backoff", "--mode", "linear")).stdout) as { mode: string };
		expect(linear.mode).toBe("linear");
		const bad = await run(hash, "--db", db, "--json", "search", "backoff", "--mode", "magic");
		expect(bad.exitCode).toBe(2);
		expect(bad.stderr).toMatch(/--mode must be rrf or linear/);
	});

	it("without an embedder, search says it is degraded and why; reindex --apply fills the vector channel", async () => {
		await run({}, "--db", db, "--json", "remember", "--label", "Concept", "--name", "Raft", "--props", '{"description":"consensus protocol"}');
		const degraded = JSON.parse((await run({}, "--db", db, "--json", "search", "consensus")).stdout) as { degraded: boolean; reason: string; results: unknown[] };
		expect(degraded).toMatchObject({ degraded: true, results: [expect.objectContaining({ name: "Raft" })] });
		expect(degraded.reason).toMatch(/no embedder/);

		const dry = await run(hash, "--db", db, "--json", "reindex");
		expect(JSON.parse(dry.stdout)).toMatchObject({ dry_run: true, to_embed: 1, reasons: { no_vectors_yet: 1 }, embedded: 0 });
		const applied = await run(hash, "--db", db, "--json", "reindex", "--apply");
		expect(JSON.parse(applied.stdout)).toMatchObject({ dry_run: false, embedded: 1 });
		expect(applied.stderr).toMatch(/reindex: 1\/1 \(100%\)/);

		const hybrid = JSON.parse((await run(hash, "--db", db, "--json", "search", "consensus")).stdout) as { degraded: boolean; results: { scores: Record<string, number> }[] };
		expect(hybrid.degraded).toBe(false);
		expect(hybrid.results[0].scores.vector_rank).toBe(1);
	});

	it("prints a readable list without --json", async () => {
		await run(hash, "--db", db, "remember", "--label", "Concept", "--name", "Raft", "--props", '{"description":"consensus protocol"}');
		const { stdout } = await run(hash, "--db", db, "search", "consensus");
		expect(stdout).toMatch(/^1\. \[Concept\] Raft {2}\(\d\.\d{3}: rrf 1\.000, fulltext 1\.000, vector 0\.\d{3}, temporal 1\.000, trust 1\.000\)/);
	});
});
