// One memory file, two programs: the real Python engrama 0.18.1 (PyPI) and this project's command
// line open each other's SQLite file. The Python side runs from .venv-engrama-py, which .ci/run
// creates with scripts/engrama-py-venv.sh; when it is missing the test runs that script itself
// (PyPI), and fails with the script's error if it cannot.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { SCHEMA_VERSION } from "../../src/backends/sqlite/schema";
import { openDatabase } from "../../src/backends/sqlite/wasm/open-database";
import { runCli } from "../helpers/run-cli";
import { makeTempDir } from "../helpers/temp-dir";

const ROOT = join(__dirname, "..", "..");
const VENV = process.env.ENGRAMA_PY_VENV ?? join(ROOT, ".venv-engrama-py");
const PYTHON = join(VENV, "bin", "python");
const DRIVER = join(__dirname, "engrama-py-driver.py");

interface PySees {
	identity: { org_id: string; user_id: string };
	fulltext: string[];
	node: Record<string, unknown> | null;
	neighbours: { rel: string[]; name: string }[];
	vector: { key: string; score: number }[];
	user_version: number;
}

interface SearchJson {
	results: { name: string; scores: { vector: number; vector_rank: number | null } }[];
}

let embedder: ChildProcess;
let embedderUrl = "";

/** No identity from this machine's environment: each program must find the owner in the file. */
function baseEnv(): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = { ...process.env };
	for (const key of Object.keys(env)) if (/^(ENGRAMA_|OPENAI_|EMBEDDING_|GRAPH_BACKEND|VECTOR_BACKEND|VAULT_PATH)/.test(key)) delete env[key];
	return { ...env, EMBEDDING_PROVIDER: "openai", OPENAI_BASE_URL: embedderUrl, EMBEDDING_MODEL: "fake", EMBEDDING_DIMENSIONS: "4" };
}

function python(args: string[], env: NodeJS.ProcessEnv = {}): string {
	const run = spawnSync(PYTHON, [DRIVER, ...args], { encoding: "utf8", env: { ...baseEnv(), ...env }, timeout: 120_000 });
	if (run.status !== 0) throw new Error(`engrama-py ${args[0]} failed (${run.status}): ${run.error?.message ?? ""}${run.stderr}`);
	return run.stdout;
}

function pyReads(db: string, env: NodeJS.ProcessEnv = {}): PySees {
	return JSON.parse(python(["read", db, "xylo"], env)) as PySees;
}

function cli(db: string, args: string[]) {
	const run = runCli(["--db", db, "--json", ...args], { env: baseEnv() });
	expect(run.status, run.stderr).toBe(0);
	return run.json();
}

async function fileFacts(db: string): Promise<{ userVersion: number; schemaVersion: string | undefined; vectorTable: string | undefined }> {
	const conn = await openDatabase({ path: db, readonly: true });
	try {
		return {
			userVersion: Number(conn.get<{ user_version: number }>("PRAGMA user_version")?.user_version),
			schemaVersion: conn.get<{ value: string }>("SELECT value FROM engrama_meta WHERE key = 'schema_version'")?.value,
			vectorTable: conn.get<{ sql: string }>("SELECT sql FROM sqlite_master WHERE name = 'node_embeddings'")?.sql,
		};
	} finally {
		conn.close();
	}
}

beforeAll(async () => {
	// A fresh clone has no venv yet: make it (PyPI), so `npm test` alone runs this test for real.
	if (!existsSync(PYTHON)) {
		const made = spawnSync("bash", [join(ROOT, "scripts", "engrama-py-venv.sh")], { encoding: "utf8", env: { ...process.env, ENGRAMA_PY_VENV: VENV }, timeout: 600_000 });
		expect(made.status, `scripts/engrama-py-venv.sh could not install the Python engrama 0.18.1 in ${VENV}:\n${made.stderr}`).toBe(0);
	}
	expect(
		existsSync(PYTHON),
		`The Python engrama 0.18.1 is not installed in ${VENV}. Run scripts/engrama-py-venv.sh (as .ci/run does), then this test again.`,
	).toBe(true);
	const version = spawnSync(PYTHON, ["-c", "import importlib.metadata as m; print(m.version('engrama'))"], { encoding: "utf8" });
	expect(version.stdout.trim(), `${VENV} has another engrama: run scripts/engrama-py-venv.sh`).toBe("0.18.1");
	embedder = spawn(process.execPath, [join(__dirname, "fake-embedder.mjs")], { stdio: ["ignore", "pipe", "inherit"] });
	const port = await new Promise<string>((resolve, reject) => {
		embedder.once("error", reject);
		embedder.stdout?.once("data", (chunk: Buffer) => resolve(/port (\d+)/.exec(chunk.toString())?.[1] ?? ""));
	});
	embedderUrl = `http://127.0.0.1:${port}/v1`;
}, 720_000);

