import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { NotFoundError, ValidationError } from "../../../src/engine/errors";
import type { EmbedderHealth, EmbeddingProvider } from "../../../src/engine/protocols";
import { listInsights, reflect, reviewInsight } from "../../../src/engine/reflect";
import { searchProactiveHint, surfaceInsights, writeInsightToNote } from "../../../src/engine/reflect/proactive";
import { CTX, openReflectHarness, SCOPE, type ReflectHarness } from "./reflect-fixture";
import { createSkills } from "../../../src/engine/skills";
import { VaultSync } from "../../../src/engine/sync/vault-sync";

let h: ReflectHarness;
afterEach(async () => h?.close());

/** Two technologies shared by three users each, and a concept cluster: three pending Insights. */
async function smallGraph(embedder: EmbeddingProvider | null = null): Promise<void> {
	h = await openReflectHarness({ embedder });
	await h.node("Technology", "TypeScript");
	await h.node("Technology", "PostgreSQL");
	await h.node("Concept", "Idempotency");
	await h.node("Project", "Portal", { description: "Invoices and card payments for customers" });
	await h.node("Project", "Booking", { description: "Appointments for clinics" });
	await h.node("Project", "Admin");
	await h.node("Project", "Reports");
	await h.node("Course", "Bootcamp");
	for (const p of ["Portal", "Booking", "Admin"]) await h.rel("Project", p, "USES", "Technology", "TypeScript");
	for (const p of ["Portal", "Reports"]) await h.rel("Project", p, "USES", "Technology", "PostgreSQL");
	await h.rel("Course", "Bootcamp", "TEACHES", "Technology", "PostgreSQL");
	for (const p of ["Double charge", "Double booking", "Lost update"]) {
		await h.node("Problem", p);
		await h.rel("Problem", p, "APPLIES", "Concept", "Idempotency");
	}
	await reflect(h.memory, CTX, { detectors: ["shared_technology", "concept_clustering"] });
}

describe("surfacing pending Insights", () => {
	it("lists pending Insights, highest confidence first, within the limit", async () => {
		await smallGraph();
		const all = await surfaceInsights(h.memory, SCOPE);
		expect(all.insights.map((i) => [i.confidence, i.title])).toEqual([
			[0.65, "Concept cluster: Idempotency"],
			[0.75, "Shared technology: PostgreSQL"],
			[0.6, "Shared technology: TypeScript"],
		].sort((a, b) => (b[0] as number) - (a[0] as number)));
		expect((await surfaceInsights(h.memory, SCOPE, { limit: 1 })).insights.map((i) => i.title)).toEqual([
			"Shared technology: PostgreSQL",
		]);
		expect((await surfaceInsights(h.memory, { orgId: SCOPE.orgId }, {})).insights).toEqual([]);
	});

	it("relates Insights to a query by their text, then by the entities they are about", async () => {
		await smallGraph();
		const byText = await surfaceInsights(h.memory, SCOPE, { query: "PostgreSQL" });
		expect(byText.insights.map((i) => [i.title, i.match?.by])).toEqual([["Shared technology: PostgreSQL", "text"]]);

		// "invoices" appears only in Portal's description: the Insights about Portal relate to it.
		const byEntity = await surfaceInsights(h.memory, SCOPE, { query: "invoices" });
		expect(byEntity.insights.map((i) => i.match?.by)).toEqual(["entity", "entity"]);
		expect(byEntity.insights.map((i) => i.title).sort()).toEqual([
			"Shared technology: PostgreSQL",
			"Shared technology: TypeScript",
		]);
		expect((await surfaceInsights(h.memory, SCOPE, { query: "kubernetes" })).insights).toEqual([]);
	});

	it("relates by meaning with an embedder, above the similarity threshold only", async () => {
		await smallGraph(new PhraseEmbedder());
		// "retries are safe" shares no word with any Insight, but the embedder puts it next to the cluster.
		const related = await surfaceInsights(h.memory, SCOPE, { query: "retries are safe" });
		expect(related.insights.map((i) => [i.title, i.match?.by])).toEqual([["Concept cluster: Idempotency", "embedding"]]);
		expect((await surfaceInsights(h.memory, SCOPE, { query: "retries are safe", minSimilarity: 0.99 })).insights).toEqual([]);
	});

	it("leaves reviewed Insights out", async () => {
		await smallGraph();
		await reviewInsight(h.memory, CTX, "Concept cluster: Idempotency", "dismissed");
		expect((await surfaceInsights(h.memory, SCOPE, { query: "Idempotency" })).insights).toEqual([]);
		expect((await surfaceInsights(h.memory, SCOPE)).insights.map((i) => i.title)).not.toContain("Concept cluster: Idempotency");
	});
});

