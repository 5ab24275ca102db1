import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ReflectDetectorId } from "../../../src/engine/protocols";
import { reflect, type ReflectReport } from "../../../src/engine/reflect";
import { CTX, openReflectHarness, SCOPE, type ReflectHarness } from "./reflect-fixture";

// Each detector on a small graph with its true cases and deliberate near misses: the detector
// must propose exactly the true cases (no false positives), and nothing where the pattern is absent.

let h: ReflectHarness;
beforeEach(async () => {
	h = await openReflectHarness({ now: "2026-03-15T10:00:00.000Z" });
});
afterEach(async () => h.close());

async function run(detector: ReflectDetectorId, budget?: number): Promise<ReflectReport> {
	return reflect(h.memory, CTX, { detectors: [detector], budget });
}

/** The report line of the one detector a test ran. */
function ran(report: ReflectReport) {
	const lines = report.detectors.filter((d) => d.skipped !== "not requested");
	expect(lines).toHaveLength(1);
	return lines[0];
}

function titles(report: ReflectReport): string[] {
	return report.insights.map((i) => i.title);
}

function confidences(report: ReflectReport): Record<string, number> {
	return Object.fromEntries(report.insights.map((i) => [i.title, i.confidence]));
}

async function archive(label: string, key: string): Promise<void> {
	await h.memory.forget(CTX, { label, key });
}

describe("cross-project solution", () => {
	it("pairs an open Problem with a Problem resolved by a Decision in another project through a shared Concept", async () => {
		for (const p of ["Alpha", "Beta", "Gamma"]) await h.node("Project", p, { status: "active" });
		await h.node("Concept", "Retries");
		await h.node("Concept", "Caching");
		const problem = async (title: string, status: string, project?: string, concept = "Retries") => {
			await h.node("Problem", title, { status });
			if (project) await h.rel("Problem", title, "BELONGS_TO", "Project", project);
			await h.rel("Problem", title, "APPLIES", "Concept", concept);
		};
		const solve = async (title: string, decision: string, status = "accepted") => {
			await h.node("Decision", decision, { status });
			await h.rel("Problem", title, "SOLVED_BY", "Decision", decision);
		};
		await problem("Open in Beta", "open", "Beta");
		await problem("Fixed in Alpha", "resolved", "Alpha");
		await solve("Fixed in Alpha", "Use idempotency keys");
		// Membership through Project HAS Problem counts too.
		await h.node("Problem", "Fixed in Gamma", { status: "fixed" });
		await h.rel("Project", "Gamma", "HAS", "Problem", "Fixed in Gamma");
		await h.rel("Problem", "Fixed in Gamma", "APPLIES", "Concept", "Retries");
		await solve("Fixed in Gamma", "Retry with backoff");
		// Near misses.
		await problem("Fixed in Beta too", "resolved", "Beta");
		await solve("Fixed in Beta too", "Same project decision");
		await problem("Fixed without a decision", "resolved", "Alpha");
		await problem("Fixed by a rejected decision", "resolved", "Alpha");
		await solve("Fixed by a rejected decision", "Rejected idea", "rejected");
		await problem("Open without a project", "open");
		await problem("Fixed on another concept", "resolved", "Alpha", "Caching");
		await solve("Fixed on another concept", "Cache busting");
		await problem("Archived fix", "resolved", "Alpha");
		await solve("Archived fix", "Archived decision");
		await archive("Problem", "Archived fix");
		await problem("Superseded fix", "resolved", "Alpha");
		await solve("Superseded fix", "Old decision");
		await h.node("Problem", "Superseded fix", { valid_to: "2026-01-01" });
		await problem("Wontfix in Alpha", "wontfix", "Alpha");
		await solve("Wontfix in Alpha", "Never mind");

		const report = await run("cross_project_solution");
		expect(titles(report)).toEqual([
			'Cross-project solution: "Open in Beta" may be solved like "Fixed in Alpha"',
			'Cross-project solution: "Open in Beta" may be solved like "Fixed in Gamma"',
		]);
		expect(report.insights[0].body).toBe(
			'"Open in Beta" is still open in Beta. It shares the concept Retries with "Fixed in Alpha", which was resolved in Alpha by the decision "Use idempotency keys". Consider applying that decision to the open problem.',
		);
		expect(report.insights.map((i) => i.confidence)).toEqual([0.85, 0.85]);
	});

	it("finds nothing without an open Problem", async () => {
		for (const p of ["Alpha", "Beta"]) await h.node("Project", p);
		await h.node("Concept", "Retries");
		for (const [title, project] of [
			["One", "Alpha"],
			["Two", "Beta"],
		]) {
			await h.node("Problem", title, { status: "resolved" });
			await h.rel("Problem", title, "BELONGS_TO", "Project", project);
			await h.rel("Problem", title, "APPLIES", "Concept", "Retries");
			await h.node("Decision", `Fix ${title}`);
			await h.rel("Problem", title, "SOLVED_BY", "Decision", `Fix ${title}`);
		}
		const report = await run("cross_project_solution");
		expect(ran(report)).toMatchObject({ ran: true, found: 0, created: 0 });
		expect(report.insights).toEqual([]);
	});
});

