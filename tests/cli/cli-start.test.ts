// What one `remember` evaluates of the command line's bundle: the modules and packages a command
// does not use stay behind esbuild's lazy wrappers (docs/benchmarks.md, command line start-up). A
// copy of the built bundle records each module's first evaluation (as tests/plugin/main-js-start
// does for main.js) and runs through a copy of bin/engrama.mjs; the assertions are on which modules
// ran, not on timings.
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";

const ROOT = join(__dirname, "..", "..");
let dir = "";

/** bin/engrama.mjs beside a traced copy of dist's command bundle, which writes what it evaluated to $ENGRAMA_EVALUATED_OUT. */
function tracedInstall(into: string): string {
	mkdirSync(join(into, "bin"), { recursive: true });
	mkdirSync(join(into, "dist"));
	copyFileSync(join(ROOT, "bin", "engrama.mjs"), join(into, "bin", "engrama.mjs"));
	for (const shared of ["node_modules", "profiles", "manifest.json", "package.json"]) symlinkSync(join(ROOT, shared), join(into, shared));
	const manifest = JSON.parse(readFileSync(join(ROOT, "dist", "cli.json"), "utf8")) as { bundle: string };
	const record = (key: string) => `__engramaEvaluated.add(__getOwnPropNames(${key})[0]);`;
	let patched = 0;
	const traced = readFileSync(join(ROOT, "dist", manifest.bundle), "latin1")
		.replace(/^var __esm = \((\w+), res\d*, err\d*\) => function __init\(\) \{$/m, (line: string, fn: string) => (patched++, `${line} if (${fn}) ${record(fn)}`))
		.replace(/^var __commonJS = \((\w+), (mod\d*)\) => function __require\(\) \{$/m, (line: string, cb: string, mod: string) => (patched++, `${line} if (!${mod}) ${record(cb)}`))
		.replace(
			/^"use strict";$/m,
			`"use strict";\nconst __engramaEvaluated = new Set();\nprocess.on("exit", () => require("node:fs").writeFileSync(process.env.ENGRAMA_EVALUATED_OUT, JSON.stringify([...__engramaEvaluated])));`,
		);
	if (patched !== 2) throw new Error("esbuild's __esm/__commonJS helpers changed shape: update tracedInstall");
	writeFileSync(join(into, "dist", "cli-traced.cjs"), traced, "latin1");
	writeFileSync(join(into, "dist", "cli.json"), JSON.stringify({ ...manifest, bundle: "cli-traced.cjs" }));
	return join(into, "bin", "engrama.mjs");
}

/** The bundled modules `engrama <args>` evaluated, by path. */
function evaluatedBy(bin: string, args: readonly string[]): string[] {
	const out = join(dir, "evaluated.json");
	execFileSync(process.execPath, [bin, ...args], {
		env: { ...process.env, ENGRAMA_EVALUATED_OUT: out, ENGRAMA_CODE_CACHE_DIR: join(dir, "cache"), ENGRAMA_DB_PATH: "", VAULT_PATH: "", EMBEDDING_PROVIDER: "none", ENGRAMA_SQLITE_ENGINE: "" },
		encoding: "utf8",
	});
	return JSON.parse(readFileSync(out, "utf8")) as string[];
}

let bin = "";
let remember: string[] = [];

beforeAll(() => {
	dir = mkdtempSync(join(tmpdir(), "engrama-cli-start-"));
	bin = tracedInstall(join(dir, "install"));
	const db = join(dir, "memory.db");
	evaluatedBy(bin, ["--db", db, "remember", "--label", "Concept", "--name", "First"]);
	remember = evaluatedBy(bin, ["--db", db, "remember", "--label", "Concept", "--name", "Second", "--props", JSON.stringify({ summary: "one remember" })]);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("the trace sees a remember: the memory commands, the write pipeline, native SQLite's JavaScript", () => {
	for (const path of ["src/cli/commands/memory-commands.ts", "src/engine/write/write-pipeline.ts", "node_modules/better-sqlite3/lib/database.js"]) expect(remember).toContain(path);
});

test("a remember does not evaluate fflate: passages are deflated only by a sync of notes", () => {
	expect(remember.filter((path) => path.includes("node_modules/fflate/"))).toEqual([]);
});

test("chrono-node is evaluated only for text that may hold a date: not for this remember, and then for one that says tomorrow", () => {
	const chrono = (paths: readonly string[]) => paths.filter((path) => path.includes("node_modules/chrono-node/"));
	expect(chrono(remember)).toEqual([]);
	const dated = evaluatedBy(bin, ["--db", join(dir, "memory.db"), "remember", "--label", "Concept", "--name", "Third", "--props", JSON.stringify({ summary: "see you tomorrow" })]);
	expect(chrono(dated).length).toBeGreaterThan(10);
});

test("without a vault, a remember does not evaluate the vault writer or the folder vault", () => {
	expect(remember.filter((path) => path === "src/cli/vault-writer.ts" || path === "src/nodejs/folder-vault-source.ts")).toEqual([]);
});
