// The memory is private: other local users can read neither the folder nor any file the engine
// creates beside the database. Modes are read with stat from a real `engrama serve`.
import { mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectClient, ok } from "../mcp/mcp-harness";
import { spawnServe, type ServeProcess } from "../mcp/serve-process";
import { makeTempDir } from "../helpers/temp-dir";

const TEST_TIMEOUT_MS = 120_000;

function mode(path: string): number {
	return statSync(path).mode & 0o777;
}

async function serveAndWrite(env: NodeJS.ProcessEnv, args: string[] = []): Promise<ServeProcess> {
	const serve = await spawnServe(args, { EMBEDDING_PROVIDER: "none", ...env });
	const client = await connectClient(serve.info.url, serve.token);
	await ok(client, "engrama_remember", { label: "Decision", properties: { title: "Keep it private", summary: "Only the owner reads the memory." } });
	await client.close();
	return serve;
}

async function stop(serve: ServeProcess): Promise<void> {
	serve.child.kill("SIGTERM");
	await serve.exited();
}

describe("file modes of the memory", () => {
	const temp = makeTempDir("engrama-modes-");
	let previousUmask: number;
	beforeAll(() => {
		// The common default: group and others could read whatever is created with 0644/0755.
		previousUmask = process.umask(0o022);
	});
	afterAll(() => {
		process.umask(previousUmask);
		temp.cleanup();
	});

	it("creates ~/.engrama 0700 and the database, WAL, lock and token files 0600", async () => {
		const home = join(temp.path, "fresh-home");
		mkdirSync(home);
		const serve = await serveAndWrite({ HOME: home });
		try {
			const dir = join(home, ".engrama");
			expect(mode(dir).toString(8)).toBe("700");
			for (const file of ["engrama.db", "engrama.db-wal", "engrama.db.lock", "engrama.db.mcp-token"]) {
				expect(mode(join(dir, file)).toString(8), file).toBe("600");
			}
		} finally {
			await stop(serve);
		}
	}, TEST_TIMEOUT_MS);

	it("tightens an existing ~/.engrama made 0755 by an earlier version, but leaves a folder the user chose alone", async () => {
		const home = join(temp.path, "old-home");
		mkdirSync(join(home, ".engrama"), { recursive: true, mode: 0o755 });
		const own = await serveAndWrite({ HOME: home });
		await stop(own);
		expect(mode(join(home, ".engrama")).toString(8)).toBe("700");

		const shared = join(temp.path, "shared");
		mkdirSync(shared, { mode: 0o755 });
		const custom = await serveAndWrite({ HOME: home }, ["--db", join(shared, "team.db")]);
		try {
			expect(mode(shared).toString(8)).toBe("755");
			expect(mode(join(shared, "team.db")).toString(8)).toBe("600");
		} finally {
			await stop(custom);
		}
	}, TEST_TIMEOUT_MS);
});