describe("shared technology", () => {
	it("proposes one Insight per Technology used, taught or built on by three or more entities", async () => {
		await h.node("Technology", "TypeScript");
		await h.node("Technology", "Go");
		await h.node("Technology", "Lonely");
		await h.node("Technology", "Half-archived");
		await h.node("Technology", "Pair");
		for (const p of ["Portal", "Booking", "Warehouse"]) await h.node("Project", p);
		for (const p of ["Portal", "Booking"]) await h.rel("Project", p, "USES", "Technology", "TypeScript");
		await h.node("Course", "Bootcamp");
		await h.rel("Course", "Bootcamp", "TEACHES", "Technology", "TypeScript");
		for (const p of ["Portal", "Booking", "Warehouse"]) await h.rel("Project", p, "USES", "Technology", "Go");
		// Near misses: two users (the old rule's pair), one user plus untyped or other links, a third user archived.
		for (const p of ["Portal", "Booking"]) await h.rel("Project", p, "USES", "Technology", "Pair");
		await h.rel("Project", "Portal", "USES", "Technology", "Lonely");
		await h.node("Note", "Daily");
		await h.rel("Note", "Daily", "LINKS_TO", "Technology", "Lonely");
		await h.rel("Note", "Daily", "RELATED_TO", "Technology", "Lonely");
		await h.node("Project", "Gone");
		for (const p of ["Portal", "Booking", "Gone"]) await h.rel("Project", p, "USES", "Technology", "Half-archived");
		await archive("Project", "Gone");

		const report = await run("shared_technology");
		// Users of different labels: 0.75; all of one label: 0.6.
		expect(confidences(report)).toEqual({ "Shared technology: TypeScript": 0.75, "Shared technology: Go": 0.6 });
		const typescript = report.insights.find((i) => i.title === "Shared technology: TypeScript");
		expect(typescript?.body).toBe(
			"3 entities use TypeScript: Booking (Project), Bootcamp (Course, teaches it) and Portal (Project). What one of them learns about TypeScript (fixes, patterns, material, people) can help the others.",
		);
		expect(typescript?.about.map((a) => a.name).sort()).toEqual(["Booking", "Bootcamp", "Portal", "TypeScript"]);
	});

	it("lists at most listCap users, with the full count, and judges the labels on all of them", async () => {
		await h.node("Technology", "Perl");
		for (const p of ["P1", "P2", "P3", "P4"]) {
			await h.node("Project", p);
			await h.rel("Project", p, "USES", "Technology", "Perl");
		}
		await h.node("Technology", "Scripting");
		await h.rel("Technology", "Scripting", "COMPOSED_OF", "Technology", "Perl");
		const report = await reflect(h.memory, CTX, { detectors: ["shared_technology"], listCap: 2 });
		expect(report.insights.map((i) => [i.title, i.confidence, i.body])).toEqual([
			[
				"Shared technology: Perl",
				0.75,
				"5 entities use Perl: P1 (Project), P2 (Project) and 3 more. What one of them learns about Perl (fixes, patterns, material, people) can help the others.",
			],
		]);
		expect(report.insights[0].about.map((a) => a.name).sort()).toEqual(["P1", "P2", "Perl"]);
		const all = await run("shared_technology");
		expect(all.insights[0].body).toContain("P4 (Project) and Scripting (Technology, built from it).");
	});

	it("ignores a Technology whose third user is superseded", async () => {
		await h.node("Technology", "Perl");
		for (const p of ["Now", "Also now", "Then"]) {
			await h.node("Project", p);
			await h.rel("Project", p, "USES", "Technology", "Perl");
		}
		await h.node("Project", "Then", { valid_to: "2025-01-01" });
		expect(titles(await run("shared_technology"))).toEqual([]);
	});

	it("retires the pending pair Insights of the old rule on the next run within budget, never reviewed ones", async () => {
		await h.node("Technology", "TypeScript");
		await h.node("Technology", "Deno");
		for (const p of ["P1", "P2", "P3"]) {
			await h.node("Project", p);
			await h.rel("Project", p, "USES", "Technology", "TypeScript");
		}
		for (const p of ["P1", "P2"]) await h.rel("Project", p, "USES", "Technology", "Deno");
		// What the pairwise rule wrote: one pending Insight per pair of users, linked ABOUT the three.
		const pair = async (tech: string, a: string, b: string) => {
			const title = `Shared technology: ${tech} links ${a} and ${b}`;
			await h.node("Insight", title, {
				body: `${a} (Project) uses ${tech}, and ${b} (Project) uses it. What one of them learns about ${tech} (fixes, patterns, material, people) can help the other.`,
				confidence: 0.6,
				status: "pending",
				source_query: "shared_technology",
			});
			for (const [label, key] of [["Technology", tech], ["Project", a], ["Project", b]]) await h.rel("Insight", title, "ABOUT", label, key);
			return title;
		};
		const pending = [await pair("TypeScript", "P1", "P2"), await pair("Deno", "P1", "P2")];
		const approved = await pair("TypeScript", "P1", "P3");
		const dismissed = await pair("TypeScript", "P2", "P3");
		const { reviewInsight } = await import("../../../src/engine/reflect");
		await reviewInsight(h.memory, CTX, approved, "approved", "worth a chat");
		await reviewInsight(h.memory, CTX, dismissed, "dismissed");
		const insight = (title: string) => h.memory.graph.getNode(SCOPE, "Insight", title);
		const reviewedBefore = await Promise.all([approved, dismissed].map(insight));

		// Over budget (a second Technology with three users, budget 1): nothing is retired yet.
		await h.node("Technology", "Go");
		for (const p of ["P1", "P2", "P3"]) await h.rel("Project", p, "USES", "Technology", "Go");
		const capped = await run("shared_technology", 1);
		expect(ran(capped)).toMatchObject({ created: 1, retired: 0, over_budget: true });
		for (const title of pending) expect((await insight(title))?.props.status, title).toBe("pending");

		const next = await run("shared_technology");
		expect(ran(next)).toMatchObject({ created: 1, unchanged: 1, retired: 2, over_budget: false });
		expect(titles(next).sort()).toEqual(["Shared technology: Go", "Shared technology: TypeScript"]);
		for (const title of pending) {
			expect((await insight(title))?.props, title).toMatchObject({ status: "archived", retired: "reflect no longer finds this pattern" });
		}
		expect(await Promise.all([approved, dismissed].map(insight))).toEqual(reviewedBefore);
		const left = await h.memory.graph.listNodes(SCOPE, { label: "Insight", status: ["pending"] });
		expect(left.map((n) => n.key).sort()).toEqual(["Shared technology: Go", "Shared technology: TypeScript"]);
	});
});

