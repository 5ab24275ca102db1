import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ScopeError, ValidationError } from "../../../src/engine/errors";
import { testBackends } from "../../contracts/backends";
import { openSkillFixture, type SkillFixture } from "./skill-fixture";

describe.each(testBackends())("remember with inline relations on $name", (backend) => {
	let f: SkillFixture;
	beforeEach(async () => {
		f = await openSkillFixture(backend);
	});
	afterEach(async () => {
		await f.close();
	});

	const remember = (label: string, name: string, props: Record<string, unknown> = {}, relations?: unknown) =>
		f.skills.remember(f.ctx, { label, name, props, relations });

	it("connects an exact target, case and accents aside, and reports degree", async () => {
		await remember("Technology", "PostgreSQL");
		const r = await remember("Project", "Billing Portal", { summary: "invoices" }, { USES: ["postgresql"] });
		expect(r.created).toBe(true);
		expect(r.relations).toEqual([
			expect.objectContaining({ type: "USES", target: "postgresql", outcome: "resolved", resolution: "exact", created: true }),
		]);
		expect(r.relations[0].node).toMatchObject({ label: "Technology", name: "PostgreSQL" });
		expect(r.degree).toBe(1);
		expect(r.orphan_warning).toBeUndefined();
	});

	it("connects a fuzzy match that clearly beats the runner-up", async () => {
		await remember("Technology", "Kubernetes");
		const r = await remember("Project", "Cluster", {}, { USES: ["Kubernetis"] });
		expect(r.relations[0]).toMatchObject({ outcome: "resolved", resolution: "fuzzy_match" });
		expect(r.relations[0].score).toBeGreaterThanOrEqual(0.9);
	});

	it("asks (ambiguous, did_you_mean) when close names compete", async () => {
		await remember("Technology", "React Native");
		await remember("Technology", "React Nativo");
		const r = await remember("Project", "Mobile App", {}, { USES: ["React Nativ"] });
		expect(r.relations[0]).toMatchObject({ outcome: "ambiguous", resolution: "ambiguous" });
		expect(r.relations[0].did_you_mean?.map((c) => c.name).sort()).toEqual(["React Nativo", "React Native"].sort());
		expect(r.degree).toBe(0);
		expect(await f.graph.counts(f.scope)).toMatchObject({ nodes: 3, edges: 0 });
	});

	it("announces its node, stubs and edges to Memory.onWrite after commit, and nothing when refused", async () => {
		const seen: string[] = [];
		f.memory.onWrite((e) => void seen.push(e.kind === "entity" ? `entity:${e.write.node.key}` : `relation:${e.write.type}:${e.write.to.key}`));
		await remember("Technology", "Python");
		await remember("Project", "Shop", {}, { USES: ["python", "Stripe"] });
		expect(seen).toEqual(["entity:Python", "entity:Shop", "relation:USES:Python", "entity:Stripe", "relation:USES:Stripe"]);
		seen.length = 0;
		await expect(remember("Project", "Bad", {}, { USES: [""] })).rejects.toThrow();
		expect(seen).toEqual([]);
	});

	it("creates a stub when nothing is close, labelled from the relation type", async () => {
		const r = await remember("Project", "Billing Portal", {}, { USES: ["Stripe"] });
		expect(r.relations[0]).toMatchObject({ outcome: "stubbed", resolution: "stub", created: true });
		expect(r.relations[0].node).toMatchObject({ label: "Technology", name: "Stripe", status: "stub" });
	});
});

