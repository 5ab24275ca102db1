import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ValidationError } from "../../../src/engine/errors";
import { decayedConfidence, parsePointInTime, propChanges, propsAsOf } from "../../../src/engine/temporal";
import { testBackends } from "../../contracts/backends";
import { openSkillFixture, type SkillFixture } from "../skills/skill-fixture";

describe("decay formula and dates", () => {
	it("confidence × exp(−rate × days)", () => {
		expect(decayedConfidence(1, 0.01, 90)).toBeCloseTo(Math.exp(-0.9), 10);
		expect(decayedConfidence(0.5, 0.1, 0)).toBe(0.5);
	});

	it("a bare date means the end of that day; garbage is refused", () => {
		expect(parsePointInTime("2026-03-01")).toBe("2026-03-01T23:59:59.999Z");
		expect(parsePointInTime("2026-03-01T10:00:00Z")).toBe("2026-03-01T10:00:00.000Z");
		expect(() => parsePointInTime("last tuesday")).toThrow(ValidationError);
	});

	it("history diff ignores bookkeeping and can be undone to a date", () => {
		const before = { name: "A", status: "open", updated_at: "x", source: "cli" };
		const after = { name: "A", status: "resolved", solution: "restart", source: "mcp" };
		const changes = propChanges("n1", before, after, "2026-02-01T00:00:00.000Z", "mcp");
		expect(changes.map((c) => [c.prop, c.before, c.after])).toEqual([
			["solution", null, "restart"],
			["status", "open", "resolved"],
		]);
		expect(propsAsOf(after, changes, "2026-01-15T00:00:00.000Z")).toEqual({ name: "A", status: "open", source: "mcp" });
		expect(propsAsOf(after, changes, "2026-02-02T00:00:00.000Z")).toEqual(after);
	});
});