describe("training opportunity", () => {
	it("flags a Concept behind two or more open issues that no course or lesson covers", async () => {
		await h.node("Course", "Bootcamp");
		await h.node("Lesson", "Caching lesson");
		const concept = async (name: string, issues: [label: string, title: string, status: string][]) => {
			await h.node("Concept", name);
			for (const [label, title, status] of issues) {
				await h.node(label, title, { status });
				await h.rel(label, title, label === "Vulnerability" ? "RELATED_TO" : "APPLIES", "Concept", name);
			}
		};
		await concept("Cache Invalidation", [
			["Problem", "Stale totals", "open"],
			["Problem", "Stale dashboard", "in progress"],
		]);
		await concept("Input Validation", [
			["Problem", "Bad form data", "open"],
			["Vulnerability", "SQL injection in search", "open"],
		]);
		// Near misses: covered by a course, taught by a lesson, only one open issue, closed issues.
		await concept("Idempotency", [
			["Problem", "Double charge", "open"],
			["Problem", "Double booking", "open"],
		]);
		await h.rel("Course", "Bootcamp", "COVERS", "Concept", "Idempotency");
		await concept("Memoisation", [
			["Problem", "Slow report", "open"],
			["Problem", "Slow export", "open"],
		]);
		await h.rel("Lesson", "Caching lesson", "TEACHES", "Concept", "Memoisation");
		await concept("Retries", [
			["Problem", "Flaky job", "open"],
			["Problem", "Flaky sync", "resolved"],
			["Vulnerability", "Replay attack", "fixed"],
		]);

		const report = await run("training_opportunity");
		expect(titles(report)).toEqual(["Training opportunity: Cache Invalidation", "Training opportunity: Input Validation"]);
		expect(report.insights[0].body).toBe(
			'2 open problems involve Cache Invalidation: "Stale dashboard" and "Stale totals". No course or lesson covers or teaches Cache Invalidation yet: a lesson on it could help solve these and prevent the next one.',
		);
		expect(report.insights[1].body).toContain("2 open problems and vulnerabilities involve Input Validation");
		expect(report.insights.every((i) => i.confidence === 0.65)).toBe(true);
	});

	it("does not run without courses, and says why", async () => {
		await h.node("Concept", "Caching");
		await h.node("Problem", "A", { status: "open" });
		await h.node("Problem", "B", { status: "open" });
		const report = await run("training_opportunity");
		expect(ran(report)).toMatchObject({ ran: false, skipped: "needs a Course node" });
	});
});

