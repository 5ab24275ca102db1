import { describe, expect, it } from "vitest";
import { configFromEnv, engramaConfigSchema, parseConfig } from "../../src/config/engrama-config";
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

	it("accepts engrama-py's names for the ranking knobs and the HTTP options", () => {
		const config = fromEnv({
			ENGRAMA_TRUST_DELTA: "0.3",
			ENGRAMA_ANCHOR_BETA: "0.7",
			ENGRAMA_COHESION_DECAY: "0.25",
			ENGRAMA_FANOUT_CAP: "16",
			ENGRAMA_RECENCY_HALF_LIFE: "180",
			ENGRAMA_RRF_K: "40",
			ENGRAMA_GRAPH_RERANK: "off",
			ENGRAMA_ALLOWED_ORIGINS: "https://app.example.com, http://localhost:*",
			ENGRAMA_REQUIRE_IDENTITY: "yes",
			ENGRAMA_HTTP_HOST: " localhost ",
			ENGRAMA_HTTP_PORT: "8000",
		});
		expect(config.search).toMatchObject({ trustWeight: 0.3, anchorWeight: 0.7, cohesionDecay: 0.25, fanOutCap: 16, halfLifeDays: 180, rrfK: 40, graphRerank: false });
		expect(config.mcp).toMatchObject({ allowedOrigins: ["https://app.example.com", "http://localhost:*"], requireIdentity: true, httpHost: "localhost", httpPort: 8000 });
		expect(fromEnv({ ENGRAMA_ANCHOR_BOOST: "false", ENGRAMA_ANCHOR_BETA: "0.7" }).search.anchorWeight).toBe(0);
		// Unset: the engine's defaults apply, and the bridge keeps its loopback-only, standalone behaviour.
		const plain = fromEnv({});
		expect(plain.search.halfLifeDays).toBeUndefined();
		expect(plain.mcp).toMatchObject({ allowedOrigins: [], requireIdentity: false });
		// This project's name and engrama-py's may both be set only to the same value.
		expect(fromEnv({ HYBRID_TRUST_GAMMA: "0.2", ENGRAMA_TRUST_DELTA: "0.2" }).search.trustWeight).toBe(0.2);
	});

	it("refuses out-of-range or malformed engrama-py settings, naming the variable and what it accepts", () => {
		const cases: [Record<string, string>, string][] = [
			[{ ENGRAMA_TRUST_DELTA: "-0.1" }, 'ENGRAMA_TRUST_DELTA must be a number at least 0; got "-0.1".'],
			[{ ENGRAMA_ANCHOR_BETA: "lots" }, 'ENGRAMA_ANCHOR_BETA must be a number at least 0; got "lots".'],
			[{ ENGRAMA_COHESION_DECAY: "0" }, 'ENGRAMA_COHESION_DECAY must be a number greater than 0 and at most 1; got "0".'],
			[{ ENGRAMA_COHESION_DECAY: "1.5" }, 'ENGRAMA_COHESION_DECAY must be a number greater than 0 and at most 1; got "1.5".'],
			[{ ENGRAMA_FANOUT_CAP: "2.5" }, 'ENGRAMA_FANOUT_CAP must be an integer at least 1; got "2.5".'],
			[{ ENGRAMA_RECENCY_HALF_LIFE: "0" }, 'ENGRAMA_RECENCY_HALF_LIFE must be a number greater than 0; got "0".'],
			[{ ENGRAMA_GRAPH_RERANK: "maybe" }, 'ENGRAMA_GRAPH_RERANK must be one of 1, true, yes, on, 0, false, no, off; got "maybe".'],
			[{ ENGRAMA_REQUIRE_IDENTITY: "sure" }, 'ENGRAMA_REQUIRE_IDENTITY must be one of 1, true, yes, on, 0, false, no, off; got "sure".'],
			[{ ENGRAMA_RANKING_LEGACY: "legacy" }, 'ENGRAMA_RANKING_LEGACY must be one of 1, true, yes, on, 0, false, no, off; got "legacy".'],
			[{ ENGRAMA_ALLOWED_ORIGINS: "https://ok.example, evil.example" }, 'ENGRAMA_ALLOWED_ORIGINS must list origins like https://app.example.com or http://localhost:*, separated by commas; got "evil.example".'],
			[{ ENGRAMA_ALLOWED_ORIGINS: "https://ok.example/path" }, 'got "https://ok.example/path"'],
			[{ ENGRAMA_HTTP_PORT: "eighty" }, 'ENGRAMA_HTTP_PORT must be an integer at least 0 and at most 65535; got "eighty".'],
			[{ ENGRAMA_HTTP_PORT: "70000" }, 'ENGRAMA_HTTP_PORT must be an integer at least 0 and at most 65535; got "70000".'],
			[{ HYBRID_TRUST_GAMMA: "0.1", ENGRAMA_TRUST_DELTA: "0.4" }, "HYBRID_TRUST_GAMMA (0.1) and ENGRAMA_TRUST_DELTA (0.4) name the same setting: set only one."],
		];
		for (const [env, message] of cases) {
			expect(() => fromEnv(env)).toThrow(ValidationError);
			expect(() => fromEnv(env)).toThrow(message);
		}
	});
});

describe("the configuration schema", () => {
	it("refuses what the variables' own checks let through with zod's English messages, each naming its setting", () => {
		const cases: [Record<string, string>, string][] = [
			[{ EMBEDDING_DIMENSIONS: "-1" }, "Invalid configuration: embedding.dimensions: Too small: expected number to be >=0"],
			[{ ENGRAMA_GRAPH_HOPS: "2.5" }, "Invalid configuration: search.graphHops: Invalid input: expected int, received number"],
			[{ HYBRID_ALPHA: "2", ENGRAMA_RESOLVE_VECTOR: "-2" }, "Invalid configuration: search.alpha: Too big: expected number to be <=1; resolver.vector: Too small: expected number to be >=-1"],
			[{ EMBEDDING_TIMEOUT_MS: "0" }, "Invalid configuration: embedding.timeoutMs: Too small: expected number to be >0"],
		];
		for (const [env, message] of cases) expect(() => fromEnv(env)).toThrow(message);
		expect(() => parseConfig({ dbPath: "" })).toThrow("Invalid configuration: dbPath: Too small: expected string to have >=1 characters");
		expect(() => parseConfig({ dbPath: "/m.db", backend: "postgres" as "sqlite" })).toThrow('Invalid configuration: backend: Invalid option: expected one of "sqlite"|"neo4j"|"null"');
	});

	it("is zod's mini build: one object per setting, no chained methods (each link of a classic chain cloned the schema; building it was ≈ 7 ms of a command)", () => {
		const settings = Object.values(engramaConfigSchema.shape);
		expect(settings.length).toBeGreaterThan(10);
		for (const schema of [engramaConfigSchema, ...settings]) expect("optional" in schema || "min" in schema || "default" in schema).toBe(false);
	});
});
