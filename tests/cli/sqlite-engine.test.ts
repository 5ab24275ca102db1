// The command line's SQLite engine: native where it loads, WASM where it does not (health says
// which and why), and either one on request.
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/run-cli";
import { makeTempDir } from "../helpers/temp-dir";

const NO_NATIVE = { NODE_OPTIONS: `--import ${join(__dirname, "..", "fixtures", "processes", "no-native-sqlite.mjs")}` };

// Four or five command line processes, some compiling WASM: tens of seconds on a loaded 2-core machine.
const CLI_RUNS_MS = 180_000;

interface Health {
	backend: { ok: boolean; nodes: number; engine: string | null };
}

describe("the command line's SQLite engine", () => {
	let dir: ReturnType<typeof makeTempDir>;
	let db: string;
	beforeEach(() => {
		dir = makeTempDir("engrama-engine-");
		db = join(dir.path, "memory.db");
	});
	afterEach(() => dir.cleanup());

	it("runs native by default; ENGRAMA_SQLITE_ENGINE and --sqlite-engine choose; both read the same memory", () => {
		expect(runCli(["--db", db, "remember", "--label", "Project", "--name", "Alpha"]).status).toBe(0);
		expect(runCli(["--db", db, "--sqlite-engine", "wasm", "remember", "--label", "Project", "--name", "Beta"]).status).toBe(0);
		const native = runCli(["--db", db, "--json", "health", "--port", "9"]).json<Health>();
		expect(native.backend).toMatchObject({ ok: true, nodes: 2, engine: expect.stringMatching(/^native SQLite /) as unknown });
		const wasm = runCli(["--db", db, "--json", "health", "--port", "9"], { env: { ENGRAMA_SQLITE_ENGINE: "wasm" } }).json<Health>();
		expect(wasm.backend).toMatchObject({ ok: true, nodes: 2, engine: expect.stringMatching(/^WASM SQLite 3\.\d+\.\d+$/) as unknown });
		const text = runCli(["--db", db, "--sqlite-engine", "native", "health", "--port", "9"]);
		expect(text.stdout).toMatch(/^Engine: native SQLite 3\.\d+\.\d+ \(better-sqlite3 12\.\d+\.\d+, sqlite-vec 0\.1\.\d+\)$/m);
	}, CLI_RUNS_MS);

	it("falls back to WASM when native SQLite cannot load, and health says why; --sqlite-engine native then refuses", () => {
		const remembered = runCli(["--db", db, "remember", "--label", "Project", "--name", "Alpha"], { env: NO_NATIVE });
		expect(remembered.status, remembered.stderr).toBe(0);
		const health = runCli(["--db", db, "--json", "health", "--port", "9"], { env: NO_NATIVE });
		expect(health.status).toBe(0);
		expect(health.json<Health>().backend.engine).toMatch(/^WASM SQLite 3\.\d+\.\d+; native SQLite is not available \(better-sqlite3 with sqlite-vec: .*different Node\.js version/);

		const forced = runCli(["--db", db, "--sqlite-engine", "native", "get", "--label", "Project", "--name", "Alpha"], { env: NO_NATIVE });
		expect(forced.status).toBe(2);
		expect(forced.stderr).toMatch(/native SQLite is not available .* set ENGRAMA_SQLITE_ENGINE=wasm/);
		expect(runCli(["--db", db, "--sqlite-engine", "bogus", "health"]).stderr).toMatch(/--sqlite-engine must be one of auto, native, wasm; got "bogus"/);
	}, CLI_RUNS_MS);
});