describe.each(testBackends())("remember: the other resolver outcomes on $name", (backend) => {
	let f: SkillFixture;
	beforeEach(async () => {
		f = await openSkillFixture(backend);
	});
	afterEach(async () => {
		await f.close();
	});

	const remember = (label: string, name: string, props: Record<string, unknown> = {}, relations?: unknown) =>
		f.skills.remember(f.ctx, { label, name, props, relations });

	it("reports label_conflict for an exact name under a label the relation cannot use", async () => {
		await remember("Concept", "React");
		const r = await remember("Project", "Shop", {}, { USES: ["React"] });
		expect(r.relations[0]).toMatchObject({ outcome: "ambiguous", resolution: "label_conflict" });
		expect(r.relations[0].did_you_mean?.[0]).toMatchObject({ label: "Concept", name: "React" });
		expect(await f.graph.counts(f.scope)).toEqual({ nodes: 2, edges: 0 });
	});

	it("reports label_conflict when the name exists under several usable labels", async () => {
		await remember("Technology", "Rust");
		await remember("Concept", "Rust");
		const r = await remember("Project", "Engine", {}, { RELATED_TO: ["Rust"] });
		expect(r.relations[0].resolution).toBe("label_conflict");
		// Naming the label settles it.
		const named = await remember("Project", "Engine", {}, { RELATED_TO: [{ name: "rust", label: "Concept" }] });
		expect(named.relations[0]).toMatchObject({ outcome: "resolved", resolution: "exact", node: { label: "Concept" } });
	});

	it("never links an archived node silently: revive_candidate", async () => {
		await remember("Technology", "CoffeeScript");
		await f.skills.forget(f.ctx, { label: "Technology", name: "CoffeeScript" });
		const r = await remember("Project", "Legacy Site", {}, { USES: ["coffeescript"] });
		expect(r.relations[0]).toMatchObject({ outcome: "ambiguous", resolution: "revive_candidate", node: { name: "CoffeeScript", status: "archived" } });
		expect(r.degree).toBe(0);
	});

	it("rejects a self-relation, an unknown type and a type the profile does not allow, and writes the rest", async () => {
		const r = await remember("Concept", "Idempotency", {}, {
			SIMILAR_TO: ["idempotency"],
			FRIENDS_WITH: ["Retry"],
			USES: ["Python"],
			SUBSET_OF: ["Reliability"],
		});
		expect(r.relations.map((o) => [o.type, o.outcome, o.resolution])).toEqual([
			["SIMILAR_TO", "rejected", "self_relation"],
			["FRIENDS_WITH", "rejected", "unknown_type"],
			["USES", "rejected", "not_allowed"],
			["SUBSET_OF", "stubbed", "stub"],
		]);
		expect(r.relations[1].message).toMatch(/Allowed: /);
		expect(r.degree).toBe(1);
	});

	it("rejects an explicit target label the relation cannot point to", async () => {
		const r = await remember("Project", "Shop", {}, { USES: [{ name: "Alice", label: "Person" }] });
		expect(r.relations[0]).toMatchObject({ outcome: "rejected", resolution: "not_allowed" });
		expect(await f.graph.counts(f.scope)).toEqual({ nodes: 1, edges: 0 });
	});

	it("accepts cycles: relations are a graph, not a tree", async () => {
		await remember("Project", "Alpha", {}, { DEPENDS_ON: [{ name: "Beta", label: "Project" }] });
		const r = await remember("Project", "Beta", {}, { DEPENDS_ON: ["Alpha"] });
		expect(r.relations[0]).toMatchObject({ outcome: "resolved", resolution: "exact", created: true });
		expect(r.degree).toBe(2);
	});

	it("names the same target twice as one relation", async () => {
		const r = await remember("Project", "Shop", {}, { USES: ["Go", "go", "GO"] });
		expect(r.relations).toHaveLength(1);
		expect(r.degree).toBe(1);
	});

	it("leaves system Insights out of resolution; hand-written Insights are ordinary nodes", async () => {
		await remember("Insight", "Caching pays off", { source_query: "detector:shared_technology", body: "x" });
		await remember("Insight", "Lessons from the outage", { body: "postmortem" });
		const system = await f.skills.resolver.candidates(f.scope, "Caching pays off");
		expect(system.some((c) => c.node.key === "Caching pays off")).toBe(false);
		const hand = await f.skills.resolver.candidates(f.scope, "Lessons from the outage");
		expect(hand[0]).toMatchObject({ exact: true, node: { key: "Lessons from the outage" } });
	});
});

const DESCRIPTION =
	"self service portal where every client downloads monthly invoices, pays open bills by card or transfer, updates tax details and receives payment reminders by email";

