import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { normaliseName, queryFragments } from "../../../src/engine/resolver";
import type { PartialScope } from "../../../src/engine/types";
import { testBackends } from "../../contracts/backends";
import { openSkillFixture, type SkillFixture } from "../skills/skill-fixture";

describe.each(testBackends())("GraphStore.nameCandidates on $name", (backend) => {
	let f: SkillFixture;
	beforeEach(async () => {
		f = await openSkillFixture(backend);
	});
	afterEach(async () => {
		await f.close();
	});

	const candidates = (name: string, limit = 200, scope: PartialScope = f.scope) => {
		const normalised = normaliseName(name);
		return f.graph.nameCandidates(scope, { normalised, fragments: queryFragments(normalised), limit });
	};
	const remember = (label: string, name: string, props: Record<string, unknown> = {}) =>
		f.memory.remember(f.ctx, { label, key: name, props });

	it("finds the exact name first, then names sharing fragments, and a typo'd name", async () => {
		await remember("Technology", "Postgres XL");
		await remember("Concept", "Post-mortem");
		await remember("Technology", "PostgreSQL");
		await remember("Technology", "Redis");
		const found = await candidates("postgresql");
		expect(found[0].key).toBe("PostgreSQL");
		expect(found.map((n) => n.key)).toContain("Postgres XL");
		expect(found.map((n) => n.key)).not.toContain("Redis");
		expect((await candidates("Postgrsql")).map((n) => n.key)).toContain("PostgreSQL");
	});

	it("includes archived nodes and honours the limit", async () => {
		for (let i = 0; i < 12; i++) await remember("Concept", `Cache layer ${i}`);
		await f.memory.forget(f.ctx, { label: "Concept", key: "Cache layer 3" });
		expect(await candidates("cache layer", 5)).toHaveLength(5);
		expect((await candidates("cache layer 3"))[0]).toMatchObject({ key: "Cache layer 3", props: { status: "archived" } });
	});

	it("is scope-filtered and fail-closed", async () => {
		await f.memory.remember(f.otherCtx, { label: "Technology", key: "Kafka" });
		expect(await candidates("kafka")).toEqual([]);
		expect((await candidates("kafka", 10, f.otherCtx.scope)).map((n) => n.key)).toEqual(["Kafka"]);
		expect(await candidates("kafka", 10, { orgId: "acme" })).toEqual([]);
	});

	it("follows aliases as they change, and forgets deleted nodes", async () => {
		await remember("Technology", "Kubernetes", { aliases: ["k8s"] });
		expect((await candidates("K8S")).map((n) => n.key)).toEqual(["Kubernetes"]);
		await remember("Technology", "Kubernetes", { aliases: ["kube"] });
		expect(await candidates("k8s")).toEqual([]);
		expect((await candidates("kube")).map((n) => n.key)).toEqual(["Kubernetes"]);
		await f.memory.forget(f.ctx, { label: "Technology", key: "Kubernetes" }, { hard: true });
		expect(await candidates("kube")).toEqual([]);
	});

	it("caps each fragment's postings per direction: nearest length first, then the oldest (SQLite's order on every backend)", async () => {
		// 40 names of length 5 and, written after them, 5 of length 4, all sharing the fragment "zq":
		// the upward cap (32) keeps the 5 nearer ones and the 27 oldest of length 5.
		for (let i = 0; i < 40; i++) await remember("Concept", `Zq ${String(i).padStart(2, "0")}`);
		for (let i = 0; i < 5; i++) await remember("Concept", `Zq ${i}`);
		const found = (await candidates("zq")).map((n) => n.key);
		expect(found).toEqual([
			...Array.from({ length: 5 }, (_, i) => `Zq ${i}`),
			...Array.from({ length: 27 }, (_, i) => `Zq ${String(i).padStart(2, "0")}`),
		]);
	});
});
