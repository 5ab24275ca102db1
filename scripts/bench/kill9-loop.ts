/**
 * kill -9 loop: `engrama serve` under MCP write load is killed with SIGKILL (or stopped with
 * SIGTERM, `--signals`) at a random moment, TRIALS times per mode, signal and client count. After
 * each stop the memory is reopened: every acknowledged write must be there and PRAGMA
 * integrity_check must say ok. Writes that failed were never acknowledged and are counted apart.
 *
 * Modes:
 * - plain: remembers only.
 * - reader: a native SQLite reader (python3's sqlite3, as the sqlite3 shell, DB Browser or a Python
 *   script) opens, queries and closes the file every ~40 ms; each close checkpoints and deletes the
 *   WAL it knows (`<db>-wal`: native SQLite's; the WASM engine's is `<db>.engrama-wal`).
 * - readonly: the same reader opened read-only (`sqlite3 -readonly`), which leaves `-shm` behind.
 * - vault: `serve --vault`, each write an entity created and at once updated (summary "first",
 *   then "second"); an acknowledged update must be the value after the kill, and after the
 *   person's next `engrama sync` of the vault too.
 *
 * `--engine` picks serve's SQLite engine (native, the default of serve where it loads, or wasm);
 * `--reopen` the engine that reopens and checks the file afterwards (default: the same).
 *
 * `--clients` and `--signals` take lists (`--clients 2,4 --signals KILL,TERM`): every mode runs with
 * each pair. "Malformed" counts trials whose reopen failed (the file damaged beyond opening).
 *
 *   npm run bench -- kill9-loop [--trials 20] [--clients 2] [--signals KILL] [--min-ms 1500] [--max-ms 3500] [--modes plain,reader,readonly,vault] [--engine native|wasm] [--reopen native|wasm]
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
const CLIENT_COUNTS = arg("clients", "2").split(",").map(Number);
const SIGNALS = arg("signals", "KILL").split(",") as ("KILL" | "TERM")[];
// A SIGTERM'd serve closes the memory (a checkpoint); one that has not exited by then is killed and counted.
const TERM_WAIT_MS = 60_000;
const MIN_MS = Number(arg("min-ms", "1500"));
const MAX_MS = Number(arg("max-ms", "3500"));
const MODES = arg("modes", "plain,reader,readonly,vault").split(",") as Mode[];
const ENGINE = arg("engine", "native") as "native" | "wasm";
const REOPEN = arg("reopen", ENGINE) as "native" | "wasm";

// Opens, queries and closes the file until stdin closes: each read-write close checkpoints and
// deletes the WAL it knows; a read-only one leaves -shm behind.
const READER_LOOP = `
import sqlite3, sys, time, select
uri = sys.argv[2] == "ro"
while not select.select([sys.stdin], [], [], 0)[0]:
    c = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True) if uri else sqlite3.connect(sys.argv[1])
    try:
        c.execute("SELECT count(*) FROM nodes").fetchone()
    except sqlite3.DatabaseError:
        # Beside the WASM engine the database is as of its last checkpoint (maybe no tables yet), and a
        # page read during a checkpoint may be torn: the reader's error, not the file's.
        pass
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
	/** The reopen failed: the file is damaged beyond opening (the message is printed). */
	malformed: boolean;
	/** SIGTERM: serve had to be killed after TERM_WAIT_MS. */
	hung: boolean;
}

interface Variant {
	readonly mode: Mode;
	readonly clients: number;
	readonly signal: "KILL" | "TERM";
}

function text(result: CallToolResult): string {
	return result.content.map((c) => (c.type === "text" ? c.text : "")).join(" ");
}

/** Stops serve with the variant's signal; true when a SIGTERM'd serve had to be killed. */
async function stopServe(serve: Awaited<ReturnType<typeof startServe>>, signal: "KILL" | "TERM"): Promise<boolean> {
	serve.child.kill(`SIG${signal}`);
	if (signal === "KILL") {
		await serve.exited;
		return false;
	}
	const timer = new Promise<"hung">((resolve) => setTimeout(() => resolve("hung"), TERM_WAIT_MS).unref());
	if ((await Promise.race([serve.exited, timer])) !== "hung") return false;
	serve.child.kill("SIGKILL");
	await serve.exited;
	return true;
}