describe.each(testBackends())("remember: duplicates of the remembered node on $name", (backend) => {
	let f: SkillFixture;
	afterEach(async () => {
		await f.close();
	});

	it("merges a name differing only by case, accents or separators into the existing node", async () => {
		f = await openSkillFixture(backend);
		const first = await f.skills.remember(f.ctx, { label: "Person", name: "José Núñez" });
		const again = await f.skills.remember(f.ctx, { label: "Person", name: "jose nunez", props: { role: "reviewer" } });
		expect(again.created).toBe(false);
		expect(again.node.node_id).toBe(first.node.node_id);
		expect(again.node.name).toBe("José Núñez");
		expect(again.merged_into).toMatchObject({ name: "José Núñez" });
		expect(again.warnings.join(" ")).toMatch(/up to case, accents or separators/);
		expect((await f.graph.counts(f.scope)).nodes).toBe(1);
	});

	it("warn (default): writes and reports similar names and the same name under another label", async () => {
		f = await openSkillFixture(backend);
		await f.skills.remember(f.ctx, { label: "Technology", name: "Elasticsearch" });
		await f.skills.remember(f.ctx, { label: "Concept", name: "Vector Search" });
		const r = await f.skills.remember(f.ctx, { label: "Technology", name: "ElasticSearch 8" });
		expect(r.created).toBe(true);
		expect(r.possible_duplicate_of).toEqual([expect.objectContaining({ label: "Technology", name: "Elasticsearch", reason: "similar_name" })]);
		const conflict = await f.skills.remember(f.ctx, { label: "Technology", name: "vector-search" });
		expect(conflict.possible_duplicate_of).toEqual([expect.objectContaining({ label: "Concept", name: "Vector Search", reason: "label_conflict", score: 1 })]);
	});

	it("off: no findings at all", async () => {
		f = await openSkillFixture(backend, { resolver: { dedupe: "off" } });
		await f.skills.remember(f.ctx, { label: "Technology", name: "Elasticsearch" });
		const r = await f.skills.remember(f.ctx, { label: "Technology", name: "ElasticSearch 8" });
		expect(r.possible_duplicate_of).toEqual([]);
	});

	it("block: refuses with did_you_mean and writes nothing, unless force_new", async () => {
		f = await openSkillFixture(backend, { resolver: { dedupe: "block" } });
		await f.skills.remember(f.ctx, { label: "Technology", name: "Elasticsearch" });
		const attempt = f.skills.remember(f.ctx, { label: "Technology", name: "ElasticSearch 8", relations: { IMPLEMENTS: ["Inverted index"] } });
		await expect(attempt).rejects.toMatchObject({ code: "possible_duplicate", details: { did_you_mean: [expect.objectContaining({ name: "Elasticsearch" })] } });
		expect(await f.graph.counts(f.scope)).toEqual({ nodes: 1, edges: 0 });
		const forced = await f.skills.remember(f.ctx, { label: "Technology", name: "ElasticSearch 8", forceNew: true });
		expect(forced.created).toBe(true);
		expect(forced.possible_duplicate_of).toHaveLength(1);
		// Updating an existing node is never a duplicate.
		const update = await f.skills.remember(f.ctx, { label: "Technology", name: "Elasticsearch", props: { version: "8" } });
		expect(update.created).toBe(false);
	});

	it("force_new without block mode is ignored with a warning", async () => {
		f = await openSkillFixture(backend);
		const r = await f.skills.remember(f.ctx, { label: "Concept", name: "Backpressure", forceNew: true });
		expect(r.created).toBe(true);
		expect(r.warnings.join(" ")).toMatch(/force_new only matters with ENGRAMA_REMEMBER_DEDUPE=block/);
	});

	it("reports similar meaning from the node's own embedding, and block refuses it atomically", async () => {
		f = await openSkillFixture(backend, { embedder: true });
		await f.skills.remember(f.ctx, { label: "Project", name: "Invoice Portal", props: { description: DESCRIPTION } });
		const r = await f.skills.remember(f.ctx, { label: "Project", name: "Client Billing Site", props: { description: DESCRIPTION } });
		expect(r.embedded).toBe(true);
		expect(r.possible_duplicate_of).toEqual([expect.objectContaining({ name: "Invoice Portal", reason: "similar_meaning" })]);
		await f.close();

		f = await openSkillFixture(backend, { embedder: true, resolver: { dedupe: "block" } });
		await f.skills.remember(f.ctx, { label: "Project", name: "Invoice Portal", props: { description: DESCRIPTION } });
		await expect(
			f.skills.remember(f.ctx, { label: "Project", name: "Client Billing Site", props: { description: DESCRIPTION } }),
		).rejects.toMatchObject({ code: "possible_duplicate" });
		expect((await f.graph.counts(f.scope)).nodes).toBe(1);
		expect(await f.memory.vectors?.count(f.scope)).toBe(1);
	});
});

