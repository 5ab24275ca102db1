import * as z from "zod/mini";
import en from "zod/v4/locales/en.js";
import { ValidationError } from "../engine/errors";

// The choices of the enum settings, shared by the schema and the environment variables' checks.
const GRAPH_BACKENDS = ["sqlite", "neo4j", "null"] as const;
const VECTOR_BACKENDS = ["auto", "sqlite-vec", "neo4j", "none"] as const;
const EMBEDDING_PROVIDERS = ["none", "local", "openai", "ollama", "hash"] as const;
const FUSION_MODES = ["rrf", "linear"] as const;
const DEDUPE_MODES = ["off", "warn", "block"] as const;
const TAG_LINKING_MODES = ["off", "suggest", "auto"] as const;
/** `auto`: native SQLite where its driver loads, else WASM. The plugin always runs WASM. */
export const SQLITE_ENGINES = ["auto", "native", "wasm"] as const;
export type SqliteEngine = (typeof SQLITE_ENGINES)[number];

/*
 * zod's mini build: one schema object per setting, its checks given together, where the classic
 * build's chained methods (.int().min(0).max(4).default(2)) clone a schema object, with its ~40
 * methods, at every link. Building the classic schema was ≈ 7 ms of every command line command
 * (docs/benchmarks.md, command line start-up); the messages are the same (parseConfig).
 */
const anyText = () => z.string();
const filledText = () => z.string().check(z.minLength(1));
const fraction = () => z.number().check(z.minimum(0), z.maximum(1));
const atLeastZero = () => z.number().check(z.minimum(0));
const withDefault = <T extends z.core.SomeType>(schema: T, value: z.core.util.NoUndefined<z.core.output<T>>) => z._default(schema, value);

