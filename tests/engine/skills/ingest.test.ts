import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ValidationError } from "../../../src/engine/errors";
import { extractMentions, guessKind } from "../../../src/engine/skills";
import { testBackends } from "../../contracts/backends";
import { openSkillFixture, type SkillFixture } from "./skill-fixture";

const NOTE = `---
title: Billing retro
tags: [billing]
---
# Billing retro

We moved [[Billing Portal]] invoices to \`PostgreSQL\` and hit the Stripe Webhooks retry storm again.
Decision: adopt Idempotency Keys for every webhook. #payments
`;

const CHAT = `User: we keep seeing duplicate charges from Stripe Webhooks
Assistant: that sounds like missing idempotency keys; are retries enabled?
User: yes, and the Billing Portal runs on PostgreSQL`;

describe("ingest helpers", () => {
	it("guesses the kind of content", () => {
		expect(guessKind(NOTE)).toBe("note");
		expect(guessKind(CHAT)).toBe("conversation");
		expect(guessKind("plain words about caching and retries")).toBe("text");
	});

	it("spots names: wikilinks, tags, headings, code, capitalised phrases", () => {
		const mentions = extractMentions(NOTE);
		expect(mentions.slice(0, 2)).toEqual(["Billing Portal", "payments"]);
		expect(mentions).toEqual(expect.arrayContaining(["Billing retro", "PostgreSQL", "Stripe Webhooks", "Idempotency Keys"]));
		expect(mentions).not.toContain("We");
	});
});

describe.each(testBackends())("ingest on $name", (backend) => {
	let f: SkillFixture;
	beforeEach(async () => {
		f = await openSkillFixture(backend);
	});
	afterEach(async () => {
		await f.close();
	});

	it("returns the content, guidance from the active profile and dedup hints for existing nodes", async () => {
		await f.skills.remember(f.ctx, { label: "Project", name: "Billing Portal" });
		await f.skills.remember(f.ctx, { label: "Technology", name: "Postgresql" });
		await f.skills.remember(f.ctx, { label: "Concept", name: "Idempotency key" });
		await f.skills.remember(f.ctx, { label: "Concept", name: "Unrelated thing" });
		const r = await f.skills.ingest(f.scope, { content: CHAT, source: "chat-2026-01-02" });
		expect(r).toMatchObject({ kind: "conversation", source: "chat-2026-01-02", content: CHAT, characters: CHAT.length });
		expect(r.guidance.labels.map((l) => l.label)).toEqual(expect.arrayContaining(["Project", "Concept", "Course"]));
		expect(r.guidance.labels.map((l) => l.label)).not.toContain("Insight");
		expect(r.guidance.relations.find((x) => x.type === "USES")).toBeDefined();
		expect(r.guidance.anchors).toEqual(expect.arrayContaining(["Project", "Course"]));
		expect(r.guidance.instructions.join(" ")).toMatch(/conversation/);
		const hinted = Object.fromEntries(r.dedup_hints.map((h) => [h.name, h.reason]));
		expect(hinted["Billing Portal"]).toBe("exact");
		expect(hinted.Postgresql).toBe("exact");
		expect(hinted["Unrelated thing"]).toBeUndefined();
	});

	it("finds existing nodes named in plain lower-case words (key or alias), not nodes that only share words", async () => {
		await f.skills.remember(f.ctx, { label: "Project", name: "Billing Portal", props: { summary: "invoices and payments" } });
		await f.skills.remember(f.ctx, { label: "Technology", name: "PostgreSQL", props: { aliases: ["postgres"] } });
		await f.skills.remember(f.ctx, { label: "Concept", name: "Portal billing cycle" });
		const r = await f.skills.ingest(f.scope, { content: "user: the billing portal is slow again\nassistant: is postgres overloaded?" });
		expect(r.mentions).toEqual([]);
		expect(r.dedup_hints.map((h) => [h.name, h.mention, h.reason])).toEqual(
			expect.arrayContaining([
				["Billing Portal", "billing portal", "exact"],
				["PostgreSQL", "postgres", "exact"],
			]),
		);
		expect(r.dedup_hints.find((h) => h.name === "Portal billing cycle")?.reason).not.toBe("exact");
	});

	it("refuses empty or oversize content and gives no hints for a partial scope", async () => {
		await expect(f.skills.ingest(f.scope, { content: "  " })).rejects.toBeInstanceOf(ValidationError);
		await expect(f.skills.ingest(f.scope, { content: "x".repeat(200_001) })).rejects.toThrow(/Split it/);
		await f.skills.remember(f.ctx, { label: "Project", name: "Billing Portal" });
		expect((await f.skills.ingest({ orgId: "x" }, { content: NOTE })).dedup_hints).toEqual([]);
	});
});
