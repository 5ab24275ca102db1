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

	it("on MERGE keeps identity, creation time and valid_from, advances updated_at and restamps provenance", async () => {
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
			source: "cli",
			trust_level: 1,
			source_agent: null,
		});
	});

	it("ignores engine-owned properties a caller tries to set", async () => {
		const { node } = await m.memory.remember(agent, {
			label: "Concept",
			key: "Idempotency",
			props: {
				engrama_id: "11111111-1111-4111-8111-111111111111",
				org_id: "someone-else",
				user_id: "mallory",
				created_at: "1999-01-01",
				source: "sync",
				trust_level: 1,
			},
		});
		expect(node.id).not.toBe("11111111-1111-4111-8111-111111111111");
		expect(node.props).toMatchObject({ org_id: m.scope.orgId, user_id: m.scope.userId, source: "mcp", trust_level: 0.5 });
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
