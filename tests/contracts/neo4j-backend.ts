import { randomUUID } from "node:crypto";
import { parseConfig } from "../../src/config/engrama-config";
import { bindNeo4jOptions } from "../../src/backends/neo4j/neo4j-backend";
import { Neo4jGraphStore } from "../../src/backends/neo4j/neo4j-graph-store";
import { openMemory } from "../../src/node/open-memory";
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
