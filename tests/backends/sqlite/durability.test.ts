import { spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "../../../src/config/engrama-config";
import { openMemory } from "../../../src/nodejs/open-memory";
import { bundleForNode } from "../../helpers/bundle";
import { makeTempDir } from "../../helpers/temp-dir";

/** Starts the writer fixture and tracks the writes it acknowledged. */
function startWriter(bundle: string, db: string, count: number) {
	const child = spawn(process.execPath, [bundle, db, String(count)], { stdio: "pipe" });
	const acks: number[] = [];
	let stderr = "";
	let buffered = "";
	const waiters: (() => void)[] = [];
	child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
		buffered += chunk;
		const lines = buffered.split("\n");
		buffered = lines.pop() ?? "";
		for (const line of lines) {
			const match = /^ACK (\d+)$/.exec(line);
			if (match) acks.push(Number(match[1]));
		}
		waiters.splice(0).forEach((w) => w());
	});
	child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
	const until = (predicate: () => boolean) =>
		new Promise<void>((resolve, reject) => {
			const check = () => (predicate() ? resolve() : waiters.push(check));
			child.on("exit", () => (predicate() ? resolve() : reject(new Error(`writer exited early: ${stderr}`))));
			check();
		});
	const exited = new Promise((resolve) => child.on("exit", resolve));
	return { child, acks, until, exited };
}

describe("durability of the file-backed memory", () => {
	const dir = makeTempDir("engrama-durability-");
	let bundle: string;
	beforeAll(() => {
		bundle = bundleForNode(join(__dirname, "..", "..", "fixtures", "processes", "memory-writer.ts"));
	});
	afterAll(() => dir.cleanup());

	it("keeps every acknowledged remember after the writer is killed with SIGKILL", async () => {
		const db = join(dir.path, "killed.db");
		const writer = startWriter(bundle, db, 100_000);
		await writer.until(() => writer.acks.length >= 150);
		writer.child.kill("SIGKILL");
		await writer.exited;
		const acked = [...writer.acks];
		expect(acked.length).toBeGreaterThanOrEqual(150);

		// The killed process's lock is stale; reopening takes it over.
		const opened = await openMemory(parseConfig({ backend: "sqlite", dbPath: db }));
		try {
			for (const i of acked) {
				const node = await opened.memory.get(opened.scope, "Concept", `Acked ${i}`);
				expect(node?.props.description, `acknowledged write ${i}`).toBe(`write number ${i}`);
			}
			const last = acked[acked.length - 1];
			const hits = await opened.memory.searchFulltext(opened.scope, `number ${last}`, { limit: 1 });
			expect(hits[0]?.name).toBe(`Acked ${last}`);
		} finally {
			await opened.close();
		}
	});

	it("refuses a second writer with an error naming the file and the holder, and reopens after a clean close", async () => {
		const db = join(dir.path, "locked.db");
		const writer = startWriter(bundle, db, 1);
		await writer.until(() => writer.acks.length >= 1);
		try {
			const attempt = openMemory(parseConfig({ backend: "sqlite", dbPath: db }));
			await expect(attempt).rejects.toThrow(db);
			await expect(attempt).rejects.toThrow(String(writer.child.pid));
		} finally {
			writer.child.stdin.end();
			await writer.exited;
		}
		const opened = await openMemory(parseConfig({ backend: "sqlite", dbPath: db }));
		expect(await opened.memory.get(opened.scope, "Concept", "Acked 0")).not.toBeNull();
		await opened.close();
	});
});
