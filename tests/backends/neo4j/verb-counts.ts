import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CypherCounts } from "../../../src/backends/neo4j/neo4j-connection";
import { Neo4jGraphStore } from "../../../src/backends/neo4j/neo4j-graph-store";
import { Memory } from "../../../src/engine/memory";
import { reflect } from "../../../src/engine/reflect";
import { createSkills } from "../../../src/engine/skills";
import { VaultSync } from "../../../src/engine/sync/vault-sync";
import type { WriteContext } from "../../../src/engine/write/write-pipeline";
import { FolderVaultSource } from "../../../src/nodejs/folder-vault-source";
import type { OpenedMemory } from "../../../src/nodejs/open-memory";
import { neo4jTestBackend } from "../../contracts/neo4j-backend";
import { seedReflectFixture } from "../../contracts/reflect-fixture";
import { makeTempDir } from "../../helpers/temp-dir";
import { SCOPE, exampleProfile } from "../../engine/sync/sync-fixture";

/** One verb's Cypher: statements, transactions and round trips, and the statements' first lines. */
export interface VerbCount {
	readonly verb: string;
	readonly statements: number;
	readonly transactions: number;
	readonly roundTrips: number;
	readonly log: readonly string[];
	/** Each distinct statement's plan (EXPLAIN), as "Operator: details" lines. */
	readonly plans: readonly { readonly statement: string; readonly plan: readonly string[] }[];
	/**
	 * Search only: whether the database's passage vector index (one for every namespace, made by
	 * whichever test wrote passage vectors first) had this memory's dimension, so knn asked it.
	 */
	readonly passageIndexUsed?: boolean;
}

const HASH_EMBEDDING = { provider: "hash", model: "", dimensions: 32, baseUrl: "", apiKey: "", allowRemoteModels: false, localModelPath: "", timeoutMs: 30_000 } as const;

function storeOf(opened: OpenedMemory): Neo4jGraphStore {
	const graph = opened.memory.graph;
	if (!(graph instanceof Neo4jGraphStore)) throw new Error("verb counts need the Neo4j backend");
	return graph;
}

async function counted(graph: Neo4jGraphStore, verb: string, run: () => Promise<unknown>): Promise<VerbCount> {
	graph.conn.trace = "full";
	graph.conn.resetCounts();
	await run();
	const c: CypherCounts = graph.conn.resetCounts();
	graph.conn.trace = false;
	const plans: { statement: string; plan: string[] }[] = [];
	const seen = new Set<string>();
	for (const { query, params } of c.statementsRun) {
		if (seen.has(query)) continue;
		seen.add(query);
		plans.push({ statement: query.trim().replace(/\s+/g, " ").slice(0, 100), plan: await graph.conn.plan(query, params) });
	}
	return { verb, statements: c.statements, transactions: c.transactions, roundTrips: c.roundTrips, log: c.log, plans };
}

function note(name: string, body: string, links: readonly string[]): string {
	const related = links.map((l) => `"[[${l}]]"`).join(", ");
	return `---\nengrama_label: Concept\ntags: [queues]\nrelations:\n  RELATED_TO: [${related}]\n---\n# ${name}\n\n${body} See [[${links[0]}]].\n`;
}

/**
 * The verbs an agent or a vault uses, each once on a warm memory (the planner, the vector
 * dimension and the fulltext statistics already known), counted on the connection.
 */