describe("approving and dismissing", () => {
	it("records the verdict and the reason, and lists Insights by status", async () => {
		await smallGraph();
		const approved = await reviewInsight(h.memory, CTX, "Concept cluster: Idempotency", "approved", "worth a note");
		expect(approved).toMatchObject({ previous_status: "pending", changed: true, insight: { status: "approved", reason: "worth a note" } });
		expect(approved.insight.reviewed_at).toBe("2026-03-15T10:00:00.000Z");
		expect((await reviewInsight(h.memory, CTX, "Concept cluster: Idempotency", "approved", "worth a note")).changed).toBe(false);

		await reviewInsight(h.memory, CTX, "Shared technology: TypeScript", "dismissed");
		expect((await listInsights(h.memory, SCOPE, { status: "approved" })).map((i) => i.title)).toEqual(["Concept cluster: Idempotency"]);
		expect((await listInsights(h.memory, SCOPE, { status: "dismissed" })).map((i) => [i.title, i.reason])).toEqual([
			["Shared technology: TypeScript", undefined],
		]);
		expect((await listInsights(h.memory, SCOPE)).map((i) => i.title)).toEqual(["Shared technology: PostgreSQL"]);

		// A person may change their mind; the reason follows the latest verdict.
		const changed = await reviewInsight(h.memory, CTX, "Concept cluster: Idempotency", "dismissed");
		expect(changed).toMatchObject({ previous_status: "approved", insight: { status: "dismissed" } });
		expect(changed.insight.reason).toBeUndefined();
	});

	it("names close titles when the title is wrong, and refuses hand-written Insights", async () => {
		await smallGraph();
		const missing = reviewInsight(h.memory, CTX, "Concept cluster: Idempotence", "approved");
		await expect(missing).rejects.toBeInstanceOf(NotFoundError);
		await expect(missing).rejects.toThrow(/Did you mean: "Concept cluster: Idempotency"/);
		await h.node("Insight", "My own thought", { body: "written by hand" });
		await expect(reviewInsight(h.memory, CTX, "My own thought", "approved")).rejects.toBeInstanceOf(ValidationError);
	});
});

describe("search hints", () => {
	it("carries a proactive_hint when pending Insights relate to the query, and none otherwise", async () => {
		await smallGraph();
		const skills = createSkills(h.memory);
		const view = await skills.search(SCOPE, "Idempotency");
		// The engine names no command or tool: each adapter says how to review there.
		expect(view.proactive_hint).toBe('1 pending Insight relates to this search: "Concept cluster: Idempotency". Review it and approve or dismiss.');
		expect((await skills.search(SCOPE, "appointments clinics")).proactive_hint).toContain("Shared technology: TypeScript");
		expect(await searchProactiveHint(h.memory, SCOPE, "kubernetes")).toBeUndefined();
		// The hint is the face's: the core's search (beneath it) does not detour into reflect.
		expect("proactive_hint" in (await h.memory.search(SCOPE, "Idempotency"))).toBe(false);
		await reviewInsight(h.memory, CTX, "Concept cluster: Idempotency", "approved");
		expect("proactive_hint" in (await skills.search(SCOPE, "Idempotency"))).toBe(false);
	});
});

