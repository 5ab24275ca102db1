import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Help } from "commander";
import { describe, expect, it } from "vitest";
import { COMMANDS } from "../../src/cli/command-table";
import { loadProgram } from "../../src/cli/main";
import { buildProgram } from "../../src/cli/program";

const ROOT = join(__dirname, "..", "..");

interface Loaded {
	packages: string[];
	wasmModules: number;
	builtins: string[];
}

/** What `engrama <args>` loaded: npm packages required, WebAssembly modules compiled, Node built-ins. */
function loadedBy(args: readonly string[]): Loaded {
	const dir = mkdtempSync(join(tmpdir(), "engrama-lazy-"));
	try {
		const out = join(dir, "loaded.json");
		execFileSync(process.execPath, ["--import", join(ROOT, "tests", "fixtures", "processes", "loaded-packages.mjs"), join(ROOT, "bin", "engrama.mjs"), ...args.map((a) => a.replace("$DIR", dir))], {
			env: { ...process.env, ENGRAMA_LOADED_OUT: out, ENGRAMA_DB_PATH: "", VAULT_PATH: "", EMBEDDING_PROVIDER: "none", ENGRAMA_SQLITE_ENGINE: "" },
			encoding: "utf8",
		});
		return JSON.parse(readFileSync(out, "utf8")) as Loaded;
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

describe("the command line loads only the command it runs", () => {
	it("lists every command as the full program does: same top-level help", async () => {
		const help = new Help();
		const full = buildProgram();
		expect(COMMANDS.map((c) => [c.name, c.term, c.description])).toEqual(full.commands.map((c) => [c.name(), help.subcommandTerm(c), c.description()]));
		expect((await loadProgram(["--help"])).helpInformation()).toBe(full.helpInformation());
	});

	it("registers the named command for real: its help and options are the full program's", async () => {
		const full = buildProgram();
		for (const { name } of COMMANDS) {
			const lazy = await loadProgram(["--db", "x.db", name, "--help"]);
			const expected = full.commands.find((c) => c.name() === name)!;
			expect(lazy.commands.find((c) => c.name() === name)?.helpInformation(), name).toBe(expected.helpInformation());
			expect(lazy.helpInformation(), name).toBe(full.helpInformation());
		}
		const viaHelp = await loadProgram(["help", "remember"]);
		expect(viaHelp.commands.find((c) => c.name() === "remember")?.options.map((o) => o.long)).toContain("--props");
	});

	it("--help and --version load no package from node_modules; remember loads no driver, MCP SDK, model runtime or WASM", () => {
		// commander (like chrono-node, yaml and zod) is bundled: Node would otherwise resolve it file by file.
		expect(loadedBy(["--help"])).toMatchObject({ packages: [], wasmModules: 0 });
		expect(loadedBy(["--version"])).toMatchObject({ packages: [], wasmModules: 0 });
		// Native SQLite is required when the memory opens; the WASM engine (bundled, its module
		// evaluated only when chosen) compiles nothing.
		const remember = loadedBy(["--db", "$DIR/m.db", "remember", "--label", "Concept", "--name", "Lazy"]);
		expect(remember.wasmModules).toBe(0);
		// Only native SQLite's addon: better-sqlite3's and sqlite-vec's JavaScript are bundled (the addon
		// named to it, so no `bindings` lookup), as is fflate (its web build: no worker_threads); no
		// driver, MCP SDK or model runtime.
		expect(remember.packages).toEqual(["better-sqlite3"]);
		expect(remember.builtins).not.toContain("worker_threads");
		// The WASM engine when asked for: one module compiled.
		expect(loadedBy(["--db", "$DIR/m.db", "--sqlite-engine", "wasm", "remember", "--label", "Concept", "--name", "Lazy"]).wasmModules).toBe(1);
	});

	it("a bare --help or --version runs a bundle of its own, under a tenth of the commands' one, and prints what the full program prints", () => {
		const { bundle, flags } = JSON.parse(readFileSync(join(ROOT, "dist", "cli.json"), "utf8")) as { bundle: string; flags?: string };
		expect(flags).toMatch(/^cli-\w+\.cjs$/);
		expect(statSync(join(ROOT, "dist", flags!)).size).toBeLessThan(statSync(join(ROOT, "dist", bundle)).size / 10);
		const cache = mkdtempSync(join(tmpdir(), "engrama-flags-"));
		try {
			const run = (...args: string[]) => execFileSync(process.execPath, [join(ROOT, "bin", "engrama.mjs"), ...args], { env: { ...process.env, ENGRAMA_CODE_CACHE_DIR: cache }, encoding: "utf8" });
			const full = buildProgram();
			expect(run("--help")).toBe(full.helpInformation());
			// The built bundles carry manifest.json's version (under vitest the sources say 0.0.0-dev).
			expect(run("--version")).toBe(`${(JSON.parse(readFileSync(join(ROOT, "manifest.json"), "utf8")) as { version: string }).version}\n`);
			// The code cache is named after the bundle that ran.
			expect(readdirSync(cache)).toEqual([`${flags!.replace(/\.cjs$/, "")}-${process.version}-${process.arch}-flags.v8`]);
		} finally {
			rmSync(cache, { recursive: true, force: true });
		}
	});

	it("both bundles are ASCII, read as Latin-1, and the non-ASCII words in them still match: a Spanish date is found", () => {
		const manifest = JSON.parse(readFileSync(join(ROOT, "dist", "cli.json"), "utf8")) as { bundle: string; flags: string; ascii?: boolean };
		expect(manifest.ascii).toBe(true);
		for (const name of [manifest.bundle, manifest.flags]) expect(readFileSync(join(ROOT, "dist", name)).every((byte) => byte < 0x80), name).toBe(true);
		const dir = mkdtempSync(join(tmpdir(), "engrama-ascii-"));
		try {
			const remember = (summary: string) =>
				JSON.parse(
					execFileSync(process.execPath, [join(ROOT, "bin", "engrama.mjs"), "--db", join(dir, "m.db"), "--json", "remember", "--label", "Concept", "--name", summary, "--props", JSON.stringify({ summary, valid_from: "2024-05-10" })], {
						env: { ...process.env, ENGRAMA_DB_PATH: "", VAULT_PATH: "", EMBEDDING_PROVIDER: "none", ENGRAMA_CODE_CACHE_DIR: join(dir, "cache") },
						encoding: "utf8",
					}),
				) as { node: { props: { mentioned_dates?: string[] } } };
			// "mañana" (chrono-node's pattern holds the ñ) and "miércoles" (the prefilter's word list).
			expect(remember("Lo vemos mañana").node.props.mentioned_dates).toEqual(["2024-05-11"]);
			expect(remember("Nos vimos el miércoles").node.props.mentioned_dates).toHaveLength(1);
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});
});
