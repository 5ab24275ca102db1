import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { lastWorkerWarmUp } from "../../src/backends/sqlite/wasm/load-sqlite";
import { main } from "../../src/cli/main";

// The warm-up (load-sqlite.ts) exists for Obsidian's UI thread; the command line has none and
// skips it (0.17 s of CPU per command). The plugin side keeps it: tests/plugin (lastWorkerWarmUp).
describe("the command line opens SQLite without the UI warm-up", () => {
	const dir = mkdtempSync(join(tmpdir(), "engrama-one-shot-"));
	afterAll(() => rmSync(dir, { recursive: true, force: true }));

	it("remember and get through the CLI's own entry on the WASM engine, warm-up off", async () => {
		const db = join(dir, "memory.db");
		const writes: string[] = [];
		const stdout = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
			writes.push(String(chunk));
			return true;
		});
		try {
			await main(["node", "engrama", "--db", db, "--sqlite-engine", "wasm", "--json", "remember", "--label", "Concept", "--name", "One shot"]);
			await main(["node", "engrama", "--db", db, "--sqlite-engine", "wasm", "--json", "get", "--label", "Concept", "--name", "One shot"]);
		} finally {
			stdout.mockRestore();
		}
		expect(process.exitCode ?? 0).toBe(0);
		expect(lastWorkerWarmUp).toBe("off");
		expect(writes.join("")).toContain('"name": "One shot"');
	});
});