describe("technique transfer", () => {
	it("proposes a Concept applied in one project to an active project sharing its context", async () => {
		await h.node("Domain", "Web");
		await h.node("Technology", "TypeScript");
		await h.node("Technology", "Python");
		const project = async (name: string, status: string, contexts: [string, string, string][]) => {
			await h.node("Project", name, { status });
			for (const [type, label, key] of contexts) await h.rel("Project", name, type, label, key);
		};
		await project("Portal", "active", [
			["USES", "Technology", "TypeScript"],
			["IN_DOMAIN", "Domain", "Web"],
		]);
		await project("Booking", "active", [
			["USES", "Technology", "TypeScript"],
			["IN_DOMAIN", "Domain", "Web"],
		]);
		await project("Warehouse", "active", [["USES", "Technology", "Python"]]);
		await project("Old site", "completed", [["USES", "Technology", "TypeScript"]]);
		const inPortal = async (label: string, key: string, status: string, concept: string) => {
			await h.node("Concept", concept);
			await h.node(label, key, { status });
			await h.rel(label, key, "BELONGS_TO", "Project", "Portal");
			await h.rel(label, key, "APPLIES", "Concept", concept);
		};
		await inPortal("Problem", "Flaky refresh", "resolved", "Token Rotation");
		await inPortal("Decision", "Rotate tokens", "accepted", "Token Rotation");
		// Near misses: only an open problem in Portal; a proposed decision; already applied in Booking.
		await inPortal("Problem", "Stale totals", "open", "Cache Invalidation");
		await inPortal("Decision", "Maybe feature flags", "proposed", "Feature Flags");
		await inPortal("Decision", "Store event ids", "accepted", "Idempotency");
		await h.node("Problem", "Double booking", { status: "open" });
		await h.rel("Project", "Booking", "HAS", "Problem", "Double booking");
		await h.rel("Problem", "Double booking", "APPLIES", "Concept", "Idempotency");
		// A project applying a concept directly is a source too.
		await h.node("Concept", "Accessibility");
		await h.rel("Project", "Portal", "APPLIES", "Concept", "Accessibility");

		const report = await run("technique_transfer");
		expect(confidences(report)).toEqual({
			"Technique transfer: Accessibility from Portal to Booking": 0.7,
			"Technique transfer: Token Rotation from Portal to Booking": 0.7,
		});
		const token = report.insights.find((i) => i.title.includes("Token Rotation"));
		expect(token?.body).toBe(
			'Portal applied Token Rotation ("Flaky refresh", resolved; "Rotate tokens", decision). Booking is active and shares TypeScript and Web with it, but nothing in Booking applies Token Rotation yet. It may be worth trying there.',
		);
	});

	it("scales confidence with the shared contexts: 0.5 + 0.1 per context, at most 0.9", async () => {
		await h.node("Concept", "Observability");
		await h.node("Project", "Source", { status: "active" });
		await h.node("Project", "Target", { status: "active" });
		await h.rel("Project", "Source", "APPLIES", "Concept", "Observability");
		for (let i = 1; i <= 6; i++) {
			await h.node("Technology", `Tech ${i}`);
			await h.rel("Project", "Source", "USES", "Technology", `Tech ${i}`);
			await h.rel("Project", "Target", "USES", "Technology", `Tech ${i}`);
		}
		const report = await run("technique_transfer");
		expect(confidences(report)).toEqual({ "Technique transfer: Observability from Source to Target": 0.9 });
	});
});