/** Everything needed to build an engine, whatever the adapter (plugin settings, CLI env/flags). */
export const engramaConfigSchema = z.object({
	backend: withDefault(z.enum(GRAPH_BACKENDS), "sqlite"),
	vectorBackend: withDefault(z.enum(VECTOR_BACKENDS), "auto"),
	dbPath: filledText(),
	/** The command line's and `engrama serve`'s SQLite engine (ENGRAMA_SQLITE_ENGINE, --sqlite-engine); the plugin ignores it. */
	sqliteEngine: withDefault(z.enum(SQLITE_ENGINES), "auto"),
	vaultPath: z.optional(anyText()),
	profile: withDefault(filledText(), "base"),
	modules: withDefault(z.array(filledText()), []),
	orgId: z.optional(filledText()),
	userId: z.optional(filledText()),
	localSub: z.optional(filledText()),
	neo4j: withDefault(
		z.object({
			uri: withDefault(anyText(), "bolt://localhost:7687"),
			username: withDefault(anyText(), "neo4j"),
			password: withDefault(anyText(), ""),
			database: withDefault(anyText(), "neo4j"),
		}),
		{ uri: "bolt://localhost:7687", username: "neo4j", password: "", database: "neo4j" },
	),
	embedding: withDefault(
		z.object({
			provider: withDefault(z.enum(EMBEDDING_PROVIDERS), "none"),
			model: withDefault(anyText(), ""),
			dimensions: withDefault(z.int().check(z.nonnegative()), 0),
			baseUrl: withDefault(anyText(), ""),
			apiKey: withDefault(anyText(), ""),
			/** local: download the model on first use (false = offline; it must be on disk). */
			allowRemoteModels: withDefault(z.boolean(), true),
			/** local: a folder of models already on disk (looked up before the cache beside the database). */
			localModelPath: withDefault(anyText(), ""),
			timeoutMs: withDefault(z.int().check(z.positive()), 30_000),
		}),
		{ provider: "none", model: "", dimensions: 0, baseUrl: "", apiKey: "", allowRemoteModels: true, localModelPath: "", timeoutMs: 30_000 },
	),
	search: withDefault(
		z.object({
			fusionMode: withDefault(z.enum(FUSION_MODES), "rrf"),
			rrfK: withDefault(z.number().check(z.positive()), 30),
			graphRerank: withDefault(z.boolean(), true),
			graphHops: withDefault(z.int().check(z.minimum(0), z.maximum(4)), 2),
			/** Legacy linear mode: weight of the vector channel (HYBRID_ALPHA). */
			alpha: withDefault(fraction(), 0.6),
			/** β graph, γ temporal, δ trust (§6). */
			graphWeight: withDefault(atLeastZero(), 0.05),
			temporalWeight: withDefault(atLeastZero(), 0.1),
			trustWeight: withDefault(atLeastZero(), 0.1),
			/** Unset: the engine's defaults (src/engine/search/hybrid-search.ts). */
			anchorWeight: z.optional(atLeastZero()),
			cohesionDecay: z.optional(z.number().check(z.gt(0), z.maximum(1))),
			fanOutCap: z.optional(z.int().check(z.minimum(1))),
			/** Days after which the temporal term counts a node half (SPEC §6; read-time decay). */
			halfLifeDays: z.optional(z.number().check(z.gt(0))),
			/** Weights of the query's date cues, of when-questions, and the penalty of hub nodes (#14). */
			dateCueWeight: z.optional(atLeastZero()),
			whenWeight: z.optional(atLeastZero()),
			hubPenalty: z.optional(atLeastZero()),
		}),
		{ fusionMode: "rrf", rrfK: 30, graphRerank: true, graphHops: 2, alpha: 0.6, graphWeight: 0.05, temporalWeight: 0.1, trustWeight: 0.1 },
	),
	/** Entity resolver thresholds and modes; defaults in src/engine/resolver/settings.ts. */
	resolver: withDefault(
		z.object({
			connect: withDefault(fraction(), 0.9),
			margin: withDefault(fraction(), 0.08),
			suggest: withDefault(fraction(), 0.6),
			duplicate: withDefault(fraction(), 0.85),
			vector: withDefault(z.number().check(z.minimum(-1), z.maximum(1)), 0.9),
			dedupe: withDefault(z.enum(DEDUPE_MODES), "warn"),
			tagLinking: withDefault(z.enum(TAG_LINKING_MODES), "suggest"),
			requireRelations: withDefault(z.boolean(), false),
		}),
		{ connect: 0.9, margin: 0.08, suggest: 0.6, duplicate: 0.85, vector: 0.9, dedupe: "warn", tagLinking: "suggest", requireRelations: false },
	),
	/** `engrama decay` defaults (DECAY_RATE, DECAY_MAX_AGE_DAYS). */
	decay: withDefault(z.object({ rate: withDefault(atLeastZero(), 0.01), maxAgeDays: withDefault(atLeastZero(), 90) }), { rate: 0.01, maxAgeDays: 90 }),
	/** The MCP bridge (`engrama serve`). allowTenantHeaders: gateway mode (ENGRAMA_ALLOW_TENANT_HEADERS). */
	/** allowedOrigins: web origins accepted besides loopback (ENGRAMA_ALLOWED_ORIGINS); requireIdentity: refuse requests without tenant headers (ENGRAMA_REQUIRE_IDENTITY). */
	/** httpHost / httpPort: where `engrama serve` listens unless --host / --port say (ENGRAMA_HTTP_HOST / ENGRAMA_HTTP_PORT). */
	mcp: withDefault(
		z.object({
			allowTenantHeaders: withDefault(z.boolean(), false),
			allowedOrigins: withDefault(z.array(anyText()), []),
			requireIdentity: withDefault(z.boolean(), false),
			httpHost: z.optional(filledText()),
			httpPort: z.optional(z.int().check(z.minimum(0), z.maximum(65535))),
		}),
		{ allowTenantHeaders: false, allowedOrigins: [], requireIdentity: false },
	),
});

