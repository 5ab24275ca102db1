import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeTempDir } from "../helpers/temp-dir";

const BIN = join(__dirname, "..", "..", "bin", "engrama.mjs");

describe("the command line's code cache (bin/engrama.mjs)", () => {
	let temp: ReturnType<typeof makeTempDir>;
	beforeEach(() => {
		temp = makeTempDir("engrama-code-cache-");
	});
	afterEach(() => temp.cleanup());

	const run = (...args: string[]) =>
		execFileSync(process.execPath, [BIN, "--db", join(temp.path, "m.db"), ...args], {
			env: { ...process.env, ENGRAMA_CODE_CACHE_DIR: join(temp.path, "cache"), ENGRAMA_DB_PATH: "", VAULT_PATH: "", EMBEDDING_PROVIDER: "none" },
			encoding: "utf8",
		});
	const caches = () => (existsSync(join(temp.path, "cache")) ? readdirSync(join(temp.path, "cache")) : []);

	it("is written by the first command, apart from a bare --help's, and commands answer the same with it", () => {
		const help = () => execFileSync(process.execPath, [BIN, "--help"], { env: { ...process.env, ENGRAMA_CODE_CACHE_DIR: join(temp.path, "cache") }, encoding: "utf8" });
		const firstHelp = help();
		const flags = caches();
		expect(flags).toHaveLength(1);
		expect(flags[0]).toMatch(/-flags\.v8$/);
		expect(help()).toBe(firstHelp);
		expect(run("remember", "--label", "Concept", "--name", "Cached")).toContain('Created Concept "Cached"');
		const [file] = caches().filter((f) => !flags.includes(f));
		expect(file).toMatch(new RegExp(`^cli-[A-Z0-9]+-${process.version.replace(/\./g, "\\.")}-${process.arch}-oneshot\\.v8$`));
		// The command's cache holds what a command compiles: more than --help's.
		expect(statSync(join(temp.path, "cache", file)).size).toBeGreaterThan(statSync(join(temp.path, "cache", flags[0])).size);
		const written = statSync(join(temp.path, "cache", file)).mtimeMs;
		expect(run("get", "--label", "Concept", "--name", "Cached")).toContain('Concept "Cached"');
		// Accepted: not written again.
		expect(statSync(join(temp.path, "cache", file)).mtimeMs).toBe(written);
		expect(caches().sort()).toEqual([file, ...flags].sort());
	});

	it("a damaged cache is refused by V8 and written anew; the command still runs", () => {
		run("remember", "--label", "Concept", "--name", "First");
		const [file] = caches();
		writeFileSync(join(temp.path, "cache", file), "not a code cache");
		expect(run("get", "--label", "Concept", "--name", "First")).toContain('Concept "First"');
		expect(readFileSync(join(temp.path, "cache", file)).length).toBeGreaterThan(100_000);
	});
});
