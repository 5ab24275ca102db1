import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { NotFoundError, ScopeError, ValidationError } from "../../src/engine/errors";
import { createSkills } from "../../src/engine/skills";
import type { WriteContext } from "../../src/engine/write/write-pipeline";
import type { OpenedMemory } from "../../src/nodejs/open-memory";
import { testBackends } from "./backends";

describe.each(testBackends())("graph contract on $name", (backend) => {
	let opened: OpenedMemory;
	let ctx: WriteContext;

	beforeEach(async () => {
		opened = await backend.open();
		ctx = { scope: opened.scope, source: "cli" };
	});
	afterEach(async () => {
		await opened.close();
	});

	const remember = (label: string, key: string, props: Record<string, unknown> = {}) =>
		opened.memory.remember(ctx, { label, key, props });

	it("MERGE returns the stored record with identity, timestamps, temporal fields and provenance", async () => {
		const { node, created } = await remember("Project", "Billing Portal", { description: "Invoices for clients" });
		expect(created).toBe(true);
		expect(node.id).toMatch(/^[0-9a-f-]{36}$/);
		expect(node.label).toBe("Project");
		expect(node.key).toBe("Billing Portal");
		expect(node.props).toMatchObject({
			name: "Billing Portal",
			description: "Invoices for clients",
			confidence: 1,
			source: "cli",
			trust_level: 1,
			org_id: opened.scope.orgId,
			user_id: opened.scope.userId,
		});
		expect(typeof node.props.valid_from).toBe("string");
		expect(node.createdAt).toBe(node.updatedAt);
	});

	it("MERGE is idempotent and merges props instead of dropping them", async () => {
		const first = await remember("Technology", "Python", { version: "3.12" });
		const second = await remember("Technology", "Python", { notes: "scripting" });
		expect(second.created).toBe(false);
		expect(second.node.id).toBe(first.node.id);
		expect(second.node.props).toMatchObject({ version: "3.12", notes: "scripting" });
		const counts = await opened.memory.graph.counts(opened.scope);
		expect(counts.nodes).toBe(1);
	});

	it("gets a node by key, with the label in any case", async () => {
		await remember("Concept", "Idempotency");
		const found = await opened.memory.get(opened.scope, "concept", "Idempotency");
		expect(found?.key).toBe("Idempotency");
		expect(found?.label).toBe("Concept");
		expect(await opened.memory.get(opened.scope, "CONCEPT", "Missing")).toBeNull();
	});

	it("uses title as the key for title-keyed labels", async () => {
		const { node } = await remember("Decision", "Use SQLite by default", { rationale: "no server" });
		expect(node.keyField).toBe("title");
		expect(node.props.title).toBe("Use SQLite by default");
		expect(node.props.name).toBeUndefined();
	});

	it("soft delete archives and hides from search; hard delete removes", async () => {
		await remember("Concept", "Event sourcing", { description: "append only log of changes" });
		await remember("Concept", "CQRS", { description: "separate read and write models" });
		const archived = await opened.memory.forget(ctx, { label: "Concept", key: "Event sourcing" });
		expect(archived.props.status).toBe("archived");
		expect((await opened.memory.get(opened.scope, "Concept", "Event sourcing"))?.props.status).toBe("archived");
		expect(await opened.memory.searchFulltext(opened.scope, "append log")).toEqual([]);

		await opened.memory.forget(ctx, { label: "Concept", key: "CQRS" }, { hard: true });
		expect(await opened.memory.get(opened.scope, "Concept", "CQRS")).toBeNull();
		expect(await opened.memory.searchFulltext(opened.scope, "separate read write")).toEqual([]);
	});

	it("relations are idempotent and refused when an endpoint is missing", async () => {
		await remember("Project", "Billing Portal");
		await remember("Technology", "Python");
		const first = await opened.memory.relate(ctx, { label: "Project", key: "Billing Portal" }, "USES", { label: "Technology", key: "Python" });
		const again = await opened.memory.relate(ctx, { label: "project", key: "Billing Portal" }, "uses", { label: "technology", key: "Python" });
		expect(first.created).toBe(true);
		expect(again.created).toBe(false);
		expect((await opened.memory.graph.counts(opened.scope)).edges).toBe(1);
		await expect(
			opened.memory.relate(ctx, { label: "Project", key: "Billing Portal" }, "USES", { label: "Technology", key: "Rust" }),
		).rejects.toBeInstanceOf(NotFoundError);
	});

	it("refuses unknown labels, unknown relation types and relations the profile does not allow, naming the allowed ones", async () => {
		await expect(remember("Spaceship", "Enterprise")).rejects.toThrow(/Unknown label "Spaceship".*Allowed labels.*Project/);
		await remember("Project", "Billing Portal");
		await remember("Technology", "Python");
		await expect(
			opened.memory.relate(ctx, { label: "Project", key: "Billing Portal" }, "LOVES", { label: "Technology", key: "Python" }),
		).rejects.toThrow(/Unknown relation type "LOVES".*USES/);
		await expect(
			opened.memory.relate(ctx, { label: "Technology", key: "Python" }, "SOLVED_BY", { label: "Project", key: "Billing Portal" }),
		).rejects.toBeInstanceOf(ValidationError);
	});

	it("walks neighbours at 1 and 2 hops", async () => {
		await remember("Project", "Billing Portal");
		await remember("Problem", "Flaky token refresh");
		await remember("Decision", "Rotate refresh tokens");
		await remember("Technology", "Python");
		await opened.memory.relate(ctx, { label: "Project", key: "Billing Portal" }, "HAS", { label: "Problem", key: "Flaky token refresh" });
		await opened.memory.relate(ctx, { label: "Problem", key: "Flaky token refresh" }, "SOLVED_BY", {
			label: "Decision",
			key: "Rotate refresh tokens",
		});
		await opened.memory.relate(ctx, { label: "Project", key: "Billing Portal" }, "USES", { label: "Technology", key: "Python" });

		const skills = createSkills(opened.memory);
		const one = await skills.context(opened.scope, { label: "Project", name: "Billing Portal" }, 1);
		expect(one?.neighbours.map((n) => n.name).sort()).toEqual(["Flaky token refresh", "Python"]);
		const two = await skills.context(opened.scope, { label: "Project", name: "Billing Portal" }, 2);
		expect(two?.neighbours.find((n) => n.name === "Rotate refresh tokens")?.depth).toBe(2);
		expect(two?.relations).toContainEqual(expect.objectContaining({ from: "Flaky token refresh", type: "SOLVED_BY", to: "Rotate refresh tokens", direction: "between" }));
	});

	it("fulltext finds a node by its description, name first", async () => {
		await remember("Concept", "Backpressure", { description: "slowing producers when consumers lag behind" });
		await remember("Concept", "Rate limiting", { description: "capping requests per client" });
		const hits = await opened.memory.searchFulltext(opened.scope, "consumers lag");
		expect(hits.map((h) => h.name)).toEqual(["Backpressure"]);
		expect(hits[0]).toMatchObject({ label: "Concept", score: 1, summary: "slowing producers when consumers lag behind" });
	});

	it("fulltext finds a node by an alias in its aliases list (Obsidian's aliases: property)", async () => {
		// A Chinese note whose English and path-like aliases appear nowhere in its text.
		await remember("Concept", "反向链接", { description: "显示链接到当前笔记的所有笔记。", aliases: ["Backlinks", "核心插件/反向链接"] });
		await remember("Concept", "出链", { description: "显示当前笔记中的所有链接。" });
		expect((await opened.memory.searchFulltext(opened.scope, "Backlinks")).map((h) => h.name)).toEqual(["反向链接"]);
		expect((await opened.memory.searchFulltext(opened.scope, "核心插件")).map((h) => h.name)).toEqual(["反向链接"]);
	});

	it("stores SQL- and Cypher-looking strings verbatim and never executes them", async () => {
		const evil = `Robert'); DROP TABLE nodes; -- MATCH (n) DETACH DELETE n //`;
		const { node } = await remember("Concept", evil, { description: `"; DELETE FROM edges; --` });
		expect(node.key).toBe(evil);
		expect((await opened.memory.get(opened.scope, "Concept", evil))?.props.description).toBe(`"; DELETE FROM edges; --`);
		expect(await opened.memory.searchFulltext(opened.scope, `"OR" NEAR( * ) AND ^title:`)).toEqual([]);
		expect((await opened.memory.graph.counts(opened.scope)).nodes).toBe(1);
	});

	it("counts labels without Insights or archived nodes", async () => {
		await remember("Project", "A");
		await remember("Project", "B");
		await remember("Technology", "Go");
		await remember("Insight", "Shared technology: Go", { body: "x", status: "pending" });
		await remember("Concept", "Gone");
		await opened.memory.forget(ctx, { label: "Concept", key: "Gone" });
		expect(await opened.memory.graph.labelCounts(opened.scope)).toEqual({ Project: 2, Technology: 1 });
	});

	it("reports health", async () => {
		await remember("Project", "A");
		const health = await opened.memory.graph.health();
		expect(health.ok).toBe(true);
		expect(health.backend).toBe(backend.storeName ?? backend.name);
		expect(health.nodes).toBe(1);
	});

	it("isolates scopes: two identities never see each other, a partial scope sees nothing and cannot write", async () => {
		const alice: WriteContext = { scope: { orgId: "acme", userId: "alice" }, source: "mcp" };
		const bob: WriteContext = { scope: { orgId: "acme", userId: "bob" }, source: "mcp" };
		await opened.memory.remember(alice, { label: "Project", key: "Secret", props: { description: "alice only" } });
		await opened.memory.remember(bob, { label: "Project", key: "Secret", props: { description: "bob only" } });
		expect((await opened.memory.get(alice.scope, "Project", "Secret"))?.props.description).toBe("alice only");
		expect((await opened.memory.get(bob.scope, "Project", "Secret"))?.props.description).toBe("bob only");
		expect((await opened.memory.searchFulltext(bob.scope, "alice")).length).toBe(0);

		const partial = { orgId: "acme" };
		expect(await opened.memory.get(partial, "Project", "Secret")).toBeNull();
		expect(await opened.memory.searchFulltext(partial, "only")).toEqual([]);
		expect(await opened.memory.graph.labelCounts(partial)).toEqual({});
		await expect(opened.memory.remember({ scope: partial, source: "mcp" }, { label: "Project", key: "X" })).rejects.toBeInstanceOf(
			ScopeError,
		);
		await expect(
			opened.memory.relate(bob, { label: "Project", key: "Secret" }, "USES", { label: "Technology", key: "Python" }),
		).rejects.toBeInstanceOf(NotFoundError);
	});

	it("tells which engrama_ids other scopes hold (ids are unique per database)", async () => {
		const alice = { scope: { orgId: "acme", userId: "alice" }, source: "mcp" } as const;
		const bob = { scope: { orgId: "acme", userId: "bob" }, source: "mcp" } as const;
		const a = (await opened.memory.remember(alice, { label: "Project", key: "Shared" })).node;
		const b = (await opened.memory.remember(bob, { label: "Project", key: "Own" })).node;
		const unknown = "00000000-0000-4000-8000-000000000000";
		expect([...(await opened.memory.graph.idsOutsideScope(bob.scope, [a.id, b.id, unknown]))]).toEqual([a.id]);
		expect([...(await opened.memory.graph.idsOutsideScope(alice.scope, [a.id, b.id, unknown]))]).toEqual([b.id]);
		expect((await opened.memory.graph.idsOutsideScope({ orgId: "other", userId: "alice" }, [a.id, b.id])).size).toBe(2);
		expect((await opened.memory.graph.idsOutsideScope(alice.scope, [])).size).toBe(0);
	});

	it("reads many nodes by id at once: each as getNodeById reads it, the scope's only, unknown ids absent", async () => {
		const alice = { scope: { orgId: "acme", userId: "alice" }, source: "mcp" } as const;
		const bob = { scope: { orgId: "acme", userId: "bob" }, source: "mcp" } as const;
		const a = (await opened.memory.remember(alice, { label: "Project", key: "Billing", props: { description: "invoices", tags: ["money"] } })).node;
		const b = (await opened.memory.remember(alice, { label: "Person", key: "Ana" })).node;
		const gone = (await opened.memory.remember(alice, { label: "Concept", key: "Old idea" })).node;
		await opened.memory.forget(alice, { label: "Concept", key: "Old idea" });
		const other = (await opened.memory.remember(bob, { label: "Project", key: "Own" })).node;
		const unknown = "00000000-0000-4000-8000-000000000000";
		const found = await opened.memory.graph.getNodesByIds(alice.scope, [b.id, a.id, unknown, other.id, a.id, gone.id]);
		expect([...found.keys()].sort()).toEqual([a.id, b.id, gone.id].sort());
		for (const id of [a.id, b.id, gone.id]) expect(found.get(id)).toEqual(await opened.memory.graph.getNodeById(alice.scope, id));
		expect(found.get(gone.id)?.props.status).toBe("archived");
		expect((await opened.memory.graph.getNodesByIds(alice.scope, [])).size).toBe(0);
		expect((await opened.memory.graph.getNodesByIds({ orgId: "acme" }, [a.id])).size).toBe(0);
	});

	it("reads the lists of a chain walk with the asked ones in one call: each as adjacency reads it, the walk's rules kept", async () => {
		const link = (a: string, b: string, label = "Concept") => opened.memory.relate(ctx, { label: "Concept", key: a }, "RELATED_TO", { label, key: b });
		const id: Record<string, string> = {};
		for (const key of ["C1", "C2", "C3", "C4", "X1", "X2", "Y1", "Y2", "Y3", "Z", "Gone"]) id[key] = (await remember("Concept", key)).node.id;
		for (const key of ["T1", "T2", "T3", "T4", "T5"]) id[key] = (await remember("Technology", key)).node.id;
		// A chain C1-C2-C3-C4; C1 also links X1 and X2 (the first step follows every neighbour of the start's label).
		for (const [a, b] of [["C1", "C2"], ["C2", "C3"], ["C3", "C4"], ["C1", "X1"], ["C1", "X2"], ["X1", "Y1"], ["X1", "Y2"], ["X1", "Y3"], ["X2", "Z"], ["C2", "Gone"]]) await link(a, b);
		// X1 has four neighbours of its label (not a chain's link); X2 is a hub at cap 4; C1 links a Technology.
		for (const t of ["T1", "T2", "T3", "T4", "T5"]) await link("X2", t, "Technology");
		await link("C1", "T1", "Technology");
		await opened.memory.forget(ctx, { label: "Concept", key: "Gone" });
		const adjacency = opened.memory.graph.adjacency?.bind(opened.memory.graph);
		if (!adjacency) throw new Error(`${backend.name} has no adjacency`);
		const cap = 4;
		const lists = async (keys: string[]) => adjacency(opened.scope, keys.map((k) => id[k]), cap);
		const walked = await adjacency(opened.scope, [id.T5, "no-such-id"], cap, { ids: [id.C1, "no-such-id"], hops: 2 });
		// Step 1: C2, X1, X2; step 2 only from C2 (X1 is no chain link, X2 a hub): C3. Not Y*, Z, C4, Gone, T1.
		expect(walked).toEqual(await lists(["T5", "C1", "C2", "X1", "X2", "C3"]));
		expect(await adjacency(opened.scope, [], cap, { ids: [id.C1], hops: 3 })).toEqual(await lists(["C1", "C2", "X1", "X2", "C3", "C4"]));
		expect(await adjacency(opened.scope, [id.X1], cap, { ids: [id.C2], hops: 0 })).toEqual(await lists(["X1", "C2"]));
		expect(await adjacency({ orgId: opened.scope.orgId }, [id.C1], cap, { ids: [id.C1], hops: 2 })).toEqual(new Map());
	});

	it("reads with a missing or partial scope return nothing, and writes without a full scope throw", async () => {
		const alice: WriteContext = { scope: { orgId: "acme", userId: "alice" }, source: "mcp" };
		await opened.memory.remember(alice, { label: "Project", key: "Secret", props: { description: "alice only" } });
		await opened.memory.remember(alice, { label: "Technology", key: "Python" });
		await opened.memory.relate(alice, { label: "Project", key: "Secret" }, "USES", { label: "Technology", key: "Python" });
		const secret = await opened.memory.get(alice.scope, "Project", "Secret");
		expect(secret).not.toBeNull();

		for (const partial of [{}, { orgId: "acme" }, { userId: "alice" }, { orgId: "", userId: "alice" }]) {
			const what = JSON.stringify(partial);
			expect(await opened.memory.get(partial, "Project", "Secret"), what).toBeNull();
			expect(await opened.memory.graph.getNodeById(partial, secret!.id), what).toBeNull();
			expect(await opened.memory.searchFulltext(partial, "alice only"), what).toEqual([]);
			expect(await createSkills(opened.memory).context(partial, { label: "Project", name: "Secret" }, 2), what).toBeNull();
			expect(await opened.memory.graph.labelCounts(partial), what).toEqual({});
			expect(await opened.memory.graph.counts(partial), what).toEqual({ nodes: 0, edges: 0 });
			await expect(opened.memory.remember({ scope: partial, source: "mcp" }, { label: "Concept", key: "X" }), what).rejects.toBeInstanceOf(
				ScopeError,
			);
		}
		expect((await opened.memory.graph.counts(alice.scope)).nodes).toBe(2);
	});

	it("moves an Insight through its lifecycle and lists dismissed titles", async () => {
		await remember("Insight", "Shared technology: Python", { body: "two projects use Python", confidence: 0.75, status: "pending" });
		await remember("Insight", "Cross-project solution: tokens", { body: "…", confidence: 0.85, status: "pending" });
		await remember("Insight", "Cross-project solution: tokens", { status: "approved" });
		await remember("Insight", "Shared technology: Python", { status: "dismissed" });
		const pending = await opened.memory.graph.listNodes(opened.scope, { label: "Insight", status: ["pending"] });
		expect(pending).toEqual([]);
		const dismissed = await opened.memory.graph.listNodes(opened.scope, { label: "Insight", status: ["dismissed"] });
		expect(dismissed.map((n) => n.key)).toEqual(["Shared technology: Python"]);
		const approved = await opened.memory.graph.listNodes(opened.scope, { label: "Insight", status: ["approved"] });
		expect(approved[0]?.props.confidence).toBe(0.85);
	});

	it("superseding halves confidence and a later update revives the node with a conflict warning", async () => {
		await remember("Decision", "Use REST", { rationale: "simple" });
		const superseded = await remember("Decision", "Use REST", { valid_to: "2026-01-01" });
		expect(superseded.node.props.confidence).toBe(0.5);
		const revived = await remember("Decision", "Use REST", { rationale: "still simple" });
		expect(revived.node.props.valid_to).toBeUndefined();
		expect(revived.warnings.join(" ")).toMatch(/conflict/);
	});
});
