/**
 * kill -9 loop: `engrama serve` under MCP write load is killed with SIGKILL at a random moment,
 * TRIALS times without and TRIALS times with a native SQLite reader (python3's sqlite3, as the
 * sqlite3 shell, DB Browser or a Python script) opening, querying and closing the file in a loop.
 * After each kill the memory is reopened: every acknowledged write must be there and
 * PRAGMA integrity_check must say ok. Writes refused while the reader had the file open
 * (database_in_use) are counted apart: they were never acknowledged.
 *
 * `--engine` picks serve's SQLite engine (native, the default of serve where it loads, or wasm);
 * `--reopen` the engine that reopens and checks the file afterwards (default: the same).
 *
 *   npm run bench -- kill9-loop [--trials 20] [--clients 2] [--min-ms 1500] [--max-ms 3500] [--modes plain,reader] [--engine native|wasm] [--reopen native|wasm]
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { openNativeDatabase } from "../../src/backends/sqlite/native/open-native";
import { openDatabase } from "../../src/backends/sqlite/wasm/open-database";
import { parseConfig } from "../../src/config/engrama-config";
import { openMemory } from "../../src/node/open-memory";
import { arg } from "./args";
import { connectClient, loadAverage, startServe } from "./serve-process";

const TRIALS = Number(arg("trials", "20"));
const CLIENTS = Number(arg("clients", "2"));
const MIN_MS = Number(arg("min-ms", "1500"));
const MAX_MS = Number(arg("max-ms", "3500"));
const MODES = arg("modes", "plain,reader").split(",") as ("plain" | "reader")[];
const ENGINE = arg("engine", "native") as "native" | "wasm";
const REOPEN = arg("reopen", ENGINE) as "native" | "wasm";

// Opens, queries and closes the file until stdin closes: each close checkpoints and deletes the WAL.
const READER_LOOP = `
import sqlite3, sys, time, select
while not select.select([sys.stdin], [], [], 0)[0]:
    c = sqlite3.connect(sys.argv[1])
    c.execute("SELECT count(*) FROM nodes").fetchone()
    time.sleep(0.01)
    c.close()
    time.sleep(0.03)
`;

interface Trial {
	acked: number;
	refused: number;
	otherErrors: number;
	lost: number;
	integrity: string;
}



async function trial(index: number, withReader: boolean): Promise<Trial> {
	const dir = mkdtempSync(join(tmpdir(), "engrama-kill9-"));
	const db = join(dir, "memory.db");
	const serve = await startServe(["--db", db], { EMBEDDING_PROVIDER: "none", ENGRAMA_SQLITE_ENGINE: ENGINE });
	const acked: string[] = [];
	let refused = 0;
	let otherErrors = 0;
	let dead = false;
	const clients = await Promise.all(Array.from({ length: CLIENTS }, () => connectClient(serve.url, serve.token, "kill9")));
	let reader: ChildProcess | undefined;
	if (withReader) reader = spawn("python3", ["-c", READER_LOOP, db], { stdio: ["pipe", "ignore", "inherit"] });
	let counter = 0;
	const writers = clients.map(async (client) => {
		while (!dead) {
			const name = `Trial ${index} write ${counter++}`;
			try {
				const result = (await client.callTool({ name: "engrama_remember", arguments: { label: "Concept", properties: { name, description: `acknowledged ${name}` } } })) as CallToolResult;
				const text = result.content.map((c) => (c.type === "text" ? c.text : "")).join(" ");
				if (!result.isError) acked.push(name);
				else if (text.includes("database_in_use")) refused++;
				else otherErrors++;
			} catch {
				// The connection died with the server: that call was never acknowledged.
				if (!dead) otherErrors++;
			}
		}
	});
	await new Promise((resolve) => setTimeout(resolve, MIN_MS + Math.random() * (MAX_MS - MIN_MS)));
	dead = true;
	serve.child.kill("SIGKILL");
	await serve.exited;
	await Promise.allSettled(writers);
	if (reader) {
		// A clean stop between iterations: its last close checkpoints whatever it saw.
		reader.stdin!.end();
		await new Promise((resolve) => reader.once("exit", resolve));
	}
	await Promise.allSettled(clients.map((c) => c.close()));

	const raw = REOPEN === "native" ? (await openNativeDatabase({ path: db })).conn : await openDatabase({ path: db });
	const integrity = String(raw.get<{ integrity_check: string }>("PRAGMA integrity_check")?.integrity_check);
	raw.close();
	const opened = await openMemory(parseConfig({ backend: "sqlite", sqliteEngine: REOPEN, dbPath: db, embedding: { provider: "none" } }), { embedder: null });
	let lost = 0;
	for (const name of acked) if (!(await opened.memory.get(opened.scope, "Concept", name))) lost++;
	await opened.close();
	rmSync(dir, { recursive: true, force: true });
	return { acked: acked.length, refused, otherErrors, lost, integrity };
}


async function main(): Promise<void> {
	console.log(`kill -9 loop: serve on ${ENGINE} SQLite, reopened on ${REOPEN}; ${TRIALS} trials per mode, ${CLIENTS} MCP clients, kill after ${MIN_MS}-${MAX_MS} ms; load ${loadAverage()}`);
	for (const mode of MODES) {
		const totals = { acked: 0, refused: 0, otherErrors: 0, lost: 0, integrityOk: 0 };
		for (let i = 0; i < TRIALS; i++) {
			const t = await trial(i, mode === "reader");
			totals.acked += t.acked;
			totals.refused += t.refused;
			totals.otherErrors += t.otherErrors;
			totals.lost += t.lost;
			if (t.integrity === "ok") totals.integrityOk++;
			console.log(`  ${mode} #${i + 1}: acknowledged ${t.acked}, lost ${t.lost}, refused ${t.refused}, other errors ${t.otherErrors}, integrity ${t.integrity}`);
		}
		console.log(
			`${mode}: ${TRIALS} trials, ${totals.acked} acknowledged writes, ${totals.lost} lost, ${totals.refused} refused (database_in_use), ` +
				`${totals.otherErrors} other errors, integrity ok ${totals.integrityOk}/${TRIALS}`,
		);
	}
	console.log(`load ${loadAverage()}`);
}

await main();
