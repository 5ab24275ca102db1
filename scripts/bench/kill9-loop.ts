/**
 * kill -9 loop: `engrama serve` under MCP write load is killed with SIGKILL at a random moment,
 * TRIALS times per mode. After each kill the memory is reopened: every acknowledged write must be
 * there and PRAGMA integrity_check must say ok. Writes refused while a native reader had the file
 * open (database_in_use) were never acknowledged and are counted apart.
 *
 * Modes:
 * - plain: remembers only.
 * - reader: a native SQLite reader (python3's sqlite3, as the sqlite3 shell, DB Browser or a Python
 *   script) opens, queries and closes the file every ~40 ms; each close checkpoints and deletes the WAL.
 * - readonly: the same reader opened read-only (`sqlite3 -readonly`), which leaves `-shm` behind.
 * - vault: `serve --vault`, each write an entity created and at once updated (summary "first",
 *   then "second"); an acknowledged update must be the value after the kill, and after the
 *   person's next `engrama sync` of the vault too.
 *
 * `--engine` picks serve's SQLite engine (native, the default of serve where it loads, or wasm);
 * `--reopen` the engine that reopens and checks the file afterwards (default: the same).
 *
 *   npm run bench -- kill9-loop [--trials 20] [--clients 2] [--min-ms 1500] [--max-ms 3500] [--modes plain,reader,readonly,vault] [--engine native|wasm] [--reopen native|wasm]
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { openNativeDatabase } from "../../src/backends/sqlite/native/open-native";
import { openDatabase } from "../../src/backends/sqlite/wasm/open-database";
import { parseConfig } from "../../src/config/engrama-config";
import { openMemory } from "../../src/nodejs/open-memory";
import { arg } from "./args";
import { connectClient, loadAverage, startServe } from "./serve-process";

type Mode = "plain" | "reader" | "readonly" | "vault";
const TRIALS = Number(arg("trials", "20"));
const CLIENTS = Number(arg("clients", "2"));
const MIN_MS = Number(arg("min-ms", "1500"));
const MAX_MS = Number(arg("max-ms", "3500"));
const MODES = arg("modes", "plain,reader,readonly,vault").split(",") as Mode[];
const ENGINE = arg("engine", "native") as "native" | "wasm";
const REOPEN = arg("reopen", ENGINE) as "native" | "wasm";

// Opens, queries and closes the file until stdin closes: each read-write close checkpoints and
// deletes the WAL; a read-only one leaves -shm behind.
const READER_LOOP = `
import sqlite3, sys, time, select
uri = sys.argv[2] == "ro"
while not select.select([sys.stdin], [], [], 0)[0]:
    c = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True) if uri else sqlite3.connect(sys.argv[1])
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
	/** vault: acknowledged updates that read as the first value after the person's next sync. */
	lostAfterSync: number;
	integrity: string;
	/** Restore copies left beside the database after the restart. */
	leftovers: number;
}

function text(result: CallToolResult): string {
	return result.content.map((c) => (c.type === "text" ? c.text : "")).join(" ");
}