afterAll(() => {
	embedder?.kill();
});

describe("a memory written by engrama-py 0.18.1, opened here", () => {
	let dir: ReturnType<typeof makeTempDir>;
	beforeEach(() => {
		dir = makeTempDir("engrama-interop-");
	});
	afterEach(() => dir.cleanup());

	it("shows its nodes, relations, provenance and vectors (cosine) with no identity set, and engrama-py still reads it after", async () => {
		const db = join(dir.path, "memory.db");
		python(["write", db]);
		// engrama-py's standalone owner: a UUID it keeps beside the file, as org and user.
		const owner = readFileSync(join(dir.path, "local_sub"), "utf8").trim();

		const status = cli(db, ["status"]) as { backend: { node_count: number; edge_count: number }; identity: Record<string, string> };
		expect(status.identity).toEqual({ org_id: owner, user_id: owner });
		expect(status.backend).toMatchObject({ node_count: 2, edge_count: 1 });

		const got = cli(db, ["get", "--label", "Project", "--name", "Zeppelin"]) as { node: { props: Record<string, unknown> } };
		expect(got.node.props).toMatchObject({ description: "Route planner for airships", notes: "Airship fleet planning", source: "sdk", trust_level: 0.8 });
		const context = cli(db, ["context", "--label", "Project", "--name", "Zeppelin", "--hops", "1"]);
		expect(JSON.stringify(context)).toContain("Yonder");
		expect(JSON.stringify(context)).toContain("USES");

		// Only the vector channel matches "xylo": cosine ranks the long vector first (similarity 1),
		// L2 read as cosine would put Yonder first.
		const search = cli(db, ["search", "xylo"]) as unknown as SearchJson;
		expect(search.results.map((r) => r.name)).toEqual(["Zeppelin", "Yonder"]);
		expect(search.results[0].scores.vector).toBeCloseTo(1, 4);
		expect(search.results[1].scores.vector).toBeCloseTo(Math.SQRT1_2, 4);

		// Our layer's version sits in engrama_meta; user_version still says the Python layout (3).
		const facts = await fileFacts(db);
		expect(facts).toMatchObject({ userVersion: 3, schemaVersion: String(SCHEMA_VERSION) });
		expect(facts.vectorTable).toMatch(/distance_metric=cosine/);

		// A write here lands under the same owner, so engrama-py sees it as its own.
		cli(db, ["remember", "--label", "Technology", "--name", "Xylo Engine"]);
		cli(db, ["relate", "Project", "Zeppelin", "USES", "Technology", "Xylo Engine"]);
		const seen = pyReads(db);
		expect(seen.identity).toEqual({ org_id: owner, user_id: owner });
		expect(seen.fulltext).toContain("Zeppelin");
		expect(seen.neighbours.map((n) => n.name).sort()).toEqual(["Xylo Engine", "Yonder"]);
		// Its `1 - distance` scores are now the cosine similarities it meant.
		const zeppelin = seen.vector.find((v) => v.key === "Zeppelin");
		expect(zeppelin?.score).toBeCloseTo(1, 4);
		expect(seen.user_version).toBe(3);
		expect((await fileFacts(db)).schemaVersion).toBe(String(SCHEMA_VERSION));
	}, 240_000);
});

