import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/run-cli";
import { makeTempDir } from "../helpers/temp-dir";

const temps: { cleanup(): void }[] = [];
afterEach(() => {
	for (const t of temps.splice(0)) t.cleanup();
});

// With --vault, an erase from the command line takes the note Engrama wrote with it (a later sync
// would read it back otherwise) and keeps, and names, a note the person changed.
describe("engrama forget --hard with a vault", () => {
	it("removes the note Engrama wrote, keeps the one the person edited, and a sync does not bring the removed one back", () => {
		const temp = makeTempDir("engrama-cli-erase-");
		temps.push(temp);
		const vault = join(temp.path, "vault");
		mkdirSync(vault);
		const cli = (...args: string[]) => runCli(["--vault", vault, "--db", join(temp.path, "memory.db"), ...args]);
		for (const name of ["Gizmoquark", "Fernwhistle"]) expect(cli("remember", "--label", "Project", "--name", name, "--props", '{"description":"x"}').status).toBe(0);
		const edited = join(vault, "Engrama/Project/Fernwhistle.md");
		writeFileSync(edited, `${readFileSync(edited, "utf8")}\nMine now.\n`);
		const gone = cli("forget", "--label", "Project", "--name", "Gizmoquark", "--hard", "--json");
		expect(gone.json<{ notes: unknown }>().notes).toEqual({ removed: 1, kept: 0, kept_paths: [] });
		expect(existsSync(join(vault, "Engrama/Project/Gizmoquark.md"))).toBe(false);
		const kept = cli("forget", "--label", "Project", "--name", "Fernwhistle", "--hard");
		expect(kept.stdout).toContain("kept 1 that you wrote or changed (they still hold it): Engrama/Project/Fernwhistle.md");
		expect(readFileSync(edited, "utf8")).toContain("Mine now.");
		expect(cli("sync", "--json").stdout).not.toContain("Gizmoquark");
		expect(cli("search", "Gizmoquark", "--json").json<{ results: unknown[] }>().results).toEqual([]);
	});
});