describe("concept clustering", () => {
	it("flags a Concept shared by three or more live entities through typed relations", async () => {
		await h.node("Concept", "Idempotency");
		await h.node("Concept", "Caching");
		await h.node("Concept", "Half-archived");
		await h.node("Problem", "Double charge");
		await h.node("Decision", "Store event ids");
		await h.node("Note", "Reading notes");
		await h.node("Note", "Daily");
		await h.rel("Problem", "Double charge", "APPLIES", "Concept", "Idempotency");
		await h.rel("Decision", "Store event ids", "APPLIES", "Concept", "Idempotency");
		await h.rel("Note", "Reading notes", "RELATED_TO", "Concept", "Idempotency");
		// Near misses: two typed members plus a body link; three members, one archived.
		await h.rel("Problem", "Double charge", "APPLIES", "Concept", "Caching");
		await h.rel("Decision", "Store event ids", "APPLIES", "Concept", "Caching");
		await h.rel("Note", "Daily", "LINKS_TO", "Concept", "Caching");
		await h.node("Problem", "Old bug");
		await h.rel("Problem", "Double charge", "APPLIES", "Concept", "Half-archived");
		await h.rel("Decision", "Store event ids", "APPLIES", "Concept", "Half-archived");
		await h.rel("Problem", "Old bug", "APPLIES", "Concept", "Half-archived");
		await archive("Problem", "Old bug");

		const report = await run("concept_clustering");
		expect(confidences(report)).toEqual({ "Concept cluster: Idempotency": 0.65 });
		expect(report.insights[0].body).toBe(
			'3 entities relate to Idempotency: "Double charge" (Problem), Reading notes (Note) and "Store event ids" (Decision). Looking at them together may show a common thread worth a note of its own.',
		);
	});
});

describe("stale knowledge", () => {
	it("flags old or low-confidence knowledge still linked to an active Project or Course", async () => {
		await h.node("Project", "Portal", { status: "active" });
		await h.node("Project", "Old site", { status: "completed" });
		await h.node("Course", "Bootcamp", { status: "running" });
		const tech = async (name: string, props: Record<string, unknown>, from: [string, string, string] | null) => {
			await h.node("Technology", name, props);
			if (from) await h.rel(from[0], from[1], from[2], "Technology", name);
		};
		await tech("Express", { updated: "2025-07-01" }, ["Course", "Bootcamp", "TEACHES"]);
		await tech("Moment.js", { confidence: 0.2 }, ["Project", "Portal", "USES"]);
		// Near misses: only linked to a completed project; linked only by a body link; recent; a Note.
		await tech("jQuery", { confidence: 0.2 }, ["Project", "Old site", "USES"]);
		await tech("Grunt", { updated: "2025-01-01" }, ["Project", "Portal", "LINKS_TO"]);
		await tech("Vite", { updated: "2026-03-01" }, ["Project", "Portal", "USES"]);
		await h.node("Note", "Ancient note", { confidence: 0.1 });
		await h.rel("Note", "Ancient note", "BELONGS_TO", "Project", "Portal");
		// A node with no declared date goes stale by its own last write.
		h.clock.set("2025-10-01T00:00:00.000Z");
		await h.node("Decision", "Use cookies");
		await h.rel("Decision", "Use cookies", "BELONGS_TO", "Project", "Portal");
		h.clock.set("2026-03-15T10:00:00.000Z");

		const report = await run("stale_knowledge");
		expect(titles(report)).toEqual([
			"Stale knowledge: Express (Technology)",
			"Stale knowledge: Moment.js (Technology)",
			'Stale knowledge: "Use cookies" (Decision)',
		]);
		expect(report.insights[0].body).toBe(
			"Express (Technology) was last updated on 2025-07-01, more than 90 days ago, and is still linked to active work: Bootcamp TEACHES Express (active course). Check that it is still true, then update it or archive it.",
		);
		expect(report.insights[1].body).toContain("has a low confidence (0.2)");
		expect(report.insights[2].body).toContain("was last updated on 2025-10-01");
		expect(report.insights.every((i) => i.confidence === 0.5)).toBe(true);
	});
});

