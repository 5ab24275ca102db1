import type { Memory } from "../../src/engine/memory";
import type { WriteContext } from "../../src/engine/write/write-pipeline";

/**
 * A small graph where each of the nine reflect detectors finds exactly the pattern the reflect
 * contract expects (tests/contracts/reflect.contract.test.ts), written through the Memory facade.
 * The parity contract writes it on every backend and compares the Insights reflect proposes.
 */
export async function seedReflectFixture(memory: Memory, ctx: WriteContext): Promise<void> {
	const node = (label: string, key: string, props: Record<string, unknown> = {}) => memory.remember(ctx, { label, key, props });
	const rel = (fl: string, fk: string, type: string, tl: string, tk: string) => memory.relate(ctx, { label: fl, key: fk }, type, { label: tl, key: tk });
	for (const [name, status] of [
		["Portal", "active"],
		["Booking", "active"],
		["Warehouse", "active"],
		["Old Site", "completed"],
	]) {
		await node("Project", name, { status, ...(name === "Portal" ? { tags: ["portal"] } : {}) });
	}
	await node("Course", "Bootcamp", { status: "active" });
	for (const c of ["Idempotency", "Token Rotation", "Cache Invalidation", "CRDTs"]) await node("Concept", c);
	await node("Technology", "TypeScript");
	await node("Technology", "Python", { tags: ["warehouse"] });
	await node("Technology", "jQuery", { confidence: 0.2 });
	await node("Technology", "Moment", { confidence: 0.2 });
	await node("Technology", "Express", { updated: "2025-07-01" });
	await node("Domain", "Web");
	await node("Person", "Elena", { status: "stub" });
	await node("Person", "Pablo");
	await node("Problem", "Double booking", { status: "open" });
	await node("Problem", "Double charge", { status: "resolved" });
	await node("Problem", "Flaky refresh", { status: "resolved" });
	await node("Problem", "Stale totals", { status: "open", tags: ["Portal"] });
	await node("Problem", "Stale dashboard", { status: "in-progress" });
	await node("Decision", "Store event ids", { status: "accepted" });
	// Tags naming a Project or Domain (unlinked_tag), some already linked.
	await node("Note", "Daily", { tags: ["Web", "warehouse"] });
	await node("Note", "Standup", { tags: ["Booking", "old_site", "Warehouse", "Python"] });
	for (const p of ["Portal", "Booking"]) {
		await rel("Project", p, "USES", "Technology", "TypeScript");
		await rel("Project", p, "IN_DOMAIN", "Domain", "Web");
		await rel("Project", p, "INVOLVES", "Person", "Elena");
	}
	await rel("Project", "Portal", "USES", "Technology", "Moment");
	await rel("Project", "Warehouse", "USES", "Technology", "Python");
	await rel("Project", "Old Site", "USES", "Technology", "jQuery");
	await rel("Course", "Bootcamp", "TEACHES", "Technology", "TypeScript");
	await rel("Course", "Bootcamp", "TEACHES", "Technology", "Express");
	await rel("Course", "Bootcamp", "COVERS", "Concept", "Idempotency");
	await rel("Course", "Bootcamp", "INVOLVES", "Person", "Elena");
	await rel("Person", "Pablo", "BELONGS_TO", "Project", "Warehouse");
	await rel("Problem", "Double booking", "BELONGS_TO", "Project", "Booking");
	await rel("Problem", "Double booking", "APPLIES", "Concept", "Idempotency");
	await rel("Problem", "Double charge", "BELONGS_TO", "Project", "Portal");
	await rel("Problem", "Double charge", "APPLIES", "Concept", "Idempotency");
	await rel("Problem", "Double charge", "SOLVED_BY", "Decision", "Store event ids");
	await rel("Decision", "Store event ids", "BELONGS_TO", "Project", "Portal");
	await rel("Decision", "Store event ids", "APPLIES", "Concept", "Idempotency");
	await rel("Problem", "Flaky refresh", "BELONGS_TO", "Project", "Portal");
	await rel("Problem", "Flaky refresh", "APPLIES", "Concept", "Token Rotation");
	await rel("Problem", "Stale totals", "BELONGS_TO", "Project", "Portal");
	await rel("Problem", "Stale totals", "APPLIES", "Concept", "Cache Invalidation");
	await rel("Project", "Warehouse", "HAS", "Problem", "Stale dashboard");
	await rel("Problem", "Stale dashboard", "APPLIES", "Concept", "Cache Invalidation");
	// Body links never count.
	await rel("Note", "Daily", "LINKS_TO", "Concept", "CRDTs");
	await rel("Note", "Daily", "LINKS_TO", "Technology", "Python");
	// ...except for unlinked_tag: a body link to the tagged anchor links it.
	await rel("Note", "Standup", "LINKS_TO", "Project", "Booking");
}
