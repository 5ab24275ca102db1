import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HashEmbeddingProvider } from "../../../src/engine/embedding/hash-embedding-provider";
import { ValidationError } from "../../../src/engine/errors";
import type { WriteContext } from "../../../src/engine/write/write-pipeline";
import { ManualClock, openSearchMemory, type SearchMemory } from "../search/search-fixture";

// The write pipeline end to end on a real SQLite memory: what every write is stamped with, what a
// caller cannot forge, what is cleaned, and what soft and hard deletes leave behind.
describe("write pipeline", () => {
	let clock: ManualClock;
	let m: SearchMemory;
	let agent: WriteContext;

	beforeEach(async () => {
		clock = new ManualClock(Date.parse("2026-03-01T12:00:00Z"));
		m = await openSearchMemory({ clock, embedder: new HashEmbeddingProvider(64) });
		agent = { scope: m.scope, source: "mcp", agent: "claude-desktop", session: "s-42" };
	});
	afterEach(() => m.close());

	it("stamps identity, timestamps, temporal fields, provenance and scope on a new node", async () => {
		const { node, created } = await m.memory.remember(agent, { label: "Project", key: "Billing Portal", props: { description: "Invoices" } });
		expect(created).toBe(true);
		expect(node.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
		expect(node.props).toMatchObject({
			engrama_id: node.id,
			name: "Billing Portal",
			valid_from: "2026-03-01T12:00:00.000Z",
			confidence: 1,
			status: "active",
			source: "mcp",
			source_agent: "claude-desktop",
			source_session: "s-42",
			trust_level: 0.5,
			org_id: m.scope.orgId,
			user_id: m.scope.userId,
		});
		expect(node.props.valid_to).toBeUndefined();
		expect(node.createdAt).toBe("2026-03-01T12:00:00.000Z");
		expect(node.updatedAt).toBe(node.createdAt);
	});

	it("re-embeds an item whose valid_from changes: its day is part of the embedded text", async () => {
		const embedder = new HashEmbeddingProvider(64);
		const first = await m.memory.remember(agent, { label: "Project", key: "Billing Portal", props: { description: "Invoices" } });
		expect(first.vector).toEqual(await embedder.embed("Project: Billing Portal\n[1 March 2026]\nInvoices"));
		const second = await m.memory.remember(agent, { label: "Project", key: "Billing Portal", props: { valid_from: "2023-05-08" } });
		expect(second.vector).toEqual(await embedder.embed("Project: Billing Portal\n[8 May 2023]\nInvoices"));
		expect(second.vector).not.toEqual(first.vector);
	});

	it("on MERGE keeps identity, creation time, valid_from and authorship, advances updated_at", async () => {
		const first = await m.memory.remember(agent, { label: "Project", key: "Billing Portal", props: { description: "Invoices" } });
		clock.advanceDays(2);
		const second = await m.memory.remember({ scope: m.scope, source: "cli" }, { label: "project", key: " Billing   Portal ", props: { repo: "git@x" } });
		expect(second.created).toBe(false);
		expect(second.node.id).toBe(first.node.id);
		expect(second.node.createdAt).toBe(first.node.createdAt);
		expect(second.node.updatedAt).toBe("2026-03-03T12:00:00.000Z");
		expect(second.node.props).toMatchObject({
			valid_from: "2026-03-01T12:00:00.000Z",
			description: "Invoices",
			repo: "git@x",
			// A person's write through the command line neither takes authorship nor vouches for the agent's text.
			source: "mcp",
			source_agent: "claude-desktop",
			source_session: "s-42",
			trust_level: 0.5,
		});
	});

	it("an agent's write on a node a person authored keeps the authorship, lowers trust and records the edit", async () => {
		const person = { scope: m.scope, source: "cli" as const };
		await m.memory.remember(person, { label: "Project", key: "Clinic App", props: { description: "Mine" } });
		clock.advanceDays(1);
		const edited = await m.memory.remember({ ...agent, agent: "cursor", session: "s-7" }, { label: "Project", key: "Clinic App", props: { repo: "git@y" } });
		expect(edited.node.props).toMatchObject({
			source: "cli",
			source_agent: null,
			source_session: null,
			trust_level: 0.5,
			edited_by_source: "mcp",
			edited_by_agent: "cursor",
			edited_in_session: "s-7",
			repo: "git@y",
		});
		// An sdk write later cannot raise trust above what the mcp edit left; a person's write does not vouch either.
		await m.memory.remember({ scope: m.scope, source: "sdk", agent: "script" }, { label: "Project", key: "Clinic App", props: { stage: "beta" } });
		await m.memory.remember(person, { label: "Project", key: "Clinic App", props: { stage: "ga" } });
		const after = await m.memory.graph.getNode(m.scope, "Project", "Clinic App");
		expect(after?.props).toMatchObject({ source: "cli", trust_level: 0.5, edited_by_source: "sdk", edited_by_agent: "script", stage: "ga" });
		expect(after?.props.edited_in_session).toBeUndefined();
		// The node's history still says which writer changed what.
		const history = await m.memory.graph.nodeHistory(m.scope, edited.node.id, { limit: 100 });
		expect(history.map((h) => `${h.prop}:${h.source}`)).toEqual(expect.arrayContaining(["repo:mcp", "stage:sdk", "stage:cli"]));
		expect(history.some((h) => h.prop === "trust_level" || h.prop.startsWith("edited_"))).toBe(false);
		// An agent editing what it authored itself is no foreign edit: trust stays at its level, no edit marks.
		const own = await m.memory.remember(agent, { label: "Concept", key: "Own" });
		const again = await m.memory.remember({ ...agent, session: "s-43" }, { label: "Concept", key: "Own", props: { summary: "More" } });
		expect(again.node.props).toMatchObject({ source: "mcp", source_session: "s-42", trust_level: 0.5 });
		expect(again.node.props.edited_by_source).toBeUndefined();
		expect(own.node.id).toBe(again.node.id);
		// A stub an agent left is a placeholder: whoever writes its content authors it.
		await m.memory.remember(agent, { label: "Concept", key: "Placeholder", props: { status: "stub" } });
		const filled = await m.memory.remember(person, { label: "Concept", key: "Placeholder", props: { summary: "Written by me.", status: "active" } });
		expect(filled.node.props).toMatchObject({ source: "cli", source_agent: null, trust_level: 1 });
		expect(filled.node.props.edited_by_source).toBeUndefined();
		// Archiving is a write like any other: an agent's forget keeps the authorship.
		const archived = await m.memory.forget(agent, { label: "Project", key: "Clinic App" });
		expect(archived.props).toMatchObject({ status: "archived", source: "cli", edited_by_source: "mcp", edited_by_agent: "claude-desktop" });
	});

	it("ignores engine-owned properties a caller tries to set, and says so", async () => {
		const { node, warnings } = await m.memory.remember(agent, {
			label: "Concept",
			key: "Idempotency",
			props: {
				engrama_id: "11111111-1111-4111-8111-111111111111",
				org_id: "someone-else",
				user_id: "mallory",
				created_at: "1999-01-01",
				source: "sync",
				trust_level: 1,
				engrama_trust: 1,
				edited_by_agent: "nobody",
				note_provenance: true,
				obsidian_path: "Elsewhere.md",
			},
		});
		expect(node.id).not.toBe("11111111-1111-4111-8111-111111111111");
		expect(node.props).toMatchObject({ org_id: m.scope.orgId, user_id: m.scope.userId, source: "mcp", trust_level: 0.5 });
		for (const name of ["engrama_trust", "edited_by_agent", "note_provenance", "obsidian_path"]) expect(node.props[name]).toBeUndefined();
		for (const name of ["source", "trust_level", "engrama_trust", "edited_by_agent", "note_provenance", "obsidian_path"]) {
			expect(warnings.join("\n")).toMatch(new RegExp(`Ignored .*"${name}"`));
		}
		expect(node.createdAt).toBe("2026-03-01T12:00:00.000Z");
	});

	it("cleans values: control characters, tags, status synonyms, dates", async () => {
		const { node, warnings } = await m.memory.remember(agent, {
			label: "Project",
			key: "Clinic\u0007 App",
			props: { description: "line one\u0000\nline two", tags: "web, #billing web", status: "WIP", valid_to: "2027-01-31" },
		});
		expect(node.key).toBe("Clinic App");
		expect(node.props.description).toBe("line one\nline two");
		expect(node.props.tags).toEqual(["web", "billing"]);
		expect(node.props.status).toBe("active");
		expect(node.props.valid_to).toBe("2027-01-31T00:00:00.000Z");
		// Written as already superseded: confidence starts halved.
		expect(node.props.confidence).toBe(0.5);
		expect(warnings).toEqual([]);

		const odd = await m.memory.remember(agent, { label: "Project", key: "Odd", props: { status: "dreaming" } });
		expect(odd.node.props.status).toBe("active");
		expect(odd.node.props.status_note).toBe("dreaming");
		expect(odd.warnings.join(" ")).toMatch(/dreaming/);
	});

	it("refuses bad input with the reason and writes nothing", async () => {
		await expect(m.memory.remember(agent, { label: "Project", key: "Big", props: { body: "x".repeat(200_001) } })).rejects.toThrow(
			/"body" is 200001 characters/,
		);
		await expect(m.memory.remember(agent, { label: "Project", key: "Nested", props: { meta: { a: 1 } } })).rejects.toBeInstanceOf(ValidationError);
		await expect(m.memory.remember(agent, { label: "Project", key: "Sure", props: { confidence: 3 } })).rejects.toThrow(/between 0 and 1/);
		await expect(m.memory.remember(agent, { label: "Project", key: "When", props: { valid_from: "someday" } })).rejects.toThrow(/ISO date/);
		await expect(m.memory.remember(agent, { label: "Spaceship", key: "Enterprise" })).rejects.toThrow(/Allowed labels/);
		expect(await m.memory.graph.counts(m.scope)).toEqual({ nodes: 0, edges: 0 });
	});

	it("stamps relations with scope and provenance", async () => {
		await m.memory.remember(agent, { label: "Project", key: "Billing Portal" });
		await m.memory.remember(agent, { label: "Technology", key: "Python" });
		await m.memory.relate(agent, { label: "Project", key: "Billing Portal" }, "uses", { label: "Technology", key: "Python" });
		const project = await m.memory.get(m.scope, "Project", "Billing Portal");
		const [edge] = await m.memory.graph.edgesOf(m.scope, project!.id, "out");
		expect(edge.type).toBe("USES");
		expect(edge.node.key).toBe("Python");
		expect(edge.edge.props).toMatchObject({
			org_id: m.scope.orgId,
			user_id: m.scope.userId,
			source: "mcp",
			source_agent: "claude-desktop",
			source_session: "s-42",
			trust_level: 0.5,
		});
		expect(edge.edge.createdAt).toBe("2026-03-01T12:00:00.000Z");
	});

	it("soft delete archives and keeps relations and the vector; hard delete removes node, relations and vector", async () => {
		await m.memory.remember(agent, { label: "Project", key: "Billing Portal", props: { description: "Invoices" } });
		await m.memory.remember(agent, { label: "Technology", key: "Python" });
		await m.memory.relate(agent, { label: "Project", key: "Billing Portal" }, "USES", { label: "Technology", key: "Python" });
		const vectors = m.memory.vectors!;
		expect(await vectors.count(m.scope)).toBe(2);

		clock.advanceDays(1);
		const archived = await m.memory.forget(agent, { label: "Technology", key: "Python" });
		expect(archived.props).toMatchObject({ status: "archived", previous_status: "active", archived_at: "2026-03-02T12:00:00.000Z" });
		expect((await m.memory.graph.counts(m.scope)).edges).toBe(1);
		expect(await vectors.count(m.scope)).toBe(2);

		const project = await m.memory.get(m.scope, "Project", "Billing Portal");
		await m.memory.forget(agent, { label: "Project", key: "Billing Portal" }, { hard: true });
		expect(await m.memory.get(m.scope, "Project", "Billing Portal")).toBeNull();
		expect(await m.memory.graph.getNodeById(m.scope, project!.id)).toBeNull();
		expect(await m.memory.graph.counts(m.scope)).toEqual({ nodes: 1, edges: 0 });
		expect(await vectors.has(m.scope, [project!.id])).toEqual(new Set());
		expect(await vectors.count(m.scope)).toBe(1);
	});
});