describe("under-connected nodes", () => {
	it("flags typed nodes with fewer than two distinct live neighbours, never Notes or stubs", async () => {
		await h.node("Project", "Portal", { status: "active" });
		await h.node("Domain", "Web");
		for (const t of ["T1", "T2", "Lonely", "Linked only by notes", "Half-archived"]) await h.node("Technology", t);
		await h.rel("Project", "Portal", "USES", "Technology", "T1");
		await h.rel("Project", "Portal", "USES", "Technology", "T2");
		await h.rel("Project", "Portal", "IN_DOMAIN", "Domain", "Web");
		await h.rel("Technology", "T1", "IN_DOMAIN", "Domain", "Web");
		await h.rel("Technology", "T2", "IN_DOMAIN", "Domain", "Web");
		// Two edges to the same node are one neighbour.
		await h.node("Person", "Ana");
		await h.rel("Project", "Portal", "INVOLVES", "Person", "Ana");
		await h.rel("Person", "Ana", "BELONGS_TO", "Project", "Portal");
		await h.rel("Technology", "Linked only by notes", "IN_DOMAIN", "Domain", "Web");
		for (const n of ["Note one", "Note two"]) {
			await h.node("Note", n);
			await h.rel("Note", n, "LINKS_TO", "Technology", "Linked only by notes");
			await h.rel("Note", n, "LINKS_TO", "Project", "Portal");
		}
		await h.rel("Technology", "Half-archived", "IN_DOMAIN", "Domain", "Web");
		await h.node("Project", "Gone");
		await h.rel("Project", "Gone", "USES", "Technology", "Half-archived");
		await archive("Project", "Gone");
		await h.node("Person", "Placeholder", { status: "stub" });
		await h.rel("Project", "Portal", "INVOLVES", "Person", "Placeholder");
		await h.node("Note", "Untyped and alone");

		const report = await run("under_connected");
		expect(titles(report)).toEqual([
			"Under-connected: Lonely (Technology)",
			"Under-connected: Ana (Person)",
			"Under-connected: Half-archived (Technology)",
			"Under-connected: Linked only by notes (Technology)",
		]);
		expect(report.insights[1].body).toBe(
			"Ana (Person) has only one relation: Ana BELONGS_TO Portal. Link it to the projects, problems or concepts it belongs with, or archive it if it no longer matters.",
		);
		expect(report.insights[0].body).toContain("Lonely (Technology) has no relations.");

		// Reflect's own Insights (ABOUT edges) neither count as relations nor get flagged.
		const again = await run("under_connected");
		expect(again.created).toBe(0);
		expect(titles(again)).toEqual(titles(report));
	});
});

describe("hub stubs", () => {
	it("flags a stub referred to by three or more entities, never a Note stub", async () => {
		await h.node("Person", "Elena Vidal", { status: "stub" });
		await h.node("Domain", "Healthcare", { status: "stub" });
		await h.node("Note", "Unwritten", { status: "stub" });
		await h.node("Person", "Real person");
		for (const p of ["A", "B"]) {
			await h.node("Project", p);
			await h.rel("Project", p, "INVOLVES", "Person", "Elena Vidal");
			await h.rel("Project", p, "IN_DOMAIN", "Domain", "Healthcare");
			await h.rel("Project", p, "RELATED_TO", "Note", "Unwritten");
			await h.rel("Project", p, "INVOLVES", "Person", "Real person");
		}
		await h.node("Course", "C");
		await h.rel("Course", "C", "INVOLVES", "Person", "Elena Vidal");
		await h.rel("Course", "C", "RELATED_TO", "Note", "Unwritten");
		await h.rel("Course", "C", "INVOLVES", "Person", "Real person");
		await h.node("Note", "Daily");
		await h.rel("Note", "Daily", "LINKS_TO", "Domain", "Healthcare");

		const report = await run("hub_stubs");
		expect(confidences(report)).toEqual({ "Hub stub: Elena Vidal (Person)": 0.6 });
		expect(report.insights[0].body).toContain("3 entities refer to it: A, B and C");
	});
});