export type EngramaConfig = z.infer<typeof engramaConfigSchema>;
export type EngramaConfigInput = z.input<typeof engramaConfigSchema>;

export function parseConfig(input: EngramaConfigInput): EngramaConfig {
	// Parsed once per process: zod compiling its fast path (new Function) for one parse costs more than it saves.
	const result = engramaConfigSchema.safeParse(input, { jitless: true });
	if (!result.success) {
		// zod's mini build leaves messages to a locale: English, loaded when a configuration is refused.
		z.config(en());
		const issues = engramaConfigSchema.safeParse(input, { jitless: true }).error?.issues ?? result.error.issues;
		const problems = issues.map((i) => `${i.path.join(".") || "config"}: ${i.message}`).join("; ");
		throw new ValidationError(`Invalid configuration: ${problems}`);
	}
	return result.data;
}

type Env = Readonly<Record<string, string | undefined>>;

function envBool(value: string | undefined): boolean | undefined {
	if (value === undefined || value === "") return undefined;
	return /^(1|true|yes|on)$/i.test(value);
}

function envNumber(name: string, value: string | undefined): number | undefined {
	if (value === undefined || value === "") return undefined;
	const n = Number(value);
	if (!Number.isFinite(n)) throw new ValidationError(`${name} must be a number, got "${value}".`);
	return n;
}

const FLAG_TRUE = ["1", "true", "yes", "on"];
const FLAG_FALSE = ["0", "false", "no", "off"];

/** A boolean from the environment, refused (not read as false) when it is neither, like engrama-py. */
function envFlag(name: string, value: string | undefined): boolean | undefined {
	if (value === undefined || value.trim() === "") return undefined;
	const clean = value.trim().toLowerCase();
	if (FLAG_TRUE.includes(clean)) return true;
	if (FLAG_FALSE.includes(clean)) return false;
	throw new ValidationError(`${name} must be one of ${[...FLAG_TRUE, ...FLAG_FALSE].join(", ")}; got "${value}".`);
}

interface Range {
	readonly min: number;
	readonly max?: number;
	/** min itself is refused. */
	readonly above?: boolean;
	readonly integer?: boolean;
}

/** A number from the environment within a range, refused with the variable's name and the range. */
function envInRange(name: string, value: string | undefined, range: Range): number | undefined {
	if (value === undefined || value.trim() === "") return undefined;
	const n = Number(value);
	const low = range.above ? n > range.min : n >= range.min;
	const ok = Number.isFinite(n) && low && (range.max === undefined || n <= range.max) && (!range.integer || Number.isInteger(n));
	if (ok) return n;
	const kind = range.integer ? "an integer" : "a number";
	const from = range.above ? `greater than ${range.min}` : `at least ${range.min}`;
	const bound = range.max === undefined ? from : `${from} and at most ${range.max}`;
	throw new ValidationError(`${name} must be ${kind} ${bound}; got "${value}".`);
}

/** One setting with two accepted names (this project's and engrama-py's): both may be set only to the same value. */
function eitherName(a: string, av: number | undefined, b: string, bv: number | undefined): number | undefined {
	if (av !== undefined && bv !== undefined && av !== bv) {
		throw new ValidationError(`${a} (${av}) and ${b} (${bv}) name the same setting: set only one.`);
	}
	return av ?? bv;
}

/** The MCP bridge's Origin allow-list (ENGRAMA_ALLOWED_ORIGINS, comma-separated, engrama-py's syntax). */
function envOrigins(value: string | undefined): string[] | undefined {
	if (value === undefined || value.trim() === "") return undefined;
	const origins = value.split(",").map((o) => o.trim()).filter(Boolean);
	for (const origin of origins) {
		const wildcardPort = origin.endsWith(":*");
		let ok = false;
		try {
			const url = new URL(wildcardPort ? origin.slice(0, -2) : origin);
			ok = (url.protocol === "http:" || url.protocol === "https:") && url.pathname === "/" && !origin.endsWith("/") && url.search === "";
		} catch {
			ok = false;
		}
		if (!ok) {
			throw new ValidationError(`ENGRAMA_ALLOWED_ORIGINS must list origins like https://app.example.com or http://localhost:*, separated by commas; got "${origin}".`);
		}
	}
	return origins;
}

