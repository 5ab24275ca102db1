import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import neo4j from "neo4j-driver";
import { createNeo4jBackend, testNeo4jConnection, type Neo4jBackend } from "../../../src/backends/neo4j/neo4j-backend";
import { isTransient } from "../../../src/backends/neo4j/neo4j-connection";
import { parseConfig } from "../../../src/config/engrama-config";
import { BackendError } from "../../../src/engine/errors";
import type { MergeNodeInput } from "../../../src/engine/protocols";
import type { Scope } from "../../../src/engine/types";
import { makeTempDir } from "../../helpers/temp-dir";
import { freePort as closedPort } from "../../helpers/free-port";

const run = promisify(execFile);
const ROOT = join(__dirname, "..", "..", "..");
const SCRIPT = join(ROOT, "scripts", "neo4j-test-server.sh");
const BIN = join(ROOT, "bin", "engrama.mjs");
const withServer = (process.env.ENGRAMA_TEST_BACKENDS ?? "").split(",").map((s) => s.trim()).includes("neo4j");
const scope: Scope = { orgId: "acme", userId: "ana" };

const node = (key: string): MergeNodeInput => ({
	label: "Project",
	keyField: "name",
	key,
	set: { name: key, description: `${key} survives outages` },
	setOnCreate: { engrama_id: crypto.randomUUID(), status: "active" },
	now: new Date().toISOString(),
});

describe("which Neo4j failures are retried", () => {
	const error = (code: string) => new neo4j.Neo4jError("x", code, "50N42", "error");
	it("retries an unreachable server, an expired session, the server's transient errors and a transaction it stopped (shutting down)", () => {
		for (const code of ["ServiceUnavailable", "SessionExpired", "Neo.TransientError.Transaction.DeadlockDetected", "Neo.TransientError.General.DatabaseUnavailable", "Neo.ClientError.Transaction.LockClientStopped", "Neo.ClientError.Transaction.Terminated"]) {
			expect(isTransient(error(code)), code).toBe(true);
		}
	});
	it("never retries what would fail again: syntax, constraints, credentials, our own errors", () => {
		const never = [
			"Neo.ClientError.Statement.SyntaxError",
			"Neo.ClientError.Schema.ConstraintValidationFailed",
			"Neo.ClientError.Security.Unauthorized",
			// Transient by Neo4j's classification, but the same transaction needs the same memory again.
			"Neo.TransientError.General.MemoryPoolOutOfMemoryError",
		];
		for (const code of never) {
			expect(isTransient(error(code)), code).toBe(false);
		}
		expect(isTransient(new BackendError("no"))).toBe(false);
		expect(isTransient(new Error("bug"))).toBe(false);
	});
});

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function until(what: string, test: () => boolean, timeoutMs = 60_000): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!test()) {
		if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
		await sleep(25);
	}
}

/** The command line, asynchronously (so a slow run overlaps other work). */
async function cli(args: readonly string[], env: Record<string, string>): Promise<{ status: number; stdout: string; stderr: string }> {
	const result = await run(process.execPath, [BIN, ...args], { env: { ...process.env, ENGRAMA_DB_PATH: "", ...env }, timeout: 60_000 }).catch(
		(e: { code?: number; stdout?: string; stderr?: string }) => ({ ...e, code: e.code ?? -1 }),
	);
	return { status: "code" in result && typeof result.code === "number" ? result.code : 0, stdout: String(result.stdout ?? ""), stderr: String(result.stderr ?? "") };
}

/** One writer: sequential writes (at most one in flight), each acknowledged or reported as failed. */
class Writer {
	readonly acked: { key: string; at: number; ms: number }[] = [];
	readonly failed: { key: string; error: unknown }[] = [];
	private stop = false;
	private loop: Promise<void> = Promise.resolve();

	constructor(
		readonly name: string,
		readonly backend: Neo4jBackend,
	) {}

	start(): void {
		this.loop = (async () => {
			for (let i = 0; !this.stop; i++) {
				const key = `${this.name} ${i}`;
				const t = Date.now();
				try {
					await this.backend.graph.mergeNode(scope, node(key));
					this.acked.push({ key, at: Date.now(), ms: Date.now() - t });
				} catch (error) {
					this.failed.push({ key, error });
				}
				await sleep(20);
			}
		})();
	}

	async finish(): Promise<void> {
		this.stop = true;
		await this.loop;
	}
}

