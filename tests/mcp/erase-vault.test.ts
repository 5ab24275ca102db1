// Issue 36, item 3, over the real bridge: what GDPR forget erases stays erased. An agent's write
// starts a vault round trip (its note written, then synced back); a forget that lands in the
// middle of it must not be undone by it, in the database, its WAL or the notes.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/engrama-config";
import { openMemory } from "../../src/nodejs/open-memory";
import { makeTempDir } from "../helpers/temp-dir";
import { connectClient, ok, writeNote } from "./mcp-harness";
import { spawnServe } from "./serve-process";

const WORDS = ["Zephyrquill", "zephyrquill", "wobblecrux"];

function filesUnder(dir: string): string[] {
	return readdirSync(dir, { recursive: true, encoding: "utf8" }).map((f) => join(dir, f)).filter((f) => statSync(f).isFile());
}

describe.each(["wasm", "native"] as const)("engrama serve --vault --watch (%s): GDPR forget right after a write", (engine) => {
	let dir: ReturnType<typeof makeTempDir>;
	beforeEach(() => {
		dir = makeTempDir("engrama-erase-");
	});
	afterEach(() => dir.cleanup());

	it("the erased entity never comes back: not in search, not after a restart, not in the files, not in a note; a person's note is kept and named", async () => {
		const vault = join(dir.path, "vault");
		const db = join(dir.path, "memory.db");
		writeNote(vault, "Mine.md", "---\nengrama_label: Project\n---\n# Mine\n\nMy own words.\n");
		const serve = await spawnServe(["--db", db, "--vault", vault, "--sqlite-engine", engine], {}, ["--watch"]);
		let report: { counts: { nodes: number }; notes?: { removed: number; kept: number; kept_paths: string[] } };
		try {
			const client = await connectClient(serve.info.url, serve.token);
			// The person's note becomes a node of this memory (it is theirs: kept, and reported).
			await ok(client, "engrama_sync_note", { path: "Mine.md" });
			await ok(client, "engrama_remember", { label: "Project", properties: { name: "Zephyrquill", summary: "The wobblecrux plan" } });
			report = await ok(client, "engrama_gdpr_forget", { mode: "apply" });
			// Past the round trip (note written, synced back, the watcher's debounce).
			await new Promise((r) => setTimeout(r, 3500));
			const found = await ok<{ results: unknown[] }>(client, "engrama_search", { query: "Zephyrquill wobblecrux" });
			expect(found.results).toEqual([]);
			await client.close();
		} finally {
			serve.child.kill("SIGTERM");
		}
		expect((await serve.exited()).code).toBe(0);
		expect(report.counts.nodes).toBe(2);
		expect(report.notes).toEqual({ removed: 1, kept: 1, kept_paths: ["Mine.md"] });

		const opened = await openMemory(parseConfig({ backend: "sqlite", sqliteEngine: engine, dbPath: db }));
		const nodes = await opened.memory.graph.listNodes(opened.scope, { includeArchived: true, limit: 100 });
		await opened.close();
		expect(nodes.map((n) => n.key)).toEqual([]);
		const bytes = Buffer.concat([db, `${db}-wal`].filter((f) => existsSync(f)).map((f) => readFileSync(f)));
		for (const word of WORDS) expect(bytes.includes(word), word).toBe(false);
		const notes = filesUnder(vault);
		expect(notes.map((f) => f.slice(vault.length + 1))).toEqual(["Mine.md"]);
		for (const note of notes) for (const word of WORDS) expect(readFileSync(note, "utf8")).not.toContain(word);
	}, 120_000);
});
