import { copyFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/run-cli";
import { makeTempDir } from "../helpers/temp-dir";
import { connectClient, ok } from "./mcp-harness";
import { spawnServe, type ServeProcess } from "./serve-process";

/**
 * One engine face: the command line and the MCP bridge call the same skill for the same verb, so
 * they give the same answer. The real built CLI (its own processes) and `engrama serve` (its own
 * process, the SDK's client over HTTP) work on the same memory file for the reads; for the writes
 * each works on its own copy of that file, taken after the same history.
 */

const ENV = { EMBEDDING_PROVIDER: "hash", EMBEDDING_DIMENSIONS: "64" };
// Who wrote (source cli vs mcp, the agent's session) and when: the only differences a surface may make.
const WRITER_FIELDS = new Set(["source", "source_agent", "source_session", "trust_level", "edited_by_source", "edited_by_agent", "edited_in_session"]);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/;

/** The command's JSON answer, or its exit code and error where it failed (compared like any answer). */
function cli(db: string, ...args: string[]): Record<string, unknown> {
	const result = runCli(["--json", "--db", db, ...args], { env: ENV });
	return result.status === 0 ? result.json() : { exit: result.status, stdout: result.stdout, stderr: result.stderr };
}

function seed(db: string, ...args: string[]): void {
	const result = runCli(["--json", "--db", db, ...args], { env: ENV });
	expect(result.status, `engrama ${args.join(" ")}: ${result.stderr}`).toBe(0);
}

/** Ids and times made by the write itself, and the writer's own marks, set aside. */
function normalised(value: unknown): unknown {
	if (Array.isArray(value)) return value.map(normalised);
	if (value && typeof value === "object") {
		return Object.fromEntries(
			Object.entries(value)
				.filter(([key]) => !WRITER_FIELDS.has(key))
				.map(([key, v]) => [key, normalised(v)]),
		);
	}
	if (typeof value === "string" && UUID.test(value)) return "<id>";
	if (typeof value === "string" && ISO_TIME.test(value)) return "<time>";
	return value;
}

/** Search scores carry a recency signal that moves between two calls seconds apart: compared to 4 places. */
function searchAnswer(view: Record<string, unknown>): unknown {
	const results = view.results as { scores: Record<string, number>; score: number }[];
	return {
		...view,
		results: results.map((r) => ({
			...r,
			score: Math.round(r.score * 1e4) / 1e4,
			scores: Object.fromEntries(Object.entries(r.scores).map(([k, v]) => [k, Math.round(v * 1e4) / 1e4])),
		})),
	};
}

function copyMemory(from: string, to: string): void {
	for (const suffix of ["", "-wal", ".engrama-wal", "-journal"]) if (existsSync(from + suffix)) copyFileSync(from + suffix, to + suffix);
}

describe("the command line and the MCP bridge give the same answer, verb by verb", { timeout: 300_000 }, () => {
	let dir: ReturnType<typeof makeTempDir>;
	const cliAnswers: Record<string, unknown> = {};
	const mcpAnswers: Record<string, unknown> = {};

	beforeAll(async () => {
		dir = makeTempDir("engrama-one-face-");
		const shared = join(dir.path, "shared.db");
		const cliCopy = join(dir.path, "cli.db");
		const mcpCopy = join(dir.path, "mcp.db");

		// The same history for everyone, written by the command line.
		seed(shared, "remember", "--label", "Project", "--name", "Billing Portal", "--props", JSON.stringify({ summary: "Invoices and payments for clinics", tags: ["billing"] }));
		seed(shared, "remember", "--label", "Technology", "--name", "Postgres", "--props", JSON.stringify({ summary: "The relational database behind billing" }));
		seed(shared, "remember", "--label", "Concept", "--name", "Idempotency", "--props", JSON.stringify({ summary: "Safe retries of billing calls" }));
		seed(shared, "remember", "--label", "Technology", "--name", "Redis", "--props", JSON.stringify({ summary: "Cache in front of invoices" }));
		seed(shared, "relate", "Project", "Billing Portal", "USES", "Technology", "Postgres");
		seed(shared, "relate", "Technology", "Postgres", "IMPLEMENTS", "Concept", "Idempotency");
		copyMemory(shared, cliCopy);
		copyMemory(shared, mcpCopy);

		// Reads on the shared file, writes on the command line's copy.
		cliAnswers.context = cli(shared, "context", "--label", "Project", "--name", "Billing Portal", "--hops", "2");
		cliAnswers.contextByLooseName = cli(shared, "context", "--label", "technology", "--name", "postgres", "--hops", "1");
		cliAnswers.search = cli(shared, "search", "billing invoices");
		cliAnswers.forgetDryRun = cli(shared, "forget", "--gdpr", "--dry-run");
		cliAnswers.remember = cli(cliCopy, "remember", "--label", "Concept", "--name", "Retry Budget", "--props", JSON.stringify({ summary: "How many retries billing may spend" }), "--relations", JSON.stringify({ RELATED_TO: ["Idempotency", "Nowhere Thing"] }));
		cliAnswers.relate = cli(cliCopy, "relate", "Project", "Billing Portal", "USES", "Technology", "Redis");
		cliAnswers.relateAgain = cli(cliCopy, "relate", "Project", "Billing Portal", "USES", "Technology", "Redis");
		cliAnswers.contextAfterWrites = cli(cliCopy, "context", "--label", "Concept", "--name", "Retry Budget", "--hops", "2");

		const serves: ServeProcess[] = [];
		try {
			const [onShared, onCopy] = await Promise.all([spawnServe(["--db", shared], ENV), spawnServe(["--db", mcpCopy], ENV)]);
			serves.push(onShared, onCopy);
			const reader = await connectClient(onShared.info.url, onShared.token);
			mcpAnswers.context = await ok(reader, "engrama_context", { label: "Project", name: "Billing Portal", hops: 2 });
			mcpAnswers.contextByLooseName = await ok(reader, "engrama_context", { label: "Technology", name: "postgres", hops: 1 });
			// The whole answer, as the command line gives it (by default the tool trims it for agents' context).
			mcpAnswers.search = await ok(reader, "engrama_search", { query: "billing invoices", scores: true });
			mcpAnswers.forgetDryRun = await ok(reader, "engrama_gdpr_forget", { mode: "dry-run" });
			await reader.close();
			const writer = await connectClient(onCopy.info.url, onCopy.token);
			mcpAnswers.remember = await ok(writer, "engrama_remember", {
				label: "Concept",
				properties: { name: "Retry Budget", summary: "How many retries billing may spend" },
				relations: { RELATED_TO: ["Idempotency", "Nowhere Thing"] },
			});
			const relate = { from_label: "Project", from_name: "Billing Portal", rel_type: "USES", to_label: "Technology", to_name: "Redis" };
			mcpAnswers.relate = await ok(writer, "engrama_relate", relate);
			mcpAnswers.relateAgain = await ok(writer, "engrama_relate", relate);
			mcpAnswers.contextAfterWrites = await ok(writer, "engrama_context", { label: "Concept", name: "Retry Budget", hops: 2 });
			await writer.close();
		} finally {
			for (const serve of serves) serve.child.kill("SIGTERM");
			await Promise.all(serves.map((serve) => serve.exited()));
		}
	}, 300_000);
	afterAll(() => dir?.cleanup());

	it("context: the same node, neighbours and relations (ids, labels, direction), found by the same name matching", () => {
		expect(cliAnswers.context).toEqual(mcpAnswers.context);
		expect((mcpAnswers.context as { relations: unknown[] }).relations.length).toBeGreaterThan(1);
		expect(cliAnswers.contextByLooseName).toEqual(mcpAnswers.contextByLooseName);
	});

	it("search: the same results in the same order with the same signals", () => {
		expect((cliAnswers.search as { results: unknown[] }).results.length).toBeGreaterThan(1);
		expect(searchAnswer(cliAnswers.search as Record<string, unknown>)).toEqual(searchAnswer(mcpAnswers.search as Record<string, unknown>));
	});

	it("remember: the same node, resolutions, stubs, degree and hints", () => {
		expect(normalised(cliAnswers.remember)).toEqual(normalised(mcpAnswers.remember));
	});

	it("relate: the same edge, and the same answer when it exists already", () => {
		expect(cliAnswers.relate).toEqual(mcpAnswers.relate);
		expect(cliAnswers.relateAgain).toEqual(mcpAnswers.relateAgain);
		expect((cliAnswers.relateAgain as { created: boolean }).created).toBe(false);
	});

	it("the writes leave the same neighbourhood behind", () => {
		expect(normalised(cliAnswers.contextAfterWrites)).toEqual(normalised(mcpAnswers.contextAfterWrites));
	});

	it("forget (GDPR dry run): the same counts for the same scope", () => {
		expect(cliAnswers.forgetDryRun).toEqual(mcpAnswers.forgetDryRun);
	});
});
