import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/run-cli";
import { makeTempDir } from "../helpers/temp-dir";

// Each test starts several CLI processes: generous timeouts for a loaded machine.
const CLI_TIMEOUT = 120_000;

describe("engrama skills on the command line", () => {
	let dir: ReturnType<typeof makeTempDir>;
	let db: string;
	const cli = (args: string[], options: { env?: NodeJS.ProcessEnv; input?: string } = {}) =>
		runCli(["--db", db, "--json", "--modules", "teaching", ...args], options);

	beforeEach(() => {
		dir = makeTempDir("engrama-cli-skills-");
		db = join(dir.path, "memory.db");
	});
	afterEach(() => dir.cleanup());

	it("remember --relations reports what each target did, degree and duplicates", () => {
		expect(cli(["remember", "--label", "Technology", "--name", "PostgreSQL"]).status).toBe(0);
		const r = cli(["remember", "--label", "Project", "--name", "Billing Portal", "--relations", '{"USES": ["postgresql", "Stripe"]}']);
		expect(r.status).toBe(0);
		const body = r.json<{ created: boolean; degree: number; relations: { target: string; outcome: string; resolution: string }[]; possible_duplicate_of: unknown[] }>();
		expect(body.created).toBe(true);
		expect(body.degree).toBe(2);
		expect(body.relations.map((x) => [x.target, x.outcome, x.resolution])).toEqual([
			["postgresql", "resolved", "exact"],
			["Stripe", "stubbed", "stub"],
		]);
		expect(body.possible_duplicate_of).toEqual([]);

		const bad = cli(["remember", "--label", "Project", "--name", "X", "--relations", '["USES"]']);
		expect(bad.status).toBe(2);
		expect(bad.stderr).toMatch(/--relations must be a JSON object/);
	}, CLI_TIMEOUT);

	it("ENGRAMA_REMEMBER_DEDUPE=block refuses with did_you_mean; --force-new writes", () => {
		const env = { ENGRAMA_REMEMBER_DEDUPE: "block" };
		expect(cli(["remember", "--label", "Technology", "--name", "Elasticsearch"], { env }).status).toBe(0);
		const refused = cli(["remember", "--label", "Technology", "--name", "ElasticSearch 8"], { env });
		expect(refused.status).toBe(2);
		const error = JSON.parse(refused.stderr) as { error: { code: string; details: { did_you_mean: { name: string }[] } } };
		expect(error.error.code).toBe("possible_duplicate");
		expect(error.error.details.did_you_mean.map((d) => d.name)).toEqual(["Elasticsearch"]);
		const forced = cli(["remember", "--label", "Technology", "--name", "ElasticSearch 8", "--force-new"], { env });
		expect(forced.json<{ created: boolean }>().created).toBe(true);
	}, CLI_TIMEOUT);

	it("resolver thresholds and modes come from the environment; a bad value is refused before anything runs", () => {
		expect(cli(["remember", "--label", "Technology", "--name", "Kubernetes"]).status).toBe(0);
		type Outcomes = { relations: { outcome: string; resolution: string }[] };
		const strict = cli(["remember", "--label", "Project", "--name", "Cluster", "--relations", '{"USES": ["Kubernetis"]}'], {
			env: { ENGRAMA_RESOLVE_CONNECT: "0.95" },
		});
		expect(strict.json<Outcomes>().relations.map((r) => [r.outcome, r.resolution])).toEqual([["ambiguous", "ambiguous"]]);
		const auto = cli(["remember", "--label", "Concept", "--name", "Pods", "--props", '{"tags": ["cluster"]}'], { env: { ENGRAMA_TAG_LINKING: "auto" } });
		expect(auto.json<{ degree: number; relations_from_tags: { type: string }[] }>()).toMatchObject({ degree: 1, relations_from_tags: [{ type: "BELONGS_TO" }] });
		for (const env of [{ ENGRAMA_REMEMBER_DEDUPE: "blok" }, { ENGRAMA_RESOLVE_SUGGEST: "lots" }]) {
			const bad = cli(["remember", "--label", "Concept", "--name", "Never written"], { env });
			expect(bad.status).toBe(2);
			expect(bad.stderr).toMatch(/ENGRAMA_REMEMBER_DEDUPE must be one of off, warn, block|ENGRAMA_RESOLVE_SUGGEST/);
		}
		expect(cli(["status"]).json<{ backend: { node_count: number } }>().backend.node_count).toBe(3);
	}, CLI_TIMEOUT);

	it("forget --gdpr: dry run by default, --apply erases everything of the scope", () => {
		cli(["remember", "--label", "Project", "--name", "Billing Portal", "--relations", '{"USES": ["Python"]}']);
		const dry = cli(["forget", "--gdpr"]).json<{ mode: string; counts: Record<string, number> }>();
		expect(dry).toMatchObject({ mode: "dry-run", counts: { nodes: 2, edges: 1, fulltext: 2 } });
		const applied = cli(["forget", "--gdpr", "--apply"]).json<{ mode: string; counts: Record<string, number> }>();
		expect(applied).toMatchObject({ mode: "apply", counts: dry.counts });
		expect(cli(["status"]).json<{ backend: { node_count: number } }>().backend.node_count).toBe(0);
	}, CLI_TIMEOUT);

	it("forget refuses contradictory flags; --ttl is a dry run unless --apply", () => {
		expect(cli(["forget", "--gdpr", "--dry-run", "--apply"]).status).toBe(2);
		expect(cli(["forget", "--dry-run", "--name", "Python"]).status).toBe(2);
		const ttl = cli(["forget", "--ttl", "1"]).json<{ mode: string; count: number }>();
		expect(ttl).toMatchObject({ mode: "dry-run", count: 0 });
	}, CLI_TIMEOUT);

	it("history and at", () => {
		cli(["remember", "--label", "Problem", "--name", "Slow invoices", "--props", '{"status": "open"}']);
		cli(["remember", "--label", "Problem", "--name", "Slow invoices", "--props", '{"status": "fixed"}']);
		const history = cli(["history", "--name", "slow invoices"]).json<{ node: { label: string }; changes: { prop: string; before: unknown; after: unknown; source: string }[] }>();
		expect(history.node.label).toBe("Problem");
		expect(history.changes).toEqual([expect.objectContaining({ prop: "status", before: "open", after: "resolved", source: "cli" })]);
		const today = new Date().toISOString().slice(0, 10);
		expect(cli(["at", today]).json<{ nodes: { name: string }[] }>().nodes.map((n) => n.name)).toEqual(["Slow invoices"]);
		expect(cli(["at", "someday"]).status).toBe(2);
	}, CLI_TIMEOUT);

	it("decay", () => {
		cli(["remember", "--label", "Concept", "--name", "Old idea"]);
		const decay = cli(["decay", "--rate", "0.01", "--max-age", "0", "--dry-run"]).json<{ examined: number; dry_run: boolean }>();
		expect(decay).toMatchObject({ examined: 1, aged: 1, dry_run: true, changed: false, decayed: 0 });
		// Old flags still work; without --dry-run nothing is written either, and the output says why.
		const plain = cli(["decay", "--max-age", "0"]);
		expect(plain.status).toBe(0);
		expect(plain.json<{ notice: string }>().notice).toMatch(/Stored confidence no longer decays .*nothing was changed/);
		expect(cli(["get", "--label", "Concept", "--name", "Old idea"]).json<{ node: { props: { confidence: number } } }>().node.props.confidence).toBe(1);
		expect(cli(["decay", "--rate", "-2"]).status).toBe(2);
		// engrama-py's ENGRAMA_RECENCY_HALF_LIFE reaches ranking (the report reads search's own setting).
		const env = { ...process.env, ENGRAMA_RECENCY_HALF_LIFE: "180" };
		expect(cli(["decay"], { env }).json<{ half_life_days: number }>().half_life_days).toBe(180);
		expect(cli(["decay"], { env: { ...process.env, ENGRAMA_RECENCY_HALF_LIFE: "0" } }).status).toBe(2);
	}, CLI_TIMEOUT);

	it("ingest reads a file or stdin and returns guidance with dedup hints", () => {
		cli(["remember", "--label", "Project", "--name", "Billing Portal"]);
		const note = join(dir.path, "retro.md");
		writeFileSync(note, "# Retro\n\nThe [[Billing Portal]] moved to `PostgreSQL`.\n");
		const fromFile = cli(["ingest", note]).json<{ kind: string; source: string; dedup_hints: { name: string; reason: string }[]; guidance: { labels: { label: string }[] } }>();
		expect(fromFile).toMatchObject({ kind: "note", source: note });
		expect(fromFile.dedup_hints[0]).toMatchObject({ name: "Billing Portal", reason: "exact" });
		expect(fromFile.guidance.labels.map((l) => l.label)).toContain("Course");

		const fromStdin = cli(["ingest", "-", "--kind", "conversation"], { input: "User: the billing portal is slow\nAssistant: check the queries" });
		expect(fromStdin.json<{ kind: string; source: string }>()).toMatchObject({ kind: "conversation", source: "stdin" });
		expect(cli(["ingest", join(dir.path, "missing.md")]).status).toBe(2);
	}, CLI_TIMEOUT);
});
