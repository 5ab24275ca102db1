import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { spawnSync } from "node:child_process";
import { openDatabase } from "../../../../src/backends/sqlite/wasm/open-database";
import { DatabaseLockedError } from "../../../../src/backends/sqlite/wasm/errors";
import { bundleChild, runChild, startChild, type RunningChild } from "./child-process";
import { makeTempDir } from "./temp-dir";

describe("database lock across processes", () => {
	let build: ReturnType<typeof makeTempDir>;
	let bundle: string;
	let temp: ReturnType<typeof makeTempDir>;
	const children: RunningChild[] = [];

	beforeAll(async () => {
		build = makeTempDir("engrama-lock-bundle-");
		bundle = await bundleChild(build.dir);
	});
	afterAll(() => build.cleanup());
	beforeEach(() => {
		temp = makeTempDir();
	});
	afterEach(async () => {
		for (const child of children.splice(0)) {
			child.process.kill("SIGKILL");
			await child.exited;
		}
		temp.cleanup();
	});

	function hold(path: string): RunningChild {
		const child = startChild(bundle, ["hold", path], temp.dir);
		children.push(child);
		return child;
	}

	it("refuses a second writer process, naming the file and the PID that holds it", async () => {
		const path = temp.file("engrama.db");
		const holder = hold(path);
		await holder.waitFor(/^READY/);
		const pid = holder.process.pid!;

		const error = await openDatabase({ path }).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(DatabaseLockedError);
		expect((error as DatabaseLockedError).holderPid).toBe(pid);
		expect((error as Error).message).toContain(path);
		expect((error as Error).message).toContain(`process ${pid}`);
		expect((error as Error).message).toMatch(/Close the other Engrama instance/);

		const [line] = await runChild(bundle, ["try-open", path], temp.dir);
		expect(line).toMatch(new RegExp(`^ERROR DatabaseLockedError: .*process ${pid}`));
	});

	it("takes over the lock of a writer that was killed", async () => {
		const path = temp.file("engrama.db");
		const holder = hold(path);
		await holder.waitFor(/^READY/);
		holder.process.kill("SIGKILL");
		await holder.exited;
		expect(existsSync(`${path}.lock`)).toBe(true);

		const db = await openDatabase({ path });
		expect((JSON.parse(readFileSync(`${path}.lock`, "utf8")) as { pid: number }).pid).toBe(process.pid);
		db.close();
	});

	it("takes over a lock file whose PID no longer exists", async () => {
		const path = temp.file("engrama.db");
		const deadPid = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]).stdout.toString();
		writeFileSync(`${path}.lock`, JSON.stringify({ pid: Number(deadPid), host: hostname(), createdAt: "2020-01-01T00:00:00Z", token: "old" }));
		const db = await openDatabase({ path });
		expect(db.get("SELECT 1 AS ok")).toEqual({ ok: 1 });
		db.close();
		expect(existsSync(`${path}.lock`)).toBe(false);
	});

	it("treats a lock held on another machine as live", async () => {
		const path = temp.file("engrama.db");
		writeFileSync(`${path}.lock`, JSON.stringify({ pid: 1, host: "other-laptop", createdAt: "2024-05-01T10:00:00Z", token: "x" }));
		const error = await openDatabase({ path }).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(DatabaseLockedError);
		expect((error as Error).message).toContain("other-laptop");
	});

	it("releases the lock when the process exits without closing", async () => {
		const path = temp.file("engrama.db");
		const lines = await runChild(bundle, ["exit-without-close", path], temp.dir);
		expect(lines).toContain("OPENED");
		expect(existsSync(`${path}.lock`)).toBe(false);
	});
});