describe.each(testBackends())("temporal reasoning on $name", (backend) => {
	let f: SkillFixture;
	beforeEach(async () => {
		f = await openSkillFixture(backend);
	});
	afterEach(async () => {
		await f.close();
	});

	const remember = (label: string, name: string, props: Record<string, unknown> = {}) => f.skills.remember(f.ctx, { label, name, props });
	const confidence = async (label: string, name: string) => (await f.memory.get(f.scope, label, name))?.props.confidence;

	// Since engrama-py 0.18.1 decay is read-time only: stored confidence stays what the writer said.
	it("decay writes nothing: stored confidence and updated_at stay as written; it reports the ranking weight", async () => {
		await remember("Concept", "Old idea", { confidence: 0.8 });
		f.clock.advanceDays(80);
		await remember("Concept", "Fresh idea");
		f.clock.advanceDays(20); // Old idea: 100 days, Fresh idea: 20 days
		const report = await f.skills.decay(f.ctx, { rate: 0.01, maxAgeDays: 90 });
		expect(report).toMatchObject({ examined: 2, aged: 1, decayed: 0, dryRun: true, halfLifeDays: 30 });
		expect(report.rate).toBeCloseTo(Math.LN2 / 30, 10);
		expect(report.sample.map((c) => c.node.key)).toEqual(["Old idea"]);
		expect(report.sample[0].confidence).toBe(0.8);
		expect(report.sample[0].rankingConfidence).toBeCloseTo(0.8 * 2 ** (-100 / 30), 6);
		expect(await confidence("Concept", "Old idea")).toBe(0.8);
		expect(await confidence("Concept", "Fresh idea")).toBe(1);
		const old = await f.memory.get(f.scope, "Concept", "Old idea");
		expect(old?.updatedAt).toBe("2026-01-01T09:00:00.000Z");
		expect(old?.props.decayed_at).toBeUndefined();
		await expect(f.skills.decay(f.ctx, { rate: -1, maxAgeDays: 90 })).rejects.toBeInstanceOf(ValidationError);
	});

	it("ranking reflects age once: decay runs do not lower an old node's temporal signal again", async () => {
		await remember("Concept", "Quartz clock drift", { description: "quartz drift notes" });
		f.clock.advanceDays(100);
		await remember("Concept", "Quartz clock tuning", { description: "quartz drift notes" });
		const temporalOf = async () => {
			const view = await f.memory.search(f.scope, "quartz drift", { graph: false });
			return Object.fromEntries(view.results.map((r) => [r.name, r.scores.temporal]));
		};
		const before = await temporalOf();
		expect(before["Quartz clock tuning"]).toBeCloseTo(1, 6);
		expect(before["Quartz clock drift"]).toBeCloseTo(2 ** (-100 / 30), 5);
		await f.skills.decay(f.ctx, { rate: 0.05, maxAgeDays: 0 });
		await f.skills.decay(f.ctx, { rate: 0.05, maxAgeDays: 0 });
		expect(await temporalOf()).toEqual(before);
	});

	it("setting valid_to halves confidence; updating a superseded node revives it with a conflict warning", async () => {
		await remember("Decision", "Use MySQL", { rationale: "team knows it" });
		f.clock.advanceDays(30);
		const superseded = await remember("Decision", "Use MySQL", { valid_to: "2026-01-20" });
		expect(superseded.node.props.confidence).toBe(0.5);
		expect(superseded.node.props.valid_to).toBe("2026-01-20T00:00:00.000Z");
		f.clock.advanceDays(1);
		const revived = await remember("Decision", "Use MySQL", { rationale: "back to MySQL after all" });
		expect(revived.node.props.valid_to).toBeUndefined();
		expect(revived.warnings.join(" ")).toMatch(/conflict: Decision "Use MySQL" had been superseded/);
	});

	it("history records every property change with when and by which source", async () => {
		await remember("Problem", "Checkout times out", { status: "open" });
		f.clock.advanceDays(2);
		await remember("Problem", "Checkout times out", { status: "fixed", solution: "raise pool size" });
		f.clock.advanceDays(1);
		await f.skills.forget(f.ctx, { label: "Problem", name: "Checkout times out" });
		const h = await f.skills.history(f.scope, { label: "Problem", name: "checkout times out" });
		expect(h.created_at).toBe("2026-01-01T09:00:00.000Z");
		expect(h.changes.map((c) => [c.at.slice(0, 10), c.prop, c.before, c.after, c.source])).toEqual([
			["2026-01-03", "solution", null, "raise pool size", "mcp"],
			["2026-01-03", "status", "open", "resolved", "mcp"],
			["2026-01-04", "archived_at", null, "2026-01-04T09:00:00.000Z", "mcp"],
			["2026-01-04", "previous_status", null, "resolved", "mcp"],
			["2026-01-04", "status", "resolved", "archived", "mcp"],
		]);
	});

	it("query_at_date returns what was valid then, with the props of then", async () => {
		await remember("Technology", "MySQL", { version: "5.7" });
		await remember("Technology", "CouchDB", { valid_from: "2025-06-01", valid_to: "2025-12-01" });
		f.clock.set("2026-02-01T00:00:00.000Z");
		await remember("Technology", "MySQL", { version: "8.0" });
		await remember("Technology", "Postgres");
		f.clock.set("2026-03-01T00:00:00.000Z");
		await f.skills.forget(f.ctx, { label: "Technology", name: "MySQL" });

		const january = await f.skills.atDate(f.scope, { at: "2026-01-15" });
		expect(january.nodes.map((n) => [n.name, n.props.version ?? null, n.status])).toEqual([["MySQL", "5.7", "active"]]);
		const autumn = await f.skills.atDate(f.scope, { at: "2025-09-01", label: "technology" });
		expect(autumn.nodes.map((n) => n.name)).toEqual(["CouchDB"]);
		const february = await f.skills.atDate(f.scope, { at: "2026-02-15" });
		expect(february.nodes.map((n) => [n.name, n.props.version ?? null])).toEqual([
			["MySQL", "8.0"],
			["Postgres", null],
		]);
		const march = await f.skills.atDate(f.scope, { at: "2026-03-15" });
		expect(march.nodes.map((n) => n.name)).toEqual(["Postgres"]);
		expect((await f.skills.atDate(f.otherCtx.scope, { at: "2026-02-15" })).nodes).toEqual([]);
	});
});
