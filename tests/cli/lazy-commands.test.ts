import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { Help } from "commander";
import { describe, expect, it } from "vitest";
import { COMMANDS } from "../../src/cli/command-table";
import { loadProgram } from "../../src/cli/main";
import { buildProgram } from "../../src/cli/program";

const DIST = join(__dirname, "..", "..", "dist");

/** npm packages a built file loads before it runs (static imports, through its chunks). */
function staticPackages(file: string, seen = new Set<string>(), packages = new Set<string>()): Set<string> {
	if (seen.has(file)) return packages;
	seen.add(file);
	for (const match of readFileSync(file, "utf8").matchAll(/^import\s+(?:[^;]*?\s+from\s+)?["']([^"']+)["'];?/gm)) {
		const spec = match[1];
		if (spec.startsWith(".")) staticPackages(resolve(dirname(file), spec), seen, packages);
		else if (!spec.startsWith("node:")) packages.add(spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0]);
	}
	return packages;
}

/** The chunk `dist/cli.mjs` imports dynamically for a command module, e.g. memory-commands. */
function chunkOf(module: string): string {
	const name = new RegExp(`\\./chunks/${module}-[A-Z0-9]+\\.mjs`).exec(readFileSync(join(DIST, "cli.mjs"), "utf8"))?.[0];
	if (!name) throw new Error(`no chunk for ${module} in dist/cli.mjs`);
	return join(DIST, name);
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

	it("--help and --version load no package from node_modules; remember loads no driver, MCP SDK or model runtime", () => {
		// commander (like chrono-node, yaml and zod) is bundled: Node would otherwise resolve it file by file.
		expect([...staticPackages(join(DIST, "cli.mjs"))]).toEqual([]);
		// Neither SQLite engine loads before the memory opens: native SQLite through require when the
		// engine is chosen, the WASM engine's 760 kB of JavaScript only when it is (or native cannot load).
		const remember = staticPackages(chunkOf("memory-commands"));
		expect([...remember].sort()).toEqual([]);
		for (const heavy of ["sqlite-vec-wasm-demo", "neo4j-driver", "@modelcontextprotocol/sdk", "@huggingface/transformers", "onnxruntime-web", "@energetic-ai/embeddings"]) {
			expect(remember.has(heavy), heavy).toBe(false);
		}
	});
});
