import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../../../src/backends/sqlite/wasm/open-database";
import { bundleChild, startChild } from "./child-process";
import { makeTempDir } from "./temp-dir";
import { requireTool } from "../../../helpers/system-tools";

const TRANSACTIONS = 200;
const KILL_AFTER_ACKS = 100;

describe("durability under SIGKILL", () => {
	let temp: ReturnType<typeof makeTempDir>;
	let bundle: string;
	beforeAll(async () => {
		temp = makeTempDir("engrama-crash-");
		bundle = await bundleChild(temp.dir);
	});
	afterAll(() => temp.cleanup());

	it("keeps every acknowledged commit when the writer is killed mid-stream", async () => {
		const path = temp.file("crash.db");
		const child = startChild(bundle, ["acks", path, String(TRANSACTIONS)], temp.dir);
		await child.waitFor(new RegExp(`^ACK ${KILL_AFTER_ACKS - 1}$`));
		child.process.kill("SIGKILL");
		await child.exited;

		// Every ACK the child printed (including any still in the pipe) followed a commit.
		const acked = child.lines.filter((line) => line.startsWith("ACK ")).map((line) => Number(line.slice(4)));
		expect(acked.length).toBeGreaterThanOrEqual(KILL_AFTER_ACKS);
		expect(acked.length).toBeLessThan(TRANSACTIONS);
		expect(child.lines).not.toContain("DONE");

		const db = await openDatabase({ path });
		try {
			const rows = new Set(db.all<{ i: number }>("SELECT i FROM ack").map((row) => row.i));
			expect(acked.filter((i) => !rows.has(i))).toEqual([]);
			// At most the one transaction in flight at the kill may also be there.
			expect(rows.size - acked.length).toBeLessThanOrEqual(1);
			const vectors = db.get<{ n: number }>("SELECT count(*) AS n FROM ack_vec");
			expect(vectors?.n).toBe(rows.size);
			expect(db.get("PRAGMA integrity_check")).toEqual({ integrity_check: "ok" });
		} finally {
			db.close();
		}
	});

	it("fsyncs the directory once after creating the WAL, so the new file's name survives a power cut", () => {
		// strace (apt-get install strace; .ci/run does) shows the real system calls of a child. Only its
		// main thread (no -f), where the VFS's synchronous fs calls run: with Node's other threads traced
		// too, a busy machine splits calls into "<unfinished ...>" / "<... resumed>" lines.
		const path = temp.file("dirsync.db");
		const trace = temp.file("dirsync.strace");
		const run = spawnSync(requireTool("strace"), ["-s", "4096", "-e", "trace=openat,fsync,fdatasync", "-o", trace, process.execPath, bundle, "acks", path, "2"], {
			encoding: "utf8",
		});
		expect(run.error).toBeUndefined();
		expect(run.stdout).toContain("DONE");
		const calls = readFileSync(trace, "utf8").split("\n");
		const walCreated = calls.findIndex((line) => line.includes(`"${path}.engrama-wal", O_RDWR|O_CREAT`));
		expect(walCreated).toBeGreaterThan(0);
		const dirOpen = calls.slice(walCreated).map((line) => new RegExp(`openat\\(AT_FDCWD, "${temp.dir}", O_RDONLY[^)]*\\) = (\\d+)`).exec(line)).find(Boolean);
		expect(dirOpen, "the directory is opened after the WAL is created").toBeTruthy();
		expect(calls.slice(walCreated).some((line) => line.includes(`fsync(${dirOpen![1]})`))).toBe(true);
	});
});