describe.each(testBackends())("remember: structure feedback on $name", (backend) => {
	let f: SkillFixture;
	afterEach(async () => {
		await f.close();
	});

	it("an orphan gets orphan_warning and suggested relations from the resolver", async () => {
		f = await openSkillFixture(backend);
		await f.skills.remember(f.ctx, { label: "Technology", name: "OAuth" });
		const r = await f.skills.remember(f.ctx, { label: "Concept", name: "OAuth refresh rotation", props: { description: "rotating OAuth refresh tokens" } });
		expect(r.degree).toBe(0);
		expect(r.orphan_warning).toMatch(/has no relations/);
		expect(r.suggested_relations?.map((s) => [s.node.name, s.type, s.direction])).toEqual([["OAuth", "IMPLEMENTS", "in"]]);
	});

	it("tags naming anchors become suggestions (suggest), edges (auto) or nothing (off)", async () => {
		f = await openSkillFixture(backend);
		await f.skills.remember(f.ctx, { label: "Project", name: "Billing Portal" });
		await f.skills.remember(f.ctx, { label: "Client", name: "Acme Corp" });
		await f.skills.remember(f.ctx, { label: "Course", name: "Web Security 101" });
		await f.skills.remember(f.ctx, { label: "Domain", name: "Security" });
		const tags = ["billing-portal", "#acme_corp", "course/web-security-101", "security", "unrelated"];
		const suggest = await f.skills.remember(f.ctx, { label: "Concept", name: "CSRF tokens", props: { tags } });
		const byType = Object.fromEntries((suggest.suggested_relations ?? []).filter((s) => s.reason === "tag").map((s) => [s.node.name, [s.type, s.direction]]));
		expect(byType).toEqual({
			"Billing Portal": ["BELONGS_TO", "out"],
			"Acme Corp": ["RELATED_TO", "out"], // FOR is Project/Course → Client only: RELATED_TO stands in
			"Web Security 101": ["COVERS", "in"],
			Security: ["IN_DOMAIN", "out"],
		});
		expect(suggest.degree).toBe(0);
		await f.close();

		f = await openSkillFixture(backend, { resolver: { tagLinking: "auto" } });
		await f.skills.remember(f.ctx, { label: "Project", name: "Billing Portal" });
		await f.skills.remember(f.ctx, { label: "Course", name: "Web Security 101" });
		const auto = await f.skills.remember(f.ctx, { label: "Concept", name: "CSRF tokens", props: { tags } });
		expect(auto.relations_from_tags?.map((t) => `${t.type}:${t.node.name}`).sort()).toEqual(["BELONGS_TO:Billing Portal", "COVERS:Web Security 101"]);
		expect(auto.degree).toBe(2);
		expect(auto.orphan_warning).toBeUndefined();
		const ctx = await f.skills.context(f.scope, { name: "Web Security 101" }, 1);
		expect(ctx?.relations).toEqual([expect.objectContaining({ from: "Web Security 101", type: "COVERS", to: "CSRF tokens", direction: "out" })]);
		await f.close();

		f = await openSkillFixture(backend, { resolver: { tagLinking: "off" } });
		await f.skills.remember(f.ctx, { label: "Project", name: "Billing Portal" });
		const off = await f.skills.remember(f.ctx, { label: "Concept", name: "CSRF tokens", props: { tags } });
		expect((off.suggested_relations ?? []).filter((s) => s.reason === "tag")).toEqual([]);
	});

	it("a Project tagged with a Client's name gets FOR (outgoing)", async () => {
		f = await openSkillFixture(backend);
		await f.skills.remember(f.ctx, { label: "Client", name: "Acme Corp" });
		const r = await f.skills.remember(f.ctx, { label: "Project", name: "Acme Portal", props: { tags: ["client/acme-corp"] } });
		expect(r.suggested_relations?.filter((s) => s.reason === "tag").map((s) => [s.type, s.direction, s.node.name, s.tag])).toEqual([
			["FOR", "out", "Acme Corp", "client/acme-corp"],
		]);
	});

	it("ENGRAMA_REQUIRE_RELATIONS refuses an orphan (nothing written, counter untouched) but not an anchor", async () => {
		f = await openSkillFixture(backend, { resolver: { requireRelations: true } });
		await expect(f.skills.remember(f.ctx, { label: "Concept", name: "Loner" })).rejects.toThrow(/ENGRAMA_REQUIRE_RELATIONS/);
		expect((await f.graph.counts(f.scope)).nodes).toBe(0);
		const anchor = await f.skills.remember(f.ctx, { label: "Project", name: "Alone but anchor" });
		expect(anchor.degree).toBe(0);
		const linked = await f.skills.remember(f.ctx, { label: "Concept", name: "Linked", relations: { SUBSET_OF: ["Parent concept"] } });
		expect(linked.degree).toBe(1);
		expect((await f.graph.counts(f.scope)).nodes).toBe(3);
	});

	it("stub lifecycle: a summary clears the stub; a stub with 3+ relations asks to be enriched", async () => {
		f = await openSkillFixture(backend);
		await f.skills.remember(f.ctx, { label: "Project", name: "A", relations: { USES: ["Redis"] } });
		await f.skills.remember(f.ctx, { label: "Project", name: "B", relations: { USES: ["Redis"] } });
		const third = await f.skills.remember(f.ctx, { label: "Project", name: "C", relations: { USES: ["redis"] } });
		expect(third.relations[0]).toMatchObject({ outcome: "resolved", node: { name: "Redis", status: "stub" } });
		expect(third.enrich_hint).toEqual([expect.objectContaining({ name: "Redis", degree: 3 })]);

		const touched = await f.skills.remember(f.ctx, { label: "Technology", name: "Redis", props: { version: "7" } });
		expect(touched.node.status).toBe("stub");
		expect(touched.enrich_hint?.[0]).toMatchObject({ name: "Redis", degree: 3 });

		const enriched = await f.skills.remember(f.ctx, { label: "Technology", name: "Redis", props: { summary: "in-memory data store" } });
		expect(enriched.node.status).toBe("active");
		expect(enriched.enrich_hint).toBeUndefined();
	});

	it("a stub of a label with a status vocabulary clears to that label's default", async () => {
		f = await openSkillFixture(backend);
		await f.skills.remember(f.ctx, { label: "Project", name: "Shop", relations: { HAS: ["Checkout times out"] } });
		const stub = await f.memory.get(f.scope, "Problem", "Checkout times out");
		expect(stub?.props.status).toBe("stub");
		const r = await f.skills.remember(f.ctx, { label: "Problem", name: "Checkout times out", props: { details: "after 30 s under load" } });
		expect(r.node.status).toBe("open");
	});

	it("normalises statuses per label and keeps unknown ones in status_note", async () => {
		f = await openSkillFixture(backend);
		const known = await f.skills.remember(f.ctx, { label: "Problem", name: "Leak", props: { status: "Fixed" } });
		expect(known.node.status).toBe("resolved");
		const unknown = await f.skills.remember(f.ctx, { label: "Project", name: "Shop", props: { status: "en pausa larga" } });
		expect(unknown.node.status).toBe("active");
		expect(unknown.node.props.status_note).toBe("en pausa larga");
		expect(unknown.warnings.join(" ")).toMatch(/Unknown Project status/);
	});

	it("after 10 remembers since the last reflect, remember returns proactive_hint; reset clears it", async () => {
		f = await openSkillFixture(backend);
		const { resetProactiveCounter } = await import("../../../src/engine/skills");
		for (let i = 1; i <= 9; i++) {
			const r = await f.skills.remember(f.ctx, { label: "Concept", name: `Concept ${i}` });
			expect(r.proactive_hint).toBeUndefined();
		}
		const tenth = await f.skills.remember(f.ctx, { label: "Concept", name: "Concept 10" });
		expect(tenth.proactive_hint).toMatch(/10 memories since the last reflect/);
		// Another tenant has its own counter.
		const other = await f.skills.remember(f.otherCtx, { label: "Concept", name: "Elsewhere" });
		expect(other.proactive_hint).toBeUndefined();
		await resetProactiveCounter(f.memory, f.scope);
		expect((await f.skills.remember(f.ctx, { label: "Concept", name: "Concept 11" })).proactive_hint).toBeUndefined();
	});
});

