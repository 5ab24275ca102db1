import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/engrama-config";
import { openMemory } from "../../src/nodejs/open-memory";
import { makeTempDir } from "../helpers/temp-dir";
import { connectClient, ok, startBridge, type Bridge } from "./mcp-harness";

// Concurrent remembers over the real HTTP bridge share commits (group commit), and every one
// acknowledged is in the file when it is opened again.
describe("group commit over the HTTP bridge", () => {
	let dir: ReturnType<typeof makeTempDir>;
	let bridge: Bridge | undefined;
	let release: (() => void) | undefined;

	beforeEach(() => {
		dir = makeTempDir("engrama-group-http-");
	});
	afterEach(async () => {
		release?.();
		await bridge?.close();
		dir.cleanup();
	});

	it("commits remembers from 8 clients that arrive together in one group; each is durable", async () => {
		bridge = await startBridge({ dir: dir.path, embedder: null });
		const memory = bridge.opened.memory;
		const clients = await Promise.all(Array.from({ length: 8 }, () => connectClient(bridge!.url, bridge!.token)));

		// Hold the write queue so that the requests below are all waiting when it frees.
		const gate = new Promise<void>((resolve) => (release = resolve));
		const held = memory.write(() => gate);
		const before = memory.writeStats;
		const names = Array.from({ length: 16 }, (_, i) => `Grouped ${String(i).padStart(2, "0")}`);
		const calls = names.map((name, i) =>
			ok<{ created: boolean }>(clients[i % clients.length], "engrama_remember", { label: "Concept", properties: { name, summary: `summary of ${name}` } }),
		);
		for (let waited = 0; memory.writeStats.waiting < names.length; waited++) {
			if (waited > 3000) throw new Error(`only ${memory.writeStats.waiting} of ${names.length} remembers reached the write queue`);
			await new Promise((resolve) => setTimeout(resolve, 10));
		}
		release?.();
		await held;
		const results = await Promise.all(calls);
		expect(results.every((r) => r.created)).toBe(true);
		const after = memory.writeStats;
		// The holding job's group took every waiting remember: one commit for 17 jobs.
		expect(after.groups - before.groups).toBe(1);
		expect(after.jobs - before.jobs).toBe(names.length + 1);

		await Promise.all(clients.map((c) => c.close()));
		await bridge.close();
		bridge = undefined;

		const reopened = await openMemory(parseConfig({ backend: "sqlite", dbPath: join(dir.path, "memory.db"), profile: "base" }), { embedder: null });
		try {
			for (const name of names) {
				const node = await reopened.memory.get(reopened.scope, "Concept", name);
				expect(node?.props.summary).toBe(`summary of ${name}`);
			}
		} finally {
			await reopened.close();
		}
	});
});
