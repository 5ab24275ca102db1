// The real built command line: engrama export → engrama import between two memory files.
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/run-cli";
import { makeTempDir } from "../helpers/temp-dir";

describe("engrama export and import", () => {
	let dir: ReturnType<typeof makeTempDir>;
	const env = { EMBEDDING_PROVIDER: "hash", EMBEDDING_DIMENSIONS: "32", ENGRAMA_ORG_ID: "", ENGRAMA_USER_ID: "" };
	const cli = (db: string, ...args: string[]) => runCli(["--db", db, "--json", ...args], { env });

	beforeEach(() => {
		dir = makeTempDir("engrama-export-");
	});
	afterEach(() => dir.cleanup());

	it("exports to a private file and imports it into a new memory, which then reads the same; a second import is refused; --dry-run writes nothing", () => {
		const a = join(dir.path, "a.db");
		const b = join(dir.path, "b.db");
		expect(cli(a, "remember", "--label", "Project", "--name", "Billing Portal", "--props", '{"description":"Invoices for clients"}').status).toBe(0);
		expect(cli(a, "remember", "--label", "Technology", "--name", "Python").status).toBe(0);
		expect(cli(a, "relate", "Project", "Billing Portal", "uses", "Technology", "Python").status).toBe(0);

		const file = join(dir.path, "out", "..", "memory.ndjson");
		const exported = cli(a, "export", file, "--vectors");
		expect(exported.status, exported.stderr).toBe(0);
		expect(exported.json()).toMatchObject({ nodes: 2, relations: 1, vectors: 2 });
		expect(statSync(file).mode & 0o777).toBe(0o600);
		expect(readdirSync(dir.path).filter((f) => f.endsWith(".partial"))).toEqual([]);
		const lines = readFileSync(file, "utf8").trim().split("\n");
		expect(JSON.parse(lines[0])).toMatchObject({ engrama_export: 1, producer: "engrama-obsidian", source_backend: "sqlite", embedding_dimensions: 32 });

		// Standard output: the same records (only the envelope's time differs), the summary on stderr.
		const piped = runCli(["--db", a, "export"], { env });
		expect(piped.status).toBe(0);
		expect(piped.stdout.trim().split("\n").slice(1, -1)).toEqual(lines.slice(1, -1).filter((l) => !l.includes('"type":"vector"')));
		expect(piped.stderr).toMatch(/Exported 2 nodes, 1 relations/);

		const dry = cli(b, "import", file, "--dry-run");
		expect(dry.status, dry.stderr).toBe(0);
		expect(dry.json()).toMatchObject({ dryRun: true, nodes: { created: 2 } });
		expect(cli(b, "search", "invoices").json<{ results: unknown[] }>().results).toEqual([]);

		const imported = cli(b, "import", file);
		expect(imported.status, imported.stderr).toBe(0);
		expect(imported.json()).toMatchObject({ nodes: { created: 2, updated: 0 }, relations: 1, vectors: { stored: 2 } });
		// The new memory took the file's standalone identity: its owner sees the nodes.
		const found = cli(b, "search", "invoices").json<{ results: { name: string }[] }>();
		expect(found.results.map((r) => r.name)).toContain("Billing Portal");
		expect(cli(b, "verify").status).toBe(0);

		const again = cli(b, "import", file);
		expect(again.status).toBe(2);
		expect(again.stderr).toMatch(/already holds 2 nodes.*--merge/);
		expect(cli(b, "import", file, "--merge").status).toBe(0);
	}, 300_000);

	it("refuses a cut file, naming it, and leaves the memory as it was", () => {
		const a = join(dir.path, "a.db");
		const b = join(dir.path, "b.db");
		expect(cli(a, "remember", "--label", "Technology", "--name", "Python").status).toBe(0);
		const file = join(dir.path, "memory.ndjson");
		expect(cli(a, "export", file).status).toBe(0);
		const text = readFileSync(file, "utf8");
		writeFileSync(file, text.slice(0, text.length - 30));
		const result = runCli(["--db", b, "import", file], { env });
		expect(result.status).toBe(2);
		expect(result.stderr).toContain(file);
		expect(result.stderr).toMatch(/not valid JSON|cut short/);
		expect(cli(b, "search", "python").json<{ results: unknown[] }>().results).toEqual([]);
		const missing = runCli(["--db", b, "import", join(dir.path, "nope.ndjson")], { env });
		expect(missing.status).toBe(2);
		expect(missing.stderr).toMatch(/No file at .*nope\.ndjson/);
		expect(existsSync(join(dir.path, "nope.ndjson"))).toBe(false);
	}, 300_000);
});