describe.each(testBackends())("remember: bad input on $name", (backend) => {
	let f: SkillFixture;
	beforeEach(async () => {
		f = await openSkillFixture(backend);
	});
	afterEach(async () => {
		await f.close();
	});

	it.each([
		["punctuation only", "!!! ---"],
		["whitespace only", "   \t "],
		["10 KB", "x".repeat(10_240)],
	])("refuses a %s name and writes nothing", async (_case, name) => {
		await expect(f.skills.remember(f.ctx, { label: "Concept", name })).rejects.toBeInstanceOf(ValidationError);
		await expect(f.skills.remember(f.ctx, { label: "Project", name: "Ok", relations: { USES: [name] } })).rejects.toBeInstanceOf(ValidationError);
		expect(await f.graph.counts(f.scope)).toEqual({ nodes: 0, edges: 0 });
	});

	it("refuses an empty relation target and writes nothing", async () => {
		await expect(
			f.skills.remember(f.ctx, { label: "Project", name: "Billing", relations: { USES: ["Python", ""] } }),
		).rejects.toThrow(/relations\.USES\[1\]/);
		expect(await f.graph.counts(f.scope)).toEqual({ nodes: 0, edges: 0 });
	});

	it.each([
		["relations that are not an object", "USES", /relations must be an object/],
		["relations that are a list", ["USES"], /relations must be an object/],
		["a target that is not a name", { USES: ["Python", 42] }, /relations\.USES\[1\]: must be a name/],
		["a target object without a name", { USES: [{ label: "Technology" }] }, /relations\.USES\[0\]: The name must be a string/],
		["an unknown target label", { USES: [{ name: "Python", label: "Gadget" }] }, /relations\.USES\[0\]: Unknown label "Gadget"/],
		["over 200 targets", Object.fromEntries(["USES", "RELATED_TO", "DEPENDS_ON"].map((t) => [t, Array.from({ length: 70 }, (_, i) => `${t} ${i}`)])), /more than 200 targets/],
	])("refuses %s and writes nothing", async (_case, relations, message) => {
		await expect(f.skills.remember(f.ctx, { label: "Project", name: "Billing", relations })).rejects.toThrow(message);
		expect(await f.graph.counts(f.scope)).toEqual({ nodes: 0, edges: 0 });
	});

	it("rejects a self-relation however the target spells the node (case, accents, alias, a close typo)", async () => {
		const r = await f.skills.remember(f.ctx, {
			label: "Concept",
			name: "Idempotência",
			props: { aliases: ["idem"] },
			relations: { SIMILAR_TO: ["IDEMPOTENCIA", "idem", "Idempotencias"] },
		});
		expect(r.relations.map((o) => [o.target, o.outcome, o.resolution])).toEqual([
			["IDEMPOTENCIA", "rejected", "self_relation"],
			["idem", "rejected", "self_relation"],
			["Idempotencias", "rejected", "self_relation"],
		]);
		expect(r.degree).toBe(0);
		expect(await f.graph.counts(f.scope)).toEqual({ nodes: 1, edges: 0 });
	});

	it("refuses a write with a partial scope and writes nothing", async () => {
		const partial = { scope: { orgId: "acme" }, source: "mcp" as const };
		await expect(f.skills.remember(partial, { label: "Concept", name: "Half scoped" })).rejects.toBeInstanceOf(ScopeError);
		expect(await f.graph.counts(f.scope)).toEqual({ nodes: 0, edges: 0 });
		expect(await f.graph.counts({ orgId: "acme", userId: "bob" })).toEqual({ nodes: 0, edges: 0 });
	});

	it("brings an archived node back to its previous status, with a warning", async () => {
		await f.skills.remember(f.ctx, { label: "Problem", name: "Memory leak", props: { status: "open" } });
		await f.skills.forget(f.ctx, { label: "Problem", name: "Memory leak" });
		const again = await f.skills.remember(f.ctx, { label: "Problem", name: "memory leak", props: { details: "back again" } });
		expect(again).toMatchObject({ created: false, node: { name: "Memory leak", status: "open" } });
		expect(again.node.props.archived_at).toBeUndefined();
		expect(again.warnings.join(" ")).toMatch(/was archived; remembering it made it open again/);
	});
});

describe.each(testBackends())("remember: accent and case variants under block mode on $name", (backend) => {
	let f: SkillFixture;
	beforeEach(async () => {
		f = await openSkillFixture(backend, { resolver: { dedupe: "block" } });
	});
	afterEach(async () => {
		await f.close();
	});

	it("the same label updates the existing node (never refused); another label is refused as label_conflict", async () => {
		const first = await f.skills.remember(f.ctx, { label: "Person", name: "José Núñez" });
		const again = await f.skills.remember(f.ctx, { label: "Person", name: "JOSE_NUNEZ", props: { role: "reviewer" } });
		expect(again).toMatchObject({ created: false, node: { node_id: first.node.node_id, name: "José Núñez" } });
		await expect(f.skills.remember(f.ctx, { label: "Concept", name: "jose-nunez" })).rejects.toMatchObject({
			code: "possible_duplicate",
			details: { did_you_mean: [expect.objectContaining({ label: "Person", name: "José Núñez", reason: "label_conflict" })] },
		});
		expect(await f.graph.counts(f.scope)).toEqual({ nodes: 1, edges: 0 });
	});
});
