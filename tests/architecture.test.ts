import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(__dirname, "..");

function sourceFiles(dir: string): string[] {
	return readdirSync(dir).flatMap((name) => {
		const path = join(dir, name);
		if (statSync(path).isDirectory()) return sourceFiles(path);
		return name.endsWith(".ts") ? [path] : [];
	});
}

function importsOf(file: string): string[] {
	const text = readFileSync(file, "utf8");
	const specs = [...text.matchAll(/(?:import|export)\s[^;]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)|require\(\s*["']([^"']+)["']\s*\)/g)];
	return specs.map((m) => m[1] ?? m[2] ?? m[3]).filter((s): s is string => !!s);
}

const NODE_BUILTIN = /^(node:|fs$|path$|os$|url$|crypto$|child_process$|http$|net$|module$)/;

describe("layering", () => {
	it("keeps src/engine free of obsidian, Node built-ins, the MCP SDK, neo4j-driver and outer layers", () => {
		const offenders: string[] = [];
		for (const file of sourceFiles(join(ROOT, "src", "engine"))) {
			for (const spec of importsOf(file)) {
				const outer = spec.startsWith(".") && relative(join(ROOT, "src", "engine"), join(dirname(file), spec)).startsWith("..");
				if (
					spec === "obsidian" ||
					NODE_BUILTIN.test(spec) ||
					spec.startsWith("@modelcontextprotocol/") ||
					spec === "neo4j-driver" ||
					outer
				) {
					offenders.push(`${relative(ROOT, file)} imports ${spec}`);
				}
			}
		}
		expect(offenders).toEqual([]);
	});

	it("keeps src/backends below the Node helpers, MCP, command line and plugin", () => {
		const outer = ["node", "mcp", "cli", "plugin", "main.ts"].map((name) => join(ROOT, "src", name));
		const offenders = sourceFiles(join(ROOT, "src", "backends")).flatMap((file) =>
			importsOf(file)
				.filter((spec) => spec.startsWith(".") && outer.some((dir) => { const target = join(dirname(file), spec); return target === dir || target.startsWith(`${dir}/`) || `${target}.ts` === dir; }))
				.map((spec) => `${relative(ROOT, file)} imports ${spec}`),
		);
		expect(offenders).toEqual([]);
	});

	it("keeps obsidian imports inside the plugin adapter and main.ts", () => {
		const offenders = sourceFiles(join(ROOT, "src"))
			.filter((file) => !relative(ROOT, file).startsWith("src/plugin/") && relative(ROOT, file) !== "src/main.ts")
			.filter((file) => importsOf(file).includes("obsidian"))
			.map((file) => relative(ROOT, file));
		expect(offenders).toEqual([]);
	});

	it("keeps SQL and Cypher inside backends", () => {
		const offenders = sourceFiles(join(ROOT, "src"))
			.filter((file) => !relative(ROOT, file).startsWith("src/backends/"))
			.filter((file) => /\b(SELECT\s+\S+\s+FROM|INSERT INTO|MATCH \(|DETACH DELETE)\b/.test(readFileSync(file, "utf8")))
			.map((file) => relative(ROOT, file));
		expect(offenders).toEqual([]);
	});
});
