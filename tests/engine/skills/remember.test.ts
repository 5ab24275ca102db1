import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ValidationError } from "../../../src/engine/errors";
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

	it("creates a stub when nothing is close, labelled from the relation type", async () => {
		const r = await remember("Project", "Billing Portal", {}, { USES: ["Stripe"] });
		expect(r.relations[0]).toMatchObject({ outcome: "stubbed", resolution: "stub", created: true });
		expect(r.relations[0].node).toMatchObject({ label: "Technology", name: "Stripe", status: "stub" });
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
});