describe("writing an approved Insight into the vault", () => {
	const title = "Training opportunity: Cache Invalidation";

	async function exampleVault() {
		h = await openReflectHarness();
		const source = await h.syncExampleVault();
		await reflect(h.memory, CTX);
		return source;
	}

	it("refuses pending and dismissed Insights", async () => {
		const source = await exampleVault();
		await expect(writeInsightToNote(h.memory, CTX, source, title, { note: "Concepts/Cache Invalidation.md" })).rejects.toThrow(
			/is pending: only approved Insights are written to the vault/,
		);
		await reviewInsight(h.memory, CTX, title, "dismissed");
		await expect(writeInsightToNote(h.memory, CTX, source, title)).rejects.toThrow(/was dismissed/);
		expect(readFileSync(join(h.vaultDir, "Concepts/Cache Invalidation.md"), "utf8")).not.toContain("Insight");
	});

	it("appends a dated section with links to the entities' notes, once", async () => {
		const source = await exampleVault();
		await reviewInsight(h.memory, CTX, title, "approved");
		const notePath = join(h.vaultDir, "Concepts/Cache Invalidation.md");
		const before = readFileSync(notePath, "utf8");
		const result = await writeInsightToNote(h.memory, CTX, source, title, { note: "Concepts/Cache Invalidation" });
		expect(result).toMatchObject({ path: "Concepts/Cache Invalidation.md", created: false, written: true, insight: { written_to: "Concepts/Cache Invalidation.md" } });
		const after = readFileSync(notePath, "utf8");
		expect(after.startsWith(before.trimEnd())).toBe(true);
		const section = after.slice(before.trimEnd().length);
		expect(section).toContain("## Insight (2026-03-15): Training opportunity: Cache Invalidation");
		expect(section).toContain("2 open problems involve Cache Invalidation");
		expect(section).toContain(
			"Related: [[Concepts/Cache Invalidation|Cache Invalidation]], [[Problems/Dashboard shows outdated stock levels|Dashboard shows outdated stock levels]], [[Problems/Stale invoice totals after a plan change|Stale invoice totals after a plan change]]",
		);

		const again = await writeInsightToNote(h.memory, CTX, source, title, { note: "Concepts/Cache Invalidation.md" });
		expect(again.written).toBe(false);
		expect(readFileSync(notePath, "utf8")).toBe(after);
		await expect(writeInsightToNote(h.memory, CTX, source, title, { note: "Concepts/Nope.md" })).rejects.toBeInstanceOf(NotFoundError);
		// A path that leaves the vault is refused as such, even when the file out there exists.
		writeFileSync(join(h.dir, "outside.md"), "not a vault note\n");
		await expect(writeInsightToNote(h.memory, CTX, source, title, { note: "../outside.md" })).rejects.toThrow('"../outside.md" is outside the vault');
		await expect(writeInsightToNote(h.memory, CTX, source, title, { folder: "../Elsewhere" })).rejects.toBeInstanceOf(ValidationError);
		expect(readFileSync(join(h.dir, "outside.md"), "utf8")).toBe("not a vault note\n");
	});

	it("keeps what the user typed between the read and the append (read-modify-write at write time)", async () => {
		const source = await exampleVault();
		await reviewInsight(h.memory, CTX, title, "approved");
		const notePath = join(h.vaultDir, "Concepts/Cache Invalidation.md");
		// The user types into the note after the skill has read it and before it writes.
		const typing: typeof source = Object.create(source) as typeof source;
		let typed = false;
		typing.read = async (path) => {
			const text = await source.read(path);
			if (!typed) writeFileSync(notePath, `${readFileSync(notePath, "utf8")}\nTyped meanwhile.\n`);
			typed = true;
			return text;
		};
		await writeInsightToNote(h.memory, CTX, typing, title, { note: "Concepts/Cache Invalidation.md" });
		const after = readFileSync(notePath, "utf8");
		expect(after).toContain("Typed meanwhile.");
		expect(after).toContain("## Insight (2026-03-15): Training opportunity: Cache Invalidation");
	});

	it("creates a note in the Insights folder when no note is named", async () => {
		const source = await exampleVault();
		await reviewInsight(h.memory, CTX, "Hub stub: Elena Vidal (Person)", "approved");
		const result = await writeInsightToNote(h.memory, CTX, source, "Hub stub: Elena Vidal (Person)", { folder: "Reviews/Insights" });
		expect(result).toMatchObject({ path: "Reviews/Insights/Hub stub Elena Vidal (Person).md", created: true, written: true });
		const text = readFileSync(join(h.vaultDir, result.path), "utf8");
		expect(text.startsWith("---\ntags: [insight]\nengrama_insight: ")).toBe(true);
		expect(text).toContain("---\n# Hub stub: Elena Vidal (Person)\n\n## Insight (2026-03-15)");
		expect(text).toContain("[[Elena Vidal]]");
		expect(text).toContain("[[Projects/Billing Portal|Billing Portal]]");

		// The next sync sees the note as the Insight's own, not as a new Note beside it.
		const before = await h.memory.graph.listNodes(SCOPE, {});
		const again = new VaultSync({ memory: h.memory, source, scope: SCOPE, settings: { writeGraphToVault: false } });
		const report = await again.fullSync();
		expect(report.counts.nodesCreated).toBe(0);
		const after = await h.memory.graph.listNodes(SCOPE, {});
		expect(after.length).toBe(before.length);
		expect(after.filter((n) => n.props.obsidian_path === result.path).map((n) => n.label)).toEqual([]);
		const insight = after.find((n) => n.label === "Insight" && n.key === "Hub stub: Elena Vidal (Person)");
		expect(insight?.props).toMatchObject({ status: "approved", written_to: result.path });
		await again.stop();
	});
});

/** A stand-in embedder with fixed meanings: phrases about retries sit next to the Idempotency cluster. */
class PhraseEmbedder implements EmbeddingProvider {
	readonly name = "phrases";
	readonly model = "test";
	readonly dimensions = 3;
	async embed(text: string): Promise<Float32Array> {
		const t = text.toLowerCase();
		if (t.includes("idempotency")) return new Float32Array([1, 0.05, 0]);
		if (t.includes("retries")) return new Float32Array([1, 0.3, 0]); // cosine 0.97 with the line above
		if (t.includes("typescript") || t.includes("postgresql")) return new Float32Array([0, 1, 0]);
		return new Float32Array([0, 0, 1]);
	}
	async embedBatch(texts: readonly string[]): Promise<Float32Array[]> {
		return Promise.all(texts.map((t) => this.embed(t)));
	}
	async health(): Promise<EmbedderHealth> {
		return { ok: true };
	}
}
