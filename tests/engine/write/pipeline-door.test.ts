import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { NotFoundError, ValidationError } from "../../../src/engine/errors";
import type { NodeRecord } from "../../../src/engine/types";
import type { WriteContext } from "../../../src/engine/write/write-pipeline";
import { ManualClock, openSearchMemory, type SearchMemory } from "../search/search-fixture";

// The pipeline operations vault sync writes through (edges in bulk, edge removal, rekey, stub
// absorption, note bookkeeping): each checks and stamps what `mergeRelation`/`mergeEntity` do, on
// a real SQLite memory.
describe("write pipeline: the operations vault sync writes through", () => {
	let clock: ManualClock;
	let m: SearchMemory;
	let agent: WriteContext;
	let sync: WriteContext;

	beforeEach(async () => {
		clock = new ManualClock(Date.parse("2026-03-01T12:00:00Z"));
		m = await openSearchMemory({ clock });
		agent = { scope: m.scope, source: "mcp", agent: "claude-desktop", session: "s-42" };
		sync = { scope: m.scope, source: "sync" };
	});
	afterEach(() => m.close());

	const entity = async (label: string, key: string, ctx: WriteContext = sync): Promise<NodeRecord> =>
		(await m.memory.pipeline.mergeEntity(ctx, { label, key })).node;

	it("mergeRelations stamps each edge as mergeRelation does, takes a stated provenance, and keeps one on request", async () => {
		const project = await entity("Project", "Billing");
		const [py, ts, rust] = [await entity("Technology", "Python"), await entity("Technology", "TypeScript"), await entity("Technology", "Rust")];
		await m.memory.pipeline.mergeRelation(agent, project, "USES", py);
		const single = (await m.memory.graph.edgesOf(m.scope, project.id, "out"))[0].edge.props;

		const stated = { source: "mcp" as const, agent: "claude-desktop", session: "s-42", trust: 0.3 };
		const write = await m.memory.pipeline.mergeRelations(agent, [
			{ from: project, type: "uses", to: ts },
			{ from: project, type: "USES", to: rust, props: { origin: "note" }, provenance: stated },
			{ from: project, type: "USES", to: py, props: { origin: "note" }, keepProvenance: true },
		]);
		expect(write).toEqual({ created: 2, rejected: [] });
		const edges = new Map((await m.memory.graph.edgesOf(m.scope, project.id, "out")).map((e) => [e.node.key, e]));
		// The type is resolved against the profile as in mergeRelation; the writer's provenance and scope stamped.
		expect(edges.get("TypeScript")?.type).toBe("USES");
		const pick = (p: Readonly<Record<string, unknown>>) =>
			Object.fromEntries(["source", "source_agent", "source_session", "trust_level", "org_id", "user_id"].map((k) => [k, p[k]]));
		expect(pick(edges.get("TypeScript")!.edge.props)).toEqual(pick(single));
		expect(edges.get("Rust")?.edge.props).toMatchObject({ source: "mcp", source_agent: "claude-desktop", trust_level: 0.3, origin: "note" });
		// Taken over: the agent's provenance stays, the new props are merged.
		expect(edges.get("Python")?.edge.props).toMatchObject({ ...pick(single), origin: "note" });
	});

	it("mergeRelations returns, not throws, an edge the profile refuses or whose endpoint is gone, and writes the rest", async () => {
		const project = await entity("Project", "Billing");
		const person = await entity("Person", "Ada");
		const py = await entity("Technology", "Python");
		const gone = await entity("Technology", "Gone");
		await m.memory.pipeline.hardDelete(sync, gone);
		const write = await m.memory.pipeline.mergeRelations(sync, [
			{ from: person, type: "USES", to: py },
			{ from: project, type: "NOT_A_TYPE", to: py },
			{ from: project, type: "USES", to: gone },
			{ from: project, type: "USES", to: py },
		]);
		expect(write.created).toBe(1);
		expect(write.rejected.map((r) => [r.input.type, r.input.to.key, r.error.constructor])).toEqual([
			["USES", "Python", ValidationError],
			["NOT_A_TYPE", "Python", ValidationError],
			["USES", "Gone", NotFoundError],
		]);
		expect((await m.memory.graph.edgesOf(m.scope, project.id, "out")).map((e) => e.node.key)).toEqual(["Python"]);
	});

	it("rekeyEntity checks label, key and id like mergeEntity, records the change in history and applies provenance", async () => {
		const node = await entity("Project", "Billing", agent);
		clock.advanceDays(1);
		await expect(m.memory.pipeline.rekeyEntity(sync, node, { label: "Nonsense", key: "X" })).rejects.toThrow(ValidationError);
		await expect(m.memory.pipeline.rekeyEntity(sync, node, { label: "Project", key: "  \u0007 " })).rejects.toThrow(ValidationError);
		await expect(m.memory.pipeline.rekeyEntity(sync, node, { label: "Project", key: "B", id: "not-a-uuid" })).rejects.toThrow(/not a UUID/);
		const person = { source: "sync" as const, trust: 1 };
		const rekeyed = await m.memory.pipeline.rekeyEntity(sync, node, { label: "project", key: " Billing  Portal ", provenance: person });
		expect(rekeyed).toMatchObject({ id: node.id, label: "Project", key: "Billing Portal" });
		expect(rekeyed.props).toMatchObject({ name: "Billing Portal", source: "sync", trust_level: 1 });
		const history = await m.memory.graph.nodeHistory(m.scope, node.id, { limit: 20 });
		expect(history).toContainEqual(expect.objectContaining({ prop: "name", before: "Billing", after: "Billing Portal", source: "sync" }));
		// A person's rename through another channel neither takes authorship nor vouches (writeProvenance).
		const again = await m.memory.pipeline.rekeyEntity({ scope: m.scope, source: "cli" }, rekeyed, { label: "Project", key: "Billing" });
		expect(again.props).toMatchObject({ name: "Billing", source: "sync", trust_level: 1 });
	});

	it("absorbStub moves the stub's edges, with their provenance, onto the node and removes the stub", async () => {
		const project = await entity("Project", "Billing");
		const stub = (await m.memory.pipeline.mergeEntity(sync, { label: "Technology", key: "Py", props: { status: "stub" } })).node;
		await m.memory.pipeline.mergeRelation(agent, project, "USES", stub);
		const py = await entity("Technology", "Python");
		await m.memory.pipeline.absorbStub(sync, stub, py);
		expect(await m.memory.graph.getNodeById(m.scope, stub.id)).toBeNull();
		const edges = await m.memory.graph.edgesOf(m.scope, project.id, "out");
		expect(edges.map((e) => [e.type, e.node.key, e.edge.props.source, e.edge.props.source_agent])).toEqual([["USES", "Python", "mcp", "claude-desktop"]]);
	});

	it("updateNoteState writes only sync's note bookkeeping, only for sync, and leaves updated_at alone", async () => {
		const node = await entity("Project", "Billing");
		clock.advanceDays(1);
		await expect(m.memory.pipeline.updateNoteState(agent, node, { obsidian_mtime: 5 })).rejects.toThrow(ValidationError);
		await expect(m.memory.pipeline.updateNoteState(sync, node, { obsidian_mtime: 5, description: "forged" })).rejects.toThrow(/not note bookkeeping/);
		const updated = await m.memory.pipeline.updateNoteState(sync, node, { obsidian_mtime: 5, obsidian_size: 10 });
		expect(updated?.props).toMatchObject({ obsidian_mtime: 5, obsidian_size: 10 });
		expect(updated?.updatedAt).toBe(node.updatedAt);
		expect(updated?.props.description).toBeUndefined();
	});
});