async function trial(index: number, { mode, clients: clientCount, signal }: Variant): Promise<Trial> {
	const dir = mkdtempSync(join(tmpdir(), "engrama-kill9-"));
	const db = join(dir, "memory.db");
	const vault = join(dir, "vault");
	if (mode === "vault") mkdirSync(vault);
	const serve = await startServe(["--db", db, ...(mode === "vault" ? ["--vault", vault] : [])], { EMBEDDING_PROVIDER: "none", ENGRAMA_SQLITE_ENGINE: ENGINE });
	const acked: string[] = [];
	let refused = 0;
	let otherErrors = 0;
	let dead = false;
	const clients = await Promise.all(Array.from({ length: clientCount }, () => connectClient(serve.url, serve.token, "kill9")));
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
	const hung = await stopServe(serve, signal);
	await Promise.allSettled(writers);
	if (reader) {
		// A clean stop between iterations: its last close checkpoints whatever it saw.
		reader.stdin!.end();
		await new Promise((resolve) => reader.once("exit", resolve));
	}
	await Promise.allSettled(clients.map((c) => c.close()));

	let lost: number;
	try {
		lost = await countLost(db, acked, mode);
	} catch (error) {
		console.log(`  reopen failed: ${(error as Error).message}`);
		rmSync(dir, { recursive: true, force: true });
		return { acked: acked.length, refused, otherErrors, lost: acked.length, lostAfterSync: 0, integrity: "not opened", leftovers: 0, malformed: true, hung };
	}
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
	return { acked: acked.length, refused, otherErrors, lost, lostAfterSync, integrity, leftovers, malformed: false, hung };
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

async function runVariant(variant: Variant): Promise<void> {
	const { mode, clients, signal } = variant;
	const name = `${mode}, ${clients} clients, SIG${signal}`;
	const totals = { acked: 0, refused: 0, otherErrors: 0, lost: 0, lostAfterSync: 0, integrityOk: 0, trialsLosing: 0, leftovers: 0, malformed: 0, hung: 0 };
	for (let i = 0; i < TRIALS; i++) {
		const t = await trial(i, variant);
		totals.acked += t.acked;
		totals.refused += t.refused;
		totals.otherErrors += t.otherErrors;
		totals.lost += t.lost;
		totals.lostAfterSync += t.lostAfterSync;
		totals.leftovers += t.leftovers;
		if (t.malformed) totals.malformed++;
		if (t.hung) totals.hung++;
		if (t.lost + t.lostAfterSync > 0) totals.trialsLosing++;
		if (t.integrity === "ok") totals.integrityOk++;
		const after = mode === "vault" ? `, lost after the next sync ${t.lostAfterSync}` : "";
		console.log(
			`  ${name} #${i + 1}: acknowledged ${t.acked}, lost ${t.lost}${after}, refused ${t.refused}, other errors ${t.otherErrors}, ` +
				`integrity ${t.integrity}, restore copies left ${t.leftovers}${t.hung ? ", serve did not exit on SIGTERM" : ""}`,
		);
	}
	const after = mode === "vault" ? `, ${totals.lostAfterSync} lost after the next sync` : "";
	console.log(
		`${name}: ${TRIALS} trials, ${totals.acked} acknowledged writes, ${totals.lost} lost${after} (in ${totals.trialsLosing} trials), ` +
			`${totals.refused} refused (database_in_use), ${totals.otherErrors} other errors, integrity ok ${totals.integrityOk}/${TRIALS}, ` +
			`malformed ${totals.malformed}, restore copies left ${totals.leftovers}, SIGTERM not obeyed ${totals.hung}; load ${loadAverage()}`,
	);
}

async function main(): Promise<void> {
	console.log(
		`kill -9 loop: serve on ${ENGINE} SQLite, reopened on ${REOPEN}; ${TRIALS} trials per variant, ${CLIENT_COUNTS.join(" or ")} MCP clients, ` +
			`SIG${SIGNALS.join(" or SIG")} after ${MIN_MS}-${MAX_MS} ms; load ${loadAverage()}`,
	);
	for (const mode of MODES) for (const clients of CLIENT_COUNTS) for (const signal of SIGNALS) await runVariant({ mode, clients, signal });
}

await main();