/**
 * Neo4j going away mid-run, on a server of its own (the shared test server keeps serving the
 * other test files), with auth on: wrong credentials and a wrong address at start, then writers
 * running while the server stops and starts again. Started with a JIT-light JVM (and the
 * class-data-sharing archive when `neo4j-test-server.sh cds` made one) to keep the test short.
 */
describe.each(withServer ? ["own server"] : [])("Neo4j outage and recovery (%s)", () => {
	const state = makeTempDir("engrama-neo4j-outage-");
	const env = {
		...process.env,
		NEO4J_TEST_STATE_DIR: state.path,
		NEO4J_TEST_FAST_START: "1",
		NEO4J_TEST_HEAP: "512m",
		NEO4J_TEST_LAUNCHER_ARGS: "--set dbms.security.auth_enabled=true",
	};
	const server = (...args: string[]) => run(SCRIPT, args, { env, timeout: 180_000 });
	const PASSWORD = "engrama-outage-test";
	let uri = "";
	let port = "";
	let unreachableAtStart: Promise<{ status: number; stdout: string; stderr: string; ms: number; uri: string }>;
	const opened: Neo4jBackend[] = [];

	const open = async (maxElapsedMs: number, password = PASSWORD) => {
		const backend = await createNeo4jBackend(parseConfig({ backend: "neo4j", dbPath: ":memory:", neo4j: { uri, password } }), {
			namespace: "outage",
			retry: { maxElapsedMs },
		});
		opened.push(backend);
		return backend;
	};
	const cliEnv = (over: Record<string, string> = {}) => ({ GRAPH_BACKEND: "neo4j", NEO4J_URI: uri, NEO4J_USERNAME: "neo4j", NEO4J_PASSWORD: PASSWORD, NEO4J_DATABASE: "neo4j", ...over });

	beforeAll(async () => {
		// The command line against an address where nothing listens, while our server starts.
		unreachableAtStart = closedPort().then(async (p) => {
			const t = Date.now();
			const wrong = `bolt://127.0.0.1:${p}`;
			const result = await cli(["status"], { GRAPH_BACKEND: "neo4j", NEO4J_URI: wrong, NEO4J_PASSWORD: "" });
			return { ...result, ms: Date.now() - t, uri: wrong };
		});
		await server("start");
		uri = /^NEO4J_URI=(.*)$/m.exec(readFileSync(join(state.path, "env"), "utf8"))?.[1] ?? "";
		port = readFileSync(join(state.path, "port"), "utf8").trim();
		// A fresh server with auth has neo4j/neo4j, which must be changed before any query.
		const driver = neo4j.driver(uri, neo4j.auth.basic("neo4j", "neo4j"));
		try {
			await driver.executeQuery("ALTER CURRENT USER SET PASSWORD FROM $old TO $new", { old: "neo4j", new: PASSWORD }, { database: "system" });
		} finally {
			await driver.close();
		}
	}, 180_000);

	afterAll(async () => {
		for (const backend of opened) await backend.graph.close().catch(() => undefined);
		await unreachableAtStart?.catch(() => undefined);
		await server("stop").catch(() => undefined);
		state.cleanup();
	}, 60_000);

	it("at start, a wrong address, a wrong password and a missing database each fail with what to fix (command line)", async () => {
		const down = await unreachableAtStart;
		expect(down.status).not.toBe(0);
		expect(down.stderr).toContain(`Neo4j at ${down.uri} (database neo4j) is unreachable`);
		expect(down.stderr).toMatch(/retried for 15 s\. Start Neo4j or fix NEO4J_URI, then try again\./);
		// It retried with backoff for its budget, then gave up.
		expect(down.ms).toBeGreaterThan(10_000);

		// One wrong password only: three in a row lock the user for a few seconds.
		const [denied, noDatabase, ok] = await Promise.all([
			cli(["status"], cliEnv({ NEO4J_PASSWORD: "not-the-password" })),
			cli(["status"], cliEnv({ NEO4J_DATABASE: "memories" })),
			cli(["status", "--json"], cliEnv()),
		]);
		expect(denied.status).not.toBe(0);
		expect(denied.stderr).toContain(`Neo4j at ${uri} (database neo4j) refused the credentials of user "neo4j"`);
		expect(denied.stderr).toContain("Check NEO4J_USERNAME and NEO4J_PASSWORD.");
		expect(denied.stderr).not.toMatch(/retried/);

		expect(noDatabase.status).not.toBe(0);
		expect(noDatabase.stderr).toContain(`Neo4j at ${uri} has no database "memories". Create it or set NEO4J_DATABASE`);

		expect(ok.status, ok.stderr).toBe(0);
		expect(JSON.parse(ok.stdout)).toMatchObject({ backend: { name: "neo4j", ok: true } });
		// The settings panel's check says the same without retrying.
		expect(await testNeo4jConnection({ uri, username: "neo4j", password: "", database: "neo4j" })).toMatch(/refused the credentials.*NEO4J_PASSWORD/);
		expect(await testNeo4jConnection({ uri, username: "neo4j", password: PASSWORD, database: "neo4j" })).toBeNull();
	}, 90_000);

	it("writers running while the server stops: failed writes are reported, none is dropped; retries wait out the restart", async () => {
		const patient = [new Writer("patient a", await open(60_000)), new Writer("patient b", await open(60_000))];
		const impatient = [new Writer("impatient a", await open(800)), new Writer("impatient b", await open(800))];
		const writers = [...patient, ...impatient];
		const txBackend = await open(60_000);
		for (const w of writers) w.start();
		await until("every writer has written", () => writers.every((w) => w.acked.length >= 3));

		// A transaction open when the server goes away fails as a whole.
		let stopped!: () => void;
		const serverStopped = new Promise<void>((resolve) => (stopped = resolve));
		const interrupted = txBackend.graph
			.transaction(async () => {
				await txBackend.graph.mergeNode(scope, node("Inside the broken transaction"));
				await serverStopped;
				await txBackend.graph.mergeNode(scope, node("Also inside"));
			})
			.catch((e: unknown) => e);

		await server("stop", "--keep-data");
		stopped();
		const broken = await interrupted;
		expect(broken).toBeInstanceOf(BackendError);
		expect((broken as Error).message).toMatch(/rolled back/);
		// While it is down: short-budget writes fail (and say why), health says so; patient ones wait.
		await until("impatient writes fail during the outage", () => impatient.every((w) => w.failed.length >= 1));
		const health = await impatient[0].backend.graph.health();
		expect(health.ok).toBe(false);
		expect(health.detail).toContain(uri);

		const restarting = Date.now();
		await server("start", "--port", port);
		const up = Date.now();
		await until("every writer writes again", () => writers.every((w) => w.acked.filter((a) => a.at > up).length >= 3));
		await Promise.all(writers.map((w) => w.finish()));

		// Reported failures: named errors pointing at the server and what to do.
		const failures = impatient.flatMap((w) => w.failed);
		for (const { error } of failures) {
			expect(error).toBeInstanceOf(BackendError);
			expect((error as Error).message).toContain(`Neo4j at ${uri}`);
		}
		expect(failures.some(({ error }) => /is unreachable.*Start Neo4j or fix NEO4J_URI/.test((error as Error).message))).toBe(true);
		// Retries with backoff: patient writers never failed; each had exactly one write that was
		// issued before the restart began and succeeded only after it (writes are sequential, and one
		// was always waiting during the outage). No margin in ms: a busy machine delays the 20 ms pause.
		for (const w of patient) expect(w.failed.map((f) => String(f.error)), w.name).toEqual([]);
		for (const w of patient) {
			const waited = w.acked.filter((a) => a.at > restarting && a.at - a.ms < restarting);
			expect(waited.length, w.name).toBe(1);
		}

		// Recovered: every acknowledged write is there; a failed write is absent unless the server
		// committed it as the connection died (at most one per writer: one write in flight each).
		const check = await open(5_000);
		const present = async (key: string) => (await check.graph.getNode(scope, "Project", key)) !== null;
		for (const w of writers) for (const { key } of w.acked) expect(await present(key), key).toBe(true);
		let failedButStored = 0;
		for (const { key } of failures) if (await present(key)) failedButStored++;
		expect(failedButStored).toBeLessThanOrEqual(impatient.length);
		expect(await present("Inside the broken transaction")).toBe(false);
		expect(await present("Also inside")).toBe(false);
		const acked = writers.reduce((n, w) => n + w.acked.length, 0);
		expect((await check.graph.counts(scope)).nodes).toBe(acked + failedButStored);
		expect((await check.graph.health()).ok).toBe(true);
	}, 150_000);
});
