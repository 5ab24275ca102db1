import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reflect, reviewInsight, type ReflectReport } from "../../../src/engine/reflect";
import { approvedInsights, CTX, openReflectHarness, SCOPE, type ReflectHarness } from "./reflect-fixture";

// The example vault through the real sync service, then reflect: exactly the Insights of
// __approved__/example-vault.insights.txt (examples/README.md explains each true case and near miss).

describe("reflect on examples/vault", () => {
	let h: ReflectHarness;
	let first: ReflectReport;

	beforeAll(async () => {
		// Any clock after 2025-11-18 makes exactly the three dated notes older than 90 days.
		h = await openReflectHarness({ now: "2026-03-15T10:00:00.000Z" });
		await h.syncExampleVault();
		first = await reflect(h.memory, CTX);
	});
	afterAll(async () => h?.close());

	it("proposes exactly the approved Insights, in detector order, with the spec's confidences", () => {
		const got = first.insights.map((i) => ({ detector: i.detector, confidence: i.confidence, title: i.title }));
		expect(got).toEqual(approvedInsights());
		expect(first.insights.every((i) => i.status === "pending")).toBe(true);
	});

	it("runs all nine detectors and each creates at least one Insight", () => {
		expect(first.detectors.map((d) => d.detector)).toEqual([
			"cross_project_solution",
			"shared_technology",
			"training_opportunity",
			"technique_transfer",
			"concept_clustering",
			"stale_knowledge",
			"under_connected",
			"hub_stubs",
			"unlinked_tag",
		]);
		for (const d of first.detectors) {
			expect(d.ran, d.detector).toBe(true);
			expect(d.created, d.detector).toBeGreaterThanOrEqual(1);
			expect(d.over_budget, d.detector).toBe(false);
		}
		expect(first.created).toBe(approvedInsights().length);
		expect(first.label_counts).toMatchObject({ Project: 4, Problem: 7, Concept: 7, Note: 12 });
	});

	it("explains each pattern in plain words that name the entities, and links the Insight ABOUT them", () => {
		const byTitle = new Map(first.insights.map((i) => [i.title, i]));
		const cross = byTitle.get('Cross-project solution: "Double-booked appointments on slow networks" may be solved like "Duplicate charges on webhook retries"');
		expect(cross?.body).toContain('resolved in Billing Portal by the decision "Store processed webhook event IDs"');
		expect(cross?.body).toContain("is still open in Clinic Booking App");
		expect(cross?.body).toContain("concept Idempotency");
		expect(cross?.about.map((a) => a.name).sort()).toEqual([
			"Double-booked appointments on slow networks",
			"Duplicate charges on webhook retries",
			"Idempotency",
			"Store processed webhook event IDs",
		]);
		expect(byTitle.get("Technique transfer: Token Rotation from Billing Portal to Clinic Booking App")?.body).toContain(
			"shares TypeScript and Web Development with it",
		);
		expect(byTitle.get("Stale knowledge: Express (Technology)")?.body).toContain("last updated on 2025-07-01");
		expect(byTitle.get("Stale knowledge: Express (Technology)")?.body).toContain("Node.js Backend Bootcamp TEACHES Express (active course)");
		expect(byTitle.get("Stale knowledge: Moment.js (Technology)")?.body).toContain("low confidence (0.2)");
		expect(byTitle.get("Concept cluster: Idempotency")?.body).toMatch(/^7 entities relate to Idempotency/);
		expect(byTitle.get("Hub stub: Elena Vidal (Person)")?.body).toContain("Billing Portal, Clinic Booking App and React Fundamentals");
		expect(byTitle.get("Under-connected: Deno (Technology)")?.body).toContain("only one relation: Deno IN_DOMAIN Web Development");
		for (const insight of first.insights) expect(insight.about.length, insight.title).toBeGreaterThan(0);
	});

	it("creates and changes nothing on a second run", async () => {
		const counts = await h.memory.graph.counts(SCOPE);
		const second = await reflect(h.memory, CTX);
		expect(second.created).toBe(0);
		expect(second.refreshed).toBe(0);
		expect(second.unchanged).toBe(first.insights.length);
		expect(second.insights.map((i) => [i.title, i.updated_at, i.body])).toEqual(first.insights.map((i) => [i.title, i.updated_at, i.body]));
		expect(await h.memory.graph.counts(SCOPE)).toEqual(counts);
	});

	it("never resurfaces or rewrites an Insight a person approved or dismissed", async () => {
		const approvedTitle = "Training opportunity: Cache Invalidation";
		const dismissedTitle = "Under-connected: CRDTs (Concept)";
		await reviewInsight(h.memory, CTX, approvedTitle, "approved", "planning a caching lesson");
		await reviewInsight(h.memory, CTX, dismissedTitle, "dismissed", "a someday topic");
		const before = await Promise.all([approvedTitle, dismissedTitle].map((t) => h.memory.graph.getNode(SCOPE, "Insight", t)));

		h.clock.set("2026-04-01T10:00:00.000Z");
		const third = await reflect(h.memory, CTX);
		const titles = third.insights.map((i) => i.title);
		expect(titles).not.toContain(approvedTitle);
		expect(titles).not.toContain(dismissedTitle);
		expect(third.created).toBe(0);
		expect(third.detectors.find((d) => d.detector === "training_opportunity")).toMatchObject({ reviewed: 1, created: 0, unchanged: 0 });
		expect(third.detectors.find((d) => d.detector === "under_connected")).toMatchObject({ reviewed: 1, unchanged: 2 });

		const after = await Promise.all([approvedTitle, dismissedTitle].map((t) => h.memory.graph.getNode(SCOPE, "Insight", t)));
		expect(after).toEqual(before);
		expect(after.map((n) => n?.props.status)).toEqual(["approved", "dismissed"]);
		expect(after.map((n) => n?.props.reason)).toEqual(["planning a caching lesson", "a someday topic"]);
	});
});
