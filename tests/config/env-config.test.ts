import { describe, expect, it } from "vitest";
import { configFromEnv, parseConfig } from "../../src/config/engrama-config";
import { ValidationError } from "../../src/engine/errors";

const fromEnv = (env: Record<string, string>) => parseConfig(configFromEnv(env, { dbPath: "/tmp/engrama-test.db" }));

describe("configuration from environment variables", () => {
	it("reads the enum settings case-insensitively", () => {
		const config = fromEnv({ GRAPH_BACKEND: "SQLite", ENGRAMA_REMEMBER_DEDUPE: " Block ", ENGRAMA_TAG_LINKING: "auto", EMBEDDING_PROVIDER: "hash" });
		expect(config.backend).toBe("sqlite");
		expect(config.resolver.dedupe).toBe("block");
		expect(config.resolver.tagLinking).toBe("auto");
		expect(config.embedding.provider).toBe("hash");
		expect(fromEnv({}).resolver.dedupe).toBe("warn");
	});

	it("refuses a bad value naming the variable, what it got and the choices", () => {
		const cases: [Record<string, string>, string][] = [
			[{ ENGRAMA_REMEMBER_DEDUPE: "blok" }, 'ENGRAMA_REMEMBER_DEDUPE must be one of off, warn, block; got "blok".'],
			[{ ENGRAMA_TAG_LINKING: "always" }, 'ENGRAMA_TAG_LINKING must be one of off, suggest, auto; got "always".'],
			[{ GRAPH_BACKEND: "postgres" }, 'GRAPH_BACKEND must be one of sqlite, neo4j, null; got "postgres".'],
			[{ VECTOR_BACKEND: "faiss" }, 'VECTOR_BACKEND must be one of auto, sqlite-vec, neo4j, none; got "faiss".'],
			[{ EMBEDDING_PROVIDER: "cohere" }, 'EMBEDDING_PROVIDER must be one of none, local, openai, ollama, hash; got "cohere".'],
			[{ ENGRAMA_FUSION_MODE: "max" }, 'ENGRAMA_FUSION_MODE must be one of rrf, linear; got "max".'],
		];
		for (const [env, message] of cases) {
			expect(() => fromEnv(env)).toThrow(ValidationError);
			expect(() => fromEnv(env)).toThrow(message);
		}
	});
});
