import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { NotFoundError, ValidationError } from "../../../src/engine/errors";
import { testBackends } from "../../contracts/backends";
import { openSkillFixture, type SkillFixture } from "./skill-fixture";

describe.each(testBackends())("relate, context and recall on $name", (backend) => {
	let f: SkillFixture;
	beforeEach(async () => {
		f = await openSkillFixture(backend);
		await f.skills.remember(f.ctx, { label: "Project", name: "Billing Portal", props: { description: "invoices" } });
		await f.skills.remember(f.ctx, { label: "Technology", name: "PostgreSQL" });
		await f.skills.remember(f.ctx, { label: "Concept", name: "PostgreSQL" });
	});
	afterEach(async () => {
		await f.close();
	});

	it("relate validates against the profile and finds endpoints by name", async () => {
		const r = await f.skills.relate(f.ctx, { name: "billing portal" }, "uses", { label: "Technology", name: "postgresql" });
		expect(r).toMatchObject({ created: true, type: "USES", from: { name: "Billing Portal" }, to: { label: "Technology" } });
		expect((await f.skills.relate(f.ctx, { name: "Billing Portal" }, "USES", { label: "Technology", name: "PostgreSQL" })).created).toBe(false);
		await expect(f.skills.relate(f.ctx, { name: "Billing Portal" }, "TEACHES", { label: "Concept", name: "PostgreSQL" })).rejects.toThrow(/not allowed/);
	});

	it("relate refuses ambiguous names, missing names (with did_you_mean) and self-relations", async () => {
		await expect(f.skills.relate(f.ctx, { name: "Billing Portal" }, "USES", { name: "PostgreSQL" })).rejects.toThrow(/names 2 nodes/);
		const missing = f.skills.relate(f.ctx, { name: "Billing Portl" }, "USES", { label: "Technology", name: "PostgreSQL" });
		await expect(missing).rejects.toBeInstanceOf(NotFoundError);
		await expect(missing).rejects.toThrow(/Did you mean: Project "Billing Portal"/);
		await expect(f.skills.relate(f.ctx, { name: "Billing Portal" }, "SIMILAR_TO", { name: "billing-portal" })).rejects.toBeInstanceOf(ValidationError);
		expect((await f.graph.counts(f.scope)).edges).toBe(0);
	});

	it("context walks N hops with labels and direction", async () => {
		await f.skills.remember(f.ctx, { label: "Problem", name: "Slow invoices", relations: { CAUSED_BY: [{ name: "PostgreSQL", label: "Technology" }] } });
		await f.skills.relate(f.ctx, { name: "Billing Portal" }, "USES", { label: "Technology", name: "PostgreSQL" });
		const one = await f.skills.context(f.scope, { label: "Technology", name: "PostgreSQL" }, 1);
		expect(one?.relations.map((r) => [r.from, r.type, r.to, r.direction, r.from_label]).sort()).toEqual([
			["Billing Portal", "USES", "PostgreSQL", "in", "Project"],
			["Slow invoices", "CAUSED_BY", "PostgreSQL", "in", "Problem"],
		]);
		const two = await f.skills.context(f.scope, { name: "Slow invoices" }, 2);
		expect(two?.neighbours.map((n) => [n.name, n.depth]).sort()).toEqual([
			["Billing Portal", 2],
			["PostgreSQL", 1],
		]);
		expect(await f.skills.context(f.scope, { name: "Nothing here" })).toBeNull();
		expect(await f.skills.context({ orgId: "x" }, { name: "Slow invoices" })).toBeNull();
	});

	it("recall ranks by search and never shows archived nodes", async () => {
		const found = await f.skills.recall(f.scope, "invoices");
		expect(found.results.map((r) => r.name)).toEqual(["Billing Portal"]);
		await f.skills.forget(f.ctx, { name: "Billing Portal" });
		expect((await f.skills.recall(f.scope, "invoices")).results).toEqual([]);
	});
});