export async function countVerbs(): Promise<VerbCount[]> {
	const out: VerbCount[] = [];
	const opened = await neo4jTestBackend.open({ config: { embedding: HASH_EMBEDDING } });
	try {
		const graph = storeOf(opened);
		const skills = createSkills(opened.memory);
		const ctx: WriteContext = { scope: opened.scope, source: "mcp", agent: "counts" };
		// Warm: everything a long-running server already knows after its first writes and searches.
		for (let i = 0; i < 3; i++) {
			await skills.remember(ctx, { label: "Technology", name: `Warm Technology ${i}`, props: { summary: "a warm database" } });
		}
		await skills.search(opened.scope, "warm database", { limit: 5 });
		await opened.memory.searchFulltext(opened.scope, "warm database", { limit: 5 });

		out.push(await counted(graph, "remember (new node)", () => skills.remember(ctx, { label: "Technology", name: "PostgreSQL", props: { summary: "relational database" } })));
		out.push(await counted(graph, "remember (update)", () => skills.remember(ctx, { label: "Technology", name: "PostgreSQL", props: { summary: "relational database, version 16" } })));
		await skills.remember(ctx, { label: "Project", name: "Billing Portal", props: { summary: "invoices" } });
		out.push(
			await counted(graph, "remember (new, 2 inline relations)", () =>
				skills.remember(ctx, { label: "Project", name: "Ledger", props: { summary: "accounts" }, relations: { USES: ["PostgreSQL", "Kafka"] } }),
			),
		);
		out.push(await counted(graph, "relate", () => skills.relate(ctx, { label: "Project", name: "Billing Portal" }, "USES", { label: "Technology", name: "PostgreSQL" })));
		const search = await counted(graph, "search (default: hybrid + graph)", () => skills.search(opened.scope, "relational database invoices", { limit: 10 }));
		// The dimension the search read (cached on the store after its first read).
		out.push({ ...search, passageIndexUsed: graph.ctx.passageVectorIndexDims === HASH_EMBEDDING.dimensions });
		out.push(await counted(graph, "search (fulltext)", () => opened.memory.searchFulltext(opened.scope, "relational database invoices", { limit: 10 })));
		out.push(await counted(graph, "context (2 hops)", () => skills.context(opened.scope, { label: "Project", name: "Ledger" }, 2)));
	} finally {
		await opened.close();
	}
	out.push(...(await countSync()));
	out.push(await countReflect());
	return out;
}

/** A first sync of 20 linked notes (one batch), then one note edited and synced again. */
async function countSync(): Promise<VerbCount[]> {
	const temp = makeTempDir("engrama-counts-");
	const opened = await neo4jTestBackend.open({ profile: exampleProfile(), config: { orgId: SCOPE.orgId, userId: SCOPE.userId } });
	try {
		const graph = storeOf(opened);
		const vault = join(temp.path, "vault");
		mkdirSync(vault, { recursive: true });
		const names = Array.from({ length: 20 }, (_, i) => `Topic ${i}`);
		names.forEach((name, i) => writeFileSync(join(vault, `${name}.md`), note(name, `Notes about topic ${i} and queues.`, [names[(i + 1) % 20], names[(i + 7) % 20]])));
		const memory = new Memory({ graph, vectors: opened.stores.vectors, embedder: null, profile: exampleProfile() });
		const sync = new VaultSync({ memory, source: new FolderVaultSource(vault), scope: SCOPE });
		const first = await counted(graph, "sync: first sync of 20 notes", () => sync.fullSync());
		writeFileSync(join(vault, "Topic 3.md"), note("Topic 3", "Edited: topic 3 is about backpressure.", ["Topic 4", "Topic 11"]));
		const again = await counted(graph, "sync: one edited note", () => sync.fullSync());
		// The notes' sections are searched beside their nodes (plans checked as every statement's).
		const search = await counted(graph, "search (notes with passages)", () => memory.search(SCOPE, "backpressure queues", { limit: 10 }));
		return [first, again, search];
	} finally {
		await opened.close();
		temp.cleanup();
	}
}

async function countReflect(): Promise<VerbCount> {
	const opened = await neo4jTestBackend.open();
	try {
		const graph = storeOf(opened);
		const ctx: WriteContext = { scope: opened.scope, source: "cli" };
		await seedReflectFixture(opened.memory, ctx);
		return await counted(graph, "reflect (fixture, all detectors)", () => reflect(opened.memory, ctx));
	} finally {
		await opened.close();
	}
}

/** The docs table. */
export function countsTable(rows: readonly VerbCount[]): string {
	const lines = ["| verb | statements | transactions | round trips |", "|---|---:|---:|---:|"];
	for (const r of rows) lines.push(`| ${r.verb} | ${r.statements} | ${r.transactions} | ${r.roundTrips} |`);
	return lines.join("\n");
}