/** An enum setting from the environment, refused with the variable's name and its choices. */
function envChoice<T extends string>(name: string, value: string | undefined, choices: readonly T[]): T | undefined {
	if (value === undefined || value.trim() === "") return undefined;
	const clean = value.trim().toLowerCase();
	const found = choices.find((c) => c === clean);
	if (found === undefined) throw new ValidationError(`${name} must be one of ${choices.join(", ")}; got "${value}".`);
	return found;
}

/** The seed's environment variables, mapped onto the config (flags override afterwards). */
export function configFromEnv(env: Env, defaults: { dbPath: string }): EngramaConfigInput {
	const nonEmpty = (v: string | undefined) => (v === undefined || v === "" ? undefined : v);
	return {
		backend: envChoice("GRAPH_BACKEND", env.GRAPH_BACKEND, GRAPH_BACKENDS),
		vectorBackend: envChoice("VECTOR_BACKEND", env.VECTOR_BACKEND, VECTOR_BACKENDS),
		dbPath: nonEmpty(env.ENGRAMA_DB_PATH) ?? defaults.dbPath,
		sqliteEngine: envChoice("ENGRAMA_SQLITE_ENGINE", env.ENGRAMA_SQLITE_ENGINE, SQLITE_ENGINES),
		vaultPath: nonEmpty(env.VAULT_PATH),
		profile: nonEmpty(env.ENGRAMA_PROFILE),
		modules: nonEmpty(env.ENGRAMA_MODULES)?.split(/[,\s]+/).filter(Boolean),
		orgId: nonEmpty(env.ENGRAMA_ORG_ID),
		userId: nonEmpty(env.ENGRAMA_USER_ID),
		localSub: nonEmpty(env.ENGRAMA_LOCAL_SUB),
		neo4j: {
			uri: nonEmpty(env.NEO4J_URI),
			username: nonEmpty(env.NEO4J_USERNAME),
			password: env.NEO4J_PASSWORD ?? "",
			database: nonEmpty(env.NEO4J_DATABASE),
		},
		embedding: {
			provider: envChoice("EMBEDDING_PROVIDER", env.EMBEDDING_PROVIDER, EMBEDDING_PROVIDERS),
			model: nonEmpty(env.EMBEDDING_MODEL),
			dimensions: envNumber("EMBEDDING_DIMENSIONS", env.EMBEDDING_DIMENSIONS),
			baseUrl: nonEmpty(env.OPENAI_BASE_URL) ?? nonEmpty(env.OLLAMA_URL),
			apiKey: env.EMBEDDING_API_KEY ?? env.OPENAI_API_KEY ?? "",
			allowRemoteModels: envBool(env.ENGRAMA_ALLOW_REMOTE_MODELS),
			localModelPath: nonEmpty(env.ENGRAMA_LOCAL_MODEL_PATH),
			timeoutMs: envNumber("EMBEDDING_TIMEOUT_MS", env.EMBEDDING_TIMEOUT_MS),
		},
		search: {
			fusionMode: envFlag("ENGRAMA_RANKING_LEGACY", env.ENGRAMA_RANKING_LEGACY) ? "linear" : envChoice("ENGRAMA_FUSION_MODE", env.ENGRAMA_FUSION_MODE, FUSION_MODES),
			rrfK: envNumber("ENGRAMA_RRF_K", env.ENGRAMA_RRF_K),
			graphRerank: envFlag("ENGRAMA_GRAPH_RERANK", env.ENGRAMA_GRAPH_RERANK),
			graphHops: envNumber("ENGRAMA_GRAPH_HOPS", env.ENGRAMA_GRAPH_HOPS),
			alpha: envNumber("HYBRID_ALPHA", env.HYBRID_ALPHA),
			graphWeight: envNumber("HYBRID_GRAPH_BETA", env.HYBRID_GRAPH_BETA),
			temporalWeight: envNumber("HYBRID_TEMPORAL_GAMMA", env.HYBRID_TEMPORAL_GAMMA),
			// engrama-py's names below (core/search.py, same meaning and bounds).
			trustWeight: eitherName(
				"HYBRID_TRUST_GAMMA",
				envNumber("HYBRID_TRUST_GAMMA", env.HYBRID_TRUST_GAMMA),
				"ENGRAMA_TRUST_DELTA",
				envInRange("ENGRAMA_TRUST_DELTA", env.ENGRAMA_TRUST_DELTA, { min: 0 }),
			),
			anchorWeight:
				envFlag("ENGRAMA_ANCHOR_BOOST", env.ENGRAMA_ANCHOR_BOOST) === false ? 0 : envInRange("ENGRAMA_ANCHOR_BETA", env.ENGRAMA_ANCHOR_BETA, { min: 0 }),
			cohesionDecay: envInRange("ENGRAMA_COHESION_DECAY", env.ENGRAMA_COHESION_DECAY, { min: 0, above: true, max: 1 }),
			fanOutCap: envInRange("ENGRAMA_FANOUT_CAP", env.ENGRAMA_FANOUT_CAP, { min: 1, integer: true }),
			halfLifeDays: envInRange("ENGRAMA_RECENCY_HALF_LIFE", env.ENGRAMA_RECENCY_HALF_LIFE, { min: 0, above: true }),
		},
		resolver: {
			connect: envNumber("ENGRAMA_RESOLVE_CONNECT", env.ENGRAMA_RESOLVE_CONNECT),
			margin: envNumber("ENGRAMA_RESOLVE_MARGIN", env.ENGRAMA_RESOLVE_MARGIN),
			suggest: envNumber("ENGRAMA_RESOLVE_SUGGEST", env.ENGRAMA_RESOLVE_SUGGEST),
			duplicate: envNumber("ENGRAMA_RESOLVE_DUPLICATE", env.ENGRAMA_RESOLVE_DUPLICATE),
			vector: envNumber("ENGRAMA_RESOLVE_VECTOR", env.ENGRAMA_RESOLVE_VECTOR),
			dedupe: envChoice("ENGRAMA_REMEMBER_DEDUPE", env.ENGRAMA_REMEMBER_DEDUPE, DEDUPE_MODES),
			tagLinking: envChoice("ENGRAMA_TAG_LINKING", env.ENGRAMA_TAG_LINKING, TAG_LINKING_MODES),
			requireRelations: envBool(env.ENGRAMA_REQUIRE_RELATIONS),
		},
		decay: {
			rate: envNumber("DECAY_RATE", env.DECAY_RATE),
			maxAgeDays: envNumber("DECAY_MAX_AGE_DAYS", env.DECAY_MAX_AGE_DAYS),
		},
		mcp: {
			allowTenantHeaders: envBool(env.ENGRAMA_ALLOW_TENANT_HEADERS),
			allowedOrigins: envOrigins(env.ENGRAMA_ALLOWED_ORIGINS),
			requireIdentity: envFlag("ENGRAMA_REQUIRE_IDENTITY", env.ENGRAMA_REQUIRE_IDENTITY),
			// Checked by `serve` alone (loopback only), so engrama-py's 0.0.0.0 in a shared environment does not stop other commands.
			httpHost: nonEmpty(env.ENGRAMA_HTTP_HOST?.trim()),
			httpPort: envInRange("ENGRAMA_HTTP_PORT", env.ENGRAMA_HTTP_PORT, { min: 0, max: 65535, integer: true }),
		},
	};
}
