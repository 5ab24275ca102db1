import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import neo4j from "neo4j-driver";
import { createNeo4jBackend, type Neo4jBackend } from "../../../src/backends/neo4j/neo4j-backend";
import { isTransient } from "../../../src/backends/neo4j/neo4j-connection";
import { parseConfig } from "../../../src/config/engrama-config";
import { BackendError } from "../../../src/engine/errors";
import type { MergeNodeInput } from "../../../src/engine/protocols";
import type { Scope } from "../../../src/engine/types";
import { makeTempDir } from "../../helpers/temp-dir";

const run = promisify(execFile);
const ROOT = join(__dirname, "..", "..", "..");
const SCRIPT = join(ROOT, "scripts", "neo4j-test-server.sh");
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
	it("retries an unreachable server, an expired session and the server's transient errors", () => {
		for (const code of ["ServiceUnavailable", "SessionExpired", "Neo.TransientError.Transaction.DeadlockDetected", "Neo.TransientError.General.DatabaseUnavailable"]) {
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

/**
 * Neo4j going away mid-run, on a server of its own (the shared test server keeps serving the
 * other test files): stop it keeping its data, see writes fail loudly or wait, start it again.
 */
describe.each(withServer ? ["own server"] : [])("Neo4j outage and recovery (%s)", () => {
	const state = makeTempDir("engrama-neo4j-outage-");
	const env = { ...process.env, NEO4J_TEST_STATE_DIR: state.path };
	const server = (...args: string[]) => run(SCRIPT, args, { env, timeout: 180_000 });
	let uri = "";
	let port = "";
	let patient: Neo4jBackend;
	let impatient: Neo4jBackend;

	const open = (maxElapsedMs: number) =>
		createNeo4jBackend(parseConfig({ backend: "neo4j", dbPath: ":memory:", neo4j: { uri } }), {
			namespace: "outage",
			retry: { maxElapsedMs },
		});

	beforeAll(async () => {
		await server("start");
		uri = /^NEO4J_URI=(.*)$/m.exec(readFileSync(join(state.path, "env"), "utf8"))?.[1] ?? "";
		port = readFileSync(join(state.path, "port"), "utf8").trim();
		patient = await open(60_000);
		impatient = await open(800);
	}, 180_000);

	afterAll(async () => {
		await patient?.graph.close();
		await impatient?.graph.close();
		await server("stop").catch(() => undefined);
		state.cleanup();
	}, 60_000);

	it("reports failed writes, rolls back the interrupted transaction, waits out a restart and recovers", async () => {
		await patient.graph.mergeNode(scope, node("Before the outage"));

		// The server goes away in the middle of a transaction: the transaction fails as a whole.
		const interrupted = patient.graph.transaction(async () => {
			await patient.graph.mergeNode(scope, node("Inside the broken transaction"));
			await server("stop", "--keep-data");
			await patient.graph.mergeNode(scope, node("Also inside"));
		});
		const broken = await interrupted.catch((e: unknown) => e);
		expect(broken).toBeInstanceOf(BackendError);
		expect((broken as Error).message).toMatch(/rolled back/);

		// While it is down: a write with a short retry budget fails with a clear error, health says so.
		const failed = await impatient.graph.mergeNode(scope, node("During the outage")).catch((e: unknown) => e);
		expect(failed).toBeInstanceOf(BackendError);
		expect((failed as Error).message).toContain(`Neo4j at ${uri} (database neo4j) is unreachable`);
		expect((failed as Error).message).toMatch(/Start Neo4j or fix NEO4J_URI/);
		const health = await impatient.graph.health();
		expect(health.ok).toBe(false);
		expect(health.detail).toContain(uri);

		// A write with a longer budget waits for the server to come back, then succeeds.
		const waiting = patient.graph.mergeNode(scope, node("Waited for the restart"));
		await server("start", "--port", port);
		expect((await waiting).created).toBe(true);

		// Recovered: old data survived, the failed and rolled-back writes are absent, not half-done.
		expect(await impatient.graph.getNode(scope, "Project", "Before the outage")).not.toBeNull();
		expect(await impatient.graph.getNode(scope, "Project", "During the outage")).toBeNull();
		expect(await impatient.graph.getNode(scope, "Project", "Inside the broken transaction")).toBeNull();
		expect(await impatient.graph.getNode(scope, "Project", "Also inside")).toBeNull();
		expect((await impatient.graph.fulltext(scope, { text: "survives", limit: 10 })).map((h) => h.node.key).sort()).toEqual([
			"Before the outage",
			"Waited for the restart",
		]);
		expect((await impatient.graph.health()).ok).toBe(true);
	}, 180_000);
});
