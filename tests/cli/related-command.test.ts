import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RELATED_VAULT } from "../fixtures/related-vault";
import { writeNote } from "../mcp/mcp-harness";
import { runCli } from "../helpers/run-cli";
import { makeTempDir } from "../helpers/temp-dir";

// Each test starts CLI processes: generous timeouts for a loaded machine.
const CLI_TIMEOUT = 120_000;

describe("engrama related <note>", () => {
	let dir: ReturnType<typeof makeTempDir>;
	let vault: string;
	const cli = (...args: string[]) => runCli(["--db", join(dir.path, "memory.db"), "--vault", vault, ...args]);

	beforeAll(() => {
		dir = makeTempDir("engrama-cli-related-");
		vault = join(dir.path, "vault");
		for (const [path, text] of Object.entries(RELATED_VAULT)) writeNote(vault, path, text);
		const synced = cli("sync", "--no-export");
		expect(synced.status, synced.stderr).toBe(0);
	}, CLI_TIMEOUT);
	afterAll(() => dir.cleanup());

	it("prints the related notes not yet linked, each with its shared passage, and the linked ones apart", () => {
		const r = cli("related", "Rendering.md");
		expect(r.status, r.stderr).toBe(0);
		const [related, linked] = r.stdout.split("Already linked:");
		expect(related).toMatch(/^Related, not yet linked:/);
		expect(related).toContain("  Charts.md");
		expect(related).toContain("  Typesetting.md");
		expect(related).toMatch(/\*\*\w+\*\*/);
		expect(related).not.toContain("Reading list.md");
		expect(linked).toContain("  Reading list.md (LINKS_TO, in)");
	}, CLI_TIMEOUT);

	it("answers JSON with --json, takes a name, and exits 3 for a note it does not know", () => {
		const r = runCli(["--db", join(dir.path, "memory.db"), "--vault", vault, "--json", "related", "Typesetting", "--limit", "1"]);
		expect(r.status, r.stderr).toBe(0);
		expect(r.json<{ related: { path: string }[] }>().related.map((n) => n.path)).toEqual(["Rendering.md"]);
		const missing = cli("related", "Nowhere.md");
		expect(missing.status).toBe(3);
		expect(missing.stdout).toMatch(/No note "Nowhere\.md"/);
	}, CLI_TIMEOUT);
});
