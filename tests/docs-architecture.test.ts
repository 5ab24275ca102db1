import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * docs/ARCHITECTURE.md's map ("Where things are") against the tree: every source file is named in
 * its folder's row (or its folder's row says it holds one file per something, which covers them
 * all), and every file the map names exists. A rename or a new file without its line fails here.
 */

const ROOT = join(__dirname, "..");

/** A row of the map: the folder it speaks of, the files it names, the prefixes (`openai-…`) and whether it covers its whole folder. */
interface MapRow {
	readonly folder: string;
	readonly names: readonly string[];
	readonly prefixes: readonly string[];
	readonly wholeFolder: boolean;
}

/** The folder a row's first cell names: `src/engine/`, `engine/skills/`, `src/main.ts`, "plugin: engine host". */
function folderOf(cell: string): { folder: string; file?: string } {
	const ticked = /`([^`]+)`/.exec(cell)?.[1];
	const named = ticked ?? (/^(\w+):/.exec(cell.trim())?.[1] ?? "");
	const path = named.startsWith("src/") ? named : `src/${named}`;
	if (path.endsWith(".ts")) return { folder: path.slice(0, path.lastIndexOf("/") + 1), file: path };
	return { folder: path.endsWith("/") ? path : `${path}/` };
}

/** The rows of the "Where things are" table (the row beside src/ speaks of the rest of the repository). */
export function mapRows(markdown: string): MapRow[] {
	const section = markdown.split(/^## /m).find((s) => s.startsWith("Where things are")) ?? "";
	return section
		.split("\n")
		.filter((line) => line.startsWith("| ") && !line.startsWith("| folder") && !line.includes("beside `src/`"))
		.map((line) => {
			const [, first, rest] = line.split("|");
			const { folder, file } = folderOf(first);
			const ticks = [...rest.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
			return {
				folder,
				names: [...(file ? [file] : []), ...ticks.filter((t) => /^[\w./-]+\.(?:ts|mjs)$/.test(t))],
				prefixes: ticks.filter((t) => /^[\w/-]+…$/.test(t)).map((t) => t.slice(0, -1)),
				wholeFolder: /one file per/.test(rest),
			};
		});
}

/** Where a name in a row lands: beside the row's folder, or from src/ (`plugin/settings.ts` in another row). */
function candidates(row: MapRow, name: string): string[] {
	return name.startsWith("src/") ? [name] : [`${row.folder}${name}`, `src/${name}`];
}

/** Source files (declaration companions `.d.mts` travel with their `.mjs`). */
function sourceFiles(dir: string): string[] {
	return readdirSync(dir).flatMap((name) => {
		const path = join(dir, name);
		if (statSync(path).isDirectory()) return sourceFiles(path);
		return /\.(?:ts|mjs)$/.test(name) && !/\.d\.m?ts$/.test(name) ? [relative(ROOT, path).split(sep).join("/")] : [];
	});
}

/** Files of the tree the map does not place, and names in the map that are not files. */
export function mapGaps(rows: readonly MapRow[], files: readonly string[]): { unnamed: string[]; missing: string[] } {
	const exists = new Set(files);
	const named = new Set<string>();
	const missing: string[] = [];
	for (const row of rows) {
		for (const name of row.names) {
			const found = candidates(row, name).find((c) => exists.has(c));
			if (found) named.add(found);
			else missing.push(`${row.folder}: ${name}`);
		}
		for (const prefix of row.prefixes) {
			const matching = files.filter((f) => f.startsWith(`${row.folder}${prefix}`));
			if (matching.length === 0) missing.push(`${row.folder}: ${prefix}…`);
			for (const f of matching) named.add(f);
		}
	}
	const covered = (file: string) =>
		named.has(file) || rows.some((r) => r.wholeFolder && file.startsWith(r.folder) && !file.slice(r.folder.length).includes("/"));
	return { unnamed: files.filter((f) => !covered(f)), missing };
}

describe("docs/ARCHITECTURE.md names every source file", () => {
	it("catches an unnamed file, a renamed one and a folder that covers its files (synthetic)", () => {
		const markdown = [
			"## Where things are",
			"| folder | what it holds |",
			"|---|---|",
			"| `src/engine/` | `memory.ts` (`Memory`), `gone.ts`, HTTP providers (`openai-…`) |",
			"| `mcp/tools/` | one file per tool |",
			"| plugin: host | `engine-host.ts`, `ui/welcome.ts` |",
			"## Import rules",
			"| `src/cli/` | `cli.ts` |",
		].join("\n");
		const files = ["src/engine/memory.ts", "src/engine/openai-provider.ts", "src/engine/new.ts", "src/mcp/tools/remember.ts", "src/mcp/tools/deep/x.ts", "src/plugin/engine-host.ts", "src/plugin/ui/welcome.ts", "src/cli/cli.ts"];
		expect(mapGaps(mapRows(markdown), files)).toEqual({
			unnamed: ["src/engine/new.ts", "src/mcp/tools/deep/x.ts", "src/cli/cli.ts"],
			missing: ["src/engine/: gone.ts"],
		});
	});

	it("places every file of src/, and every file it names exists", () => {
		const rows = mapRows(readFileSync(join(ROOT, "docs/ARCHITECTURE.md"), "utf8"));
		expect(rows.length).toBeGreaterThan(30);
		expect(mapGaps(rows, sourceFiles(join(ROOT, "src")))).toEqual({ unnamed: [], missing: [] });
	});
});