describe("the run itself", () => {
	it("reports every detector as skipped, with the reason, on an empty graph", async () => {
		const report = await reflect(h.memory, CTX);
		expect(report.detectors.map((d) => [d.detector, d.ran, d.skipped])).toEqual([
			["cross_project_solution", false, "needs at least 2 Problem nodes, a Concept node, a Decision node and at least 2 Project nodes"],
			["shared_technology", false, "needs a Technology node"],
			["training_opportunity", false, "needs a Concept node, at least 2 Problem or Vulnerability nodes and a Course node"],
			["technique_transfer", false, "needs a Concept or Technique node and at least 2 Project nodes"],
			["concept_clustering", false, "needs a Concept node"],
			["stale_knowledge", false, "needs a Project or Course node"],
			["under_connected", false, "needs a typed node (only untyped notes in the graph)"],
			["hub_stubs", false, "needs nodes (the graph is empty)"],
			["unlinked_tag", false, "needs a Project or Client or Course or Domain node"],
		]);
		expect(report.created).toBe(0);
	});

	it("holds at most 25 Insights per detector by default", async () => {
		// 28 Technologies with no relations: 28 under-connected patterns, 3 more than the default budget.
		for (let i = 10; i < 38; i++) await h.node("Technology", `T${i}`);
		const report = await reflect(h.memory, CTX);
		expect(report.budget).toBe(25);
		expect(report.detectors.find((d) => d.detector === "under_connected")).toMatchObject({ ran: true, found: 25, created: 25, over_budget: true });
		expect(report.insights.filter((i) => i.detector === "under_connected")).toHaveLength(25);
		expect(report.insights.filter((i) => i.detector === "under_connected").at(-1)?.title).toBe("Under-connected: T34 (Technology)");
	});

	it("caps each detector at its budget, and fills freed slots after a review without resurfacing it", async () => {
		for (const t of ["T1", "T2", "T3", "T4"]) await h.node("Technology", t);
		const first = await run("under_connected", 2);
		expect(titles(first)).toEqual(["Under-connected: T1 (Technology)", "Under-connected: T2 (Technology)"]);
		expect(ran(first)).toMatchObject({ created: 2, over_budget: true });

		const { reviewInsight } = await import("../../../src/engine/reflect");
		await reviewInsight(h.memory, CTX, "Under-connected: T1 (Technology)", "dismissed");
		const second = await run("under_connected", 2);
		expect(titles(second)).toEqual(["Under-connected: T2 (Technology)", "Under-connected: T3 (Technology)"]);
		expect(ran(second)).toMatchObject({ created: 1, unchanged: 1, reviewed: 1 });
		const pending = await h.memory.graph.listNodes(SCOPE, { label: "Insight", status: ["pending"] });
		expect(pending.map((n) => n.key).sort()).toEqual(titles(second));
	});

	it("refreshes a pending Insight when its pattern changes, and only then", async () => {
		await h.node("Concept", "Idempotency");
		for (const p of ["One", "Two", "Three"]) {
			await h.node("Problem", p);
			await h.rel("Problem", p, "APPLIES", "Concept", "Idempotency");
		}
		const first = await run("concept_clustering");
		const before = first.insights[0];
		expect(before.confidence).toBe(0.65);

		h.clock.set("2026-03-16T10:00:00.000Z");
		await h.node("Problem", "Four");
		await h.rel("Problem", "Four", "APPLIES", "Concept", "Idempotency");
		await archive("Problem", "One");
		await h.node("Problem", "Five");
		await h.rel("Problem", "Five", "APPLIES", "Concept", "Idempotency");
		const second = await run("concept_clustering");
		expect(ran(second)).toMatchObject({ created: 0, refreshed: 1 });
		const after = second.insights[0];
		expect(after.insight_id).toBe(before.insight_id);
		expect(after.confidence).toBe(0.7);
		expect(after.body).toMatch(/^4 entities relate to Idempotency: "Five" \(Problem\), "Four" \(Problem\), "Three" \(Problem\) and "Two" \(Problem\)/);
		expect(after.about.map((a) => a.name)).toEqual(["Five", "Four", "Idempotency", "Three", "Two"]);
		expect(after.updated_at).toBe("2026-03-16T10:00:00.000Z");
	});

	it("retires a pending Insight whose pattern is gone, and proposes it again if the pattern returns", async () => {
		await h.node("Concept", "Idempotency");
		for (const p of ["One", "Two", "Three"]) {
			await h.node("Problem", p);
			await h.rel("Problem", p, "APPLIES", "Concept", "Idempotency");
		}
		const first = await run("concept_clustering");
		const id = first.insights[0].insight_id;

		await archive("Problem", "Three");
		const gone = await run("concept_clustering");
		expect(ran(gone)).toMatchObject({ found: 0, created: 0, retired: 1 });
		const retired = await h.memory.graph.getNode(SCOPE, "Insight", "Concept cluster: Idempotency");
		expect(retired?.props).toMatchObject({ status: "archived", retired: "reflect no longer finds this pattern" });
		expect(ran(await run("concept_clustering"))).toMatchObject({ retired: 0, created: 0 });

		await h.node("Problem", "Four");
		await h.rel("Problem", "Four", "APPLIES", "Concept", "Idempotency");
		const back = await run("concept_clustering");
		expect(ran(back)).toMatchObject({ created: 1, retired: 0 });
		expect(back.insights[0]).toMatchObject({ insight_id: id, status: "pending" });
		const revived = await h.memory.graph.getNode(SCOPE, "Insight", "Concept cluster: Idempotency");
		expect(revived?.props.retired).toBeUndefined();
		expect(back.insights[0].about.map((a) => a.name)).toEqual(["Four", "Idempotency", "One", "Two"]);
	});

	it("never retires an Insight a person dismissed, nor one the budget kept out of view", async () => {
		for (const t of ["T1", "T2", "T3"]) await h.node("Technology", t);
		await run("under_connected");
		const { reviewInsight } = await import("../../../src/engine/reflect");
		await reviewInsight(h.memory, CTX, "Under-connected: T1 (Technology)", "dismissed");
		// Budget 1: only the first pending pattern is looked at; the other stays pending.
		const capped = await run("under_connected", 1);
		expect(ran(capped)).toMatchObject({ unchanged: 1, reviewed: 1, retired: 0, over_budget: true });
		expect((await h.memory.graph.getNode(SCOPE, "Insight", "Under-connected: T3 (Technology)"))?.props.status).toBe("pending");
		// T1 and T3 gain two neighbours each (as do those): their patterns are gone; T2 keeps its.
		await h.node("Project", "Hub");
		await h.node("Domain", "Web");
		for (const t of ["T1", "T3"]) {
			await h.rel("Project", "Hub", "USES", "Technology", t);
			await h.rel("Technology", t, "IN_DOMAIN", "Domain", "Web");
		}
		const after = await run("under_connected");
		expect(ran(after)).toMatchObject({ retired: 1 });
		expect((await h.memory.graph.getNode(SCOPE, "Insight", "Under-connected: T1 (Technology)"))?.props.status).toBe("dismissed");
		expect((await h.memory.graph.getNode(SCOPE, "Insight", "Under-connected: T3 (Technology)"))?.props.status).toBe("archived");
	});

	it("resets the proactive remember counter", async () => {
		const { bumpProactiveCounter, readProactiveCounter } = await import("../../../src/engine/reflect/proactive-counter");
		for (let i = 0; i < 4; i++) await bumpProactiveCounter(h.memory, SCOPE);
		expect(await readProactiveCounter(h.memory, SCOPE)).toBe(4);
		await reflect(h.memory, CTX);
		expect(await readProactiveCounter(h.memory, SCOPE)).toBe(0);
	});

	it("reads nothing for a partial or foreign scope", async () => {
		await h.node("Concept", "Solo");
		const reflectRows = h.memory.graph.reflectRows?.bind(h.memory.graph);
		const params = { limit: 10, listCap: 5, staleBefore: "2026-01-01", lowConfidence: 0.3 };
		expect(await reflectRows?.(SCOPE, "under_connected", params)).toHaveLength(1);
		expect(await reflectRows?.({ orgId: SCOPE.orgId }, "under_connected", params)).toEqual([]);
		expect(await reflectRows?.({ orgId: SCOPE.orgId, userId: "someone-else" }, "under_connected", params)).toEqual([]);
	});
});
