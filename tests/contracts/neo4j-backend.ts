import { randomUUID } from "node:crypto";
import { beforeAll, vi } from "vitest";
import { parseConfig } from "../../src/config/engrama-config";
import { bindNeo4jOptions } from "../../src/backends/neo4j/neo4j-backend";
import { Neo4jGraphStore } from "../../src/backends/neo4j/neo4j-graph-store";
import { createSkills } from "../../src/engine/skills";
import { openMemory } from "../../src/nodejs/open-memory";
import { registerTestBackend, testProfile, type TestBackend } from "./backends";

/** Connection of the test server (scripts/neo4j-test-server.sh start writes .neo4j-test/env). */
export function neo4jTestSettings() {
	const uri = process.env.NEO4J_URI;
	if (!uri) {
		throw new Error(
			"ENGRAMA_TEST_BACKENDS includes neo4j but NEO4J_URI is not set. Run `npm run test:neo4j`, or start the server with `scripts/neo4j-test-server.sh start` and `set -a; . .neo4j-test/env; set +a`.",
		);
	}
	return {
		uri,
		username: process.env.NEO4J_USERNAME || "neo4j",
		password: process.env.NEO4J_PASSWORD ?? "",
		database: process.env.NEO4J_DATABASE || "neo4j",
	};
}

/**
 * Every memory opened here lives in its own namespace of the one shared test database, so test
 * files running in parallel never see each other; close() deletes the namespace.
 */
export const neo4jTestBackend: TestBackend = {
	name: "neo4j",
	async open(options = {}) {
		const config = bindNeo4jOptions(
			parseConfig({ backend: "neo4j", dbPath: ":memory:", neo4j: neo4jTestSettings(), ...options.config }),
			{ namespace: `test-${randomUUID()}` },
		);
		const opened = await openMemory(config, { profile: options.profile ?? testProfile() });
		return {
			...opened,
			close: async () => {
				const graph = opened.memory.graph;
				if (graph instanceof Neo4jGraphStore) await graph.dropNamespace();
				await opened.close();
			},
		};
	},
};

registerTestBackend(neo4jTestBackend);

let warming: Promise<void> | undefined;

/**
 * Once per test file: a driver connects, the schema check runs, and the server plans the queries
 * of the common paths (remember with inline relations, relate, context, search, forget, history),
 * so no test pays for a cold connection or a cold query planner inside its own timeout.
 */
export function warmNeo4j(): Promise<void> {
	warming ??= (async () => {
		const opened = await neo4jTestBackend.open();
		try {
			const skills = createSkills(opened.memory);
			const ctx = { scope: opened.scope, source: "mcp" as const, agent: "warm-up" };
			await skills.remember(ctx, { label: "Technology", name: "Warm PostgreSQL", props: { summary: "a database" } });
			await skills.remember(ctx, { label: "Project", name: "Warm Portal", props: { summary: "invoices", tags: ["warm"] }, relations: { USES: ["warm postgresql", "Warm Stub"] } });
			await skills.relate(ctx, { label: "Project", name: "Warm Portal" }, "RELATED_TO", { label: "Technology", name: "Warm PostgreSQL" });
			await skills.context(opened.scope, { label: "Project", name: "Warm Portal" }, 2);
			await opened.memory.search(opened.scope, "warm invoices", { limit: 5 });
			await skills.history(opened.scope, { label: "Project", name: "Warm Portal" });
			await skills.forget(ctx, { label: "Technology", name: "Warm Stub" });
			await opened.memory.graph.counts(opened.scope);
		} finally {
			await opened.close();
		}
	})();
	return warming;
}

// Files using the Neo4j server: timeouts sized for a busy 2-core machine shared with the server's
// JVM, and the warm-up above in a hook of its own (this module is imported while the file is collected).
// Some files import this module for neo4jTestSettings alone: nothing happens unless neo4j is wanted.
if ((process.env.ENGRAMA_TEST_BACKENDS ?? "").split(",").some((name) => name.trim() === "neo4j")) {
	vi.setConfig({ testTimeout: 120_000, hookTimeout: 180_000 });
	beforeAll(() => warmNeo4j(), 300_000);
}