async function trial(index: number, mode: Mode): Promise<Trial> {
	const dir = mkdtempSync(join(tmpdir(), "engrama-kill9-"));
	const db = join(dir, "memory.db");
	const vault = join(dir, "vault");
	if (mode === "vault") mkdirSync(vault);
	const serve = await startServe(["--db", db, ...(mode === "vault" ? ["--vault", vault] : [])], { EMBEDDING_PROVIDER: "none", ENGRAMA_SQLITE_ENGINE: ENGINE });
	const acked: string[] = [];
	let refused = 0;
	let otherErrors = 0;
	let dead = false;
	const clients = await Promise.all(Array.from({ length: CLIENTS }, () => connectClient(serve.url, serve.token, "kill9")));
	let reader: ChildProcess | undefined;
	if (mode === "reader" || mode === "readonly") reader = spawn("python3", ["-c", READER_LOOP, db, mode === "readonly" ? "ro" : "rw"], { stdio: ["pipe", "ignore", "inherit"] });
	let counter = 0;
	const remember = async (client: Client, name: string, summary: string): Promise<boolean> => {
		const result = (await client.callTool({ name: "engrama_remember", arguments: { label: "Concept", properties: { name, summary } } })) as CallToolResult;
		if (!result.isError) return true;
		if (text(result).includes("database_in_use")) refused++;
		else otherErrors++;
		return false;
	};
	const writers = clients.map(async (client) => {
		while (!dead) {
			const name = `Trial ${index} write ${counter++}`;
			try {
				if (mode !== "vault") {
					if (await remember(client, name, `acknowledged ${name}`)) acked.push(name);
				} else if ((await remember(client, name, "first")) && (await remember(client, name, "second"))) {
					acked.push(name);
				}
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

	const lost = await countLost(db, acked, mode);
	let lostAfterSync = 0;
	if (mode === "vault") {
		// The person's next sync of the vault, with the real command line.
		const sync = spawnSync(process.execPath, [join("bin", "engrama.mjs"), "--db", db, "--vault", vault, "sync", "--json"], {
			env: { ...process.env, EMBEDDING_PROVIDER: "none", ENGRAMA_SQLITE_ENGINE: REOPEN, ENGRAMA_DB_PATH: "", VAULT_PATH: "" },
			encoding: "utf8",
		});
		if (sync.status !== 0) console.log(`  engrama sync failed: ${sync.stderr}`);
		lostAfterSync = await countLost(db, acked, mode);
	}
	const raw = REOPEN === "native" ? (await openNativeDatabase({ path: db })).conn : await openDatabase({ path: db });
	const integrity = String(raw.get<{ integrity_check: string }>("PRAGMA integrity_check")?.integrity_check);
	raw.close();
	const leftovers = readdirSync(dir).filter((name) => name.includes("engrama-restore")).length;
	rmSync(dir, { recursive: true, force: true });
	return { acked: acked.length, refused, otherErrors, lost, lostAfterSync, integrity, leftovers };
}

/** Acknowledged writes missing from the reopened memory (vault: or holding the first value). */
async function countLost(db: string, acked: readonly string[], mode: Mode): Promise<number> {
	const opened = await openMemory(parseConfig({ backend: "sqlite", sqliteEngine: REOPEN, dbPath: db, embedding: { provider: "none" } }), { embedder: null });
	let lost = 0;
	for (const name of acked) {
		const node = await opened.memory.get(opened.scope, "Concept", name);
		if (!node || (mode === "vault" && node.props.summary !== "second")) lost++;
	}
	await opened.close();
	return lost;
}

async function main(): Promise<void> {
	console.log(`kill -9 loop: serve on ${ENGINE} SQLite, reopened on ${REOPEN}; ${TRIALS} trials per mode, ${CLIENTS} MCP clients, kill after ${MIN_MS}-${MAX_MS} ms; load ${loadAverage()}`);
	for (const mode of MODES) {
		const totals = { acked: 0, refused: 0, otherErrors: 0, lost: 0, lostAfterSync: 0, integrityOk: 0, trialsLosing: 0, leftovers: 0 };
		for (let i = 0; i < TRIALS; i++) {
			const t = await trial(i, mode);
			totals.acked += t.acked;
			totals.refused += t.refused;
			totals.otherErrors += t.otherErrors;
			totals.lost += t.lost;
			totals.lostAfterSync += t.lostAfterSync;
			totals.leftovers += t.leftovers;
			if (t.lost + t.lostAfterSync > 0) totals.trialsLosing++;
			if (t.integrity === "ok") totals.integrityOk++;
			const after = mode === "vault" ? `, lost after the next sync ${t.lostAfterSync}` : "";
			console.log(`  ${mode} #${i + 1}: acknowledged ${t.acked}, lost ${t.lost}${after}, refused ${t.refused}, other errors ${t.otherErrors}, integrity ${t.integrity}, restore copies left ${t.leftovers}`);
		}
		const after = mode === "vault" ? `, ${totals.lostAfterSync} lost after the next sync` : "";
		console.log(
			`${mode}: ${TRIALS} trials, ${totals.acked} acknowledged writes, ${totals.lost} lost${after} (in ${totals.trialsLosing} trials), ` +
				`${totals.refused} refused (database_in_use), ${totals.otherErrors} other errors, integrity ok ${totals.integrityOk}/${TRIALS}, ` +
				`restore copies left ${totals.leftovers}; load ${loadAverage()}`,
		);
	}
}

await main();