describe("a memory written here, opened by engrama-py 0.18.1", () => {
	let dir: ReturnType<typeof makeTempDir>;
	beforeEach(() => {
		dir = makeTempDir("engrama-interop-");
	});
	afterEach(() => dir.cleanup());

	it("is read and written by engrama-py under this memory's identity (nodes, relations, fulltext, cosine vectors), and its writes are read here", async () => {
		const db = join(dir.path, "memory.db");
		cli(db, ["remember", "--label", "Project", "--name", "Zeppelin", "--props", JSON.stringify({ description: "Route planner for airships" })]);
		cli(db, ["remember", "--label", "Technology", "--name", "Yonder", "--props", JSON.stringify({ description: "Telemetry library" })]);
		cli(db, ["relate", "Project", "Zeppelin", "USES", "Technology", "Yonder"]);
		const identity = (cli(db, ["status"]) as { identity: { org_id: string; user_id: string } }).identity;
		expect(await fileFacts(db)).toMatchObject({ userVersion: 3, schemaVersion: String(SCHEMA_VERSION) });

		// Without the ids engrama-py runs as its own standalone owner and sees none of it (documented).
		const stranger = pyReads(db);
		expect(stranger.fulltext).toEqual([]);
		expect(stranger.node).toBeNull();

		const seen = pyReads(db, { ENGRAMA_ORG_ID: identity.org_id, ENGRAMA_USER_ID: identity.user_id });
		expect(seen.fulltext.sort()).toEqual(["Yonder", "Zeppelin"]);
		expect(seen.node).toMatchObject({ name: "Zeppelin", description: "Route planner for airships", source: "cli" });
		expect(seen.neighbours).toEqual([{ rel: ["USES"], name: "Yonder" }]);
		expect(seen.vector.map((v) => v.key)).toEqual(["Zeppelin", "Yonder"]);
		expect(seen.vector[0].score).toBeCloseTo(1, 4);
		expect(seen.vector[1].score).toBeCloseTo(Math.SQRT1_2, 4);

		// What engrama-py writes into it under that identity is ours to read too.
		python(["add", db], { ENGRAMA_ORG_ID: identity.org_id, ENGRAMA_USER_ID: identity.user_id });
		const quokka = cli(db, ["get", "--label", "Technology", "--name", "Quokka"]) as { node: { props: Record<string, unknown> } };
		expect(quokka.node.props).toMatchObject({ description: "Queue for airship telemetry", source: "sdk" });
		const found = cli(db, ["search", "telemetry"]) as unknown as SearchJson;
		expect(found.results.map((r) => r.name)).toContain("Quokka");

		// engrama-py set user_version to its 3 and recreated an index; neither changes what we read.
		expect(await fileFacts(db)).toMatchObject({ userVersion: 3, schemaVersion: String(SCHEMA_VERSION) });
		const again = cli(db, ["status"]) as { backend: { node_count: number; edge_count: number }; identity: unknown };
		expect(again).toMatchObject({ backend: { node_count: 3, edge_count: 2 }, identity });
		expect((cli(db, ["verify"]) as { ok: boolean }).ok).toBe(true);
	}, 240_000);
});

describe("note passages synced here, their node purged by engrama-py 0.18.1", () => {
	let dir: ReturnType<typeof makeTempDir>;
	beforeEach(() => {
		dir = makeTempDir("engrama-interop-");
	});
	afterEach(() => dir.cleanup());

	it("engrama-py opens the file (contentless passage index, deflated text), and the next open here takes the purged note's words out of the index", async () => {
		const db = join(dir.path, "memory.db");
		const vault = join(dir.path, "vault");
		mkdirSync(vault, { recursive: true });
		writeFileSync(join(vault, "Zeppelin.md"), "---\nengrama_label: Project\n---\n# Zeppelin\n\nOcelotquill routes.\n\n## Fleet\n\nThe ocelotquill fleet flies north.\n");
		writeFileSync(join(vault, "Yonder.md"), "---\nengrama_label: Technology\n---\n# Yonder\n\nTelemetry of the quokkafleet.\n");
		const inVault = (...args: string[]) => runCli(["--db", db, "--vault", vault, "--json", ...args], { env: baseEnv() });
		expect(inVault("sync").status).toBe(0);
		const identity = (cli(db, ["status"]) as { identity: { org_id: string; user_id: string } }).identity;
		const ids = { ENGRAMA_ORG_ID: identity.org_id, ENGRAMA_USER_ID: identity.user_id };
		const found = (word: string) => (cli(db, ["search", word]) as unknown as SearchJson).results.map((r) => r.name);
		expect(found("ocelotquill")).toContain("Zeppelin");

		expect(pyReads(db, ids).node).toMatchObject({ name: "Zeppelin" });
		expect(JSON.parse(python(["purge", db, "Project", "Zeppelin"], ids))).toMatchObject({ matched: true });

		// The next open here un-indexes what the cascade took (a search opens the file).
		expect(found("ocelotquill")).not.toContain("Zeppelin");
		expect(found("quokkafleet")).toContain("Yonder");
		const conn = await openDatabase({ path: db });
		try {
			// Rows, not count(*): fts5vocab counts a term whose every posting was deleted but not yet merged away.
			expect(conn.all("SELECT term, doc FROM passages_fts_vocab WHERE term IN ('ocelotquill', 'quokkafleet')")).toEqual([{ term: "quokkafleet", doc: 1 }]);
			expect(conn.get<{ n: number }>("SELECT count(*) AS n FROM note_passage_text_gone")?.n).toBe(0);
			conn.run("INSERT INTO passages_fts(passages_fts) VALUES ('integrity-check')");
		} finally {
			conn.close();
		}
		// engrama-py leaves the vectors of what it deletes (vec0 does not cascade; verify --fix removes them): nothing else.
		const checks = runCli(["--db", db, "--json", "verify"], { env: baseEnv() }).json<{ checks: { check: string; ok: boolean }[] }>().checks;
		expect(checks.filter((c) => !c.ok).map((c) => c.check)).toEqual(["vector_orphans"]);
	}, 240_000);
});
