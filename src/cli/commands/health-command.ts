import { existsSync } from "node:fs";
import { get as httpGet } from "node:http";
import type { Command } from "commander";
import type { Backend } from "../../backends";
import { createNodeBackend } from "../../nodejs/node-backend";
import type { EngramaConfig } from "../../config/engrama-config";
import { ValidationError, errorMessage } from "../../engine/errors";
import { DEFAULT_MCP_PORT, MCP_PATH, defaultTokenFile } from "../../mcp";
import { createNodeEmbedder } from "../../nodejs/embedders/create-embedder";
import { resolveConfig, runPlain } from "../run-command";

export interface HealthView {
	readonly ok: boolean;
	readonly backend: {
		readonly name: string;
		readonly ok: boolean;
		/** The SQLite file, or the Neo4j URI and database (never the password). */
		readonly location: string;
		readonly nodes: number | null;
		readonly edges: number | null;
		readonly schema_version: number | null;
		/** SQLite: which engine opened the file (native or WASM, with versions; why WASM when native did not load). */
		readonly engine: string | null;
		readonly detail: string | null;
	};
	readonly embedder: {
		readonly provider: string;
		readonly model: string;
		readonly dimensions: number | null;
		readonly configured: boolean;
		/** null when no embedder is configured (nothing to reach). */
		readonly reachable: boolean | null;
		readonly detail: string | null;
	};
	readonly bridge: {
		readonly url: string;
		readonly reachable: boolean;
		readonly status: number | null;
		readonly token_file: string | null;
		readonly token_file_exists: boolean;
	};
	/** What to do, one line per problem; empty when healthy. */
	readonly advice: readonly string[];
}

interface HealthFlags {
	port: string;
	timeout: string;
}

/** Rejects after `ms` so one dead service cannot hang the report. */
function within<T>(ms: number, what: string, work: Promise<T>): Promise<T> {
	let timer: ReturnType<typeof setTimeout> | undefined;
	const timeout = new Promise<never>((_, reject) => {
		timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms / 1000} s`)), ms);
	});
	return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** Error texts may quote a request; the API key never leaves the process. */
function scrub(text: string, config: EngramaConfig): string {
	const secrets = [config.embedding.apiKey, config.neo4j.password].filter((s) => s.length >= 4);
	return secrets.reduce((t, s) => t.split(s).join("***"), text);
}

async function checkBackend(config: EngramaConfig, ms: number): Promise<HealthView["backend"]> {
	const location =
		config.backend === "neo4j" ? `${config.neo4j.uri} (database ${config.neo4j.database})` : config.backend === "sqlite" ? config.dbPath : "none";
	const base = { name: config.backend, location, nodes: null, edges: null, schema_version: null, engine: null };
	if (config.backend === "sqlite" && config.dbPath !== ":memory:" && !existsSync(config.dbPath)) {
		return { ...base, ok: false, detail: `No memory at ${config.dbPath}.` };
	}
	try {
		if (config.backend === "neo4j") {
			// One attempt, no retries while a server starts: health answers now.
			const { createNeo4jBackend, testConnection } = await import("../../backends");
			const problem = await within(ms, "Neo4j", testConnection(config));
			if (problem) return { ...base, ok: false, detail: scrub(problem, config) };
			const backend = await within(ms, "Neo4j", createNeo4jBackend(config, { retry: { maxElapsedMs: 0 } }));
			return await report(backend);
		}
		return await report(await createNodeBackend({ ...config, vectorBackend: "none" }));
	} catch (error) {
		return { ...base, ok: false, detail: scrub(errorMessage(error), config) };
	}

	async function report(backend: Backend): Promise<HealthView["backend"]> {
		const { backendHealth, closeBackend } = await import("../../backends");
		try {
			const h = await within(ms, config.backend, backendHealth(backend));
			return {
				...base,
				ok: h.ok,
				nodes: h.nodes ?? null,
				edges: h.edges ?? null,
				schema_version: h.schemaVersion ?? null,
				engine: h.engine ?? null,
				detail: h.ok ? null : scrub(h.detail ?? "unknown problem", config),
			};
		} finally {
			await closeBackend(backend);
		}
	}
}

async function checkEmbedder(config: EngramaConfig, ms: number): Promise<HealthView["embedder"]> {
	const { provider, model, dimensions } = config.embedding;
	const base = { provider, model, dimensions: dimensions || null };
	if (provider === "none") return { ...base, configured: false, reachable: null, detail: "Embedding is off: search uses words and the graph only." };
	let embedder: ReturnType<typeof createNodeEmbedder> = null;
	try {
		// The HTTP providers abort on their own at the same deadline.
		embedder = createNodeEmbedder({ ...config, embedding: { ...config.embedding, timeoutMs: ms } });
		if (!embedder) return { ...base, configured: false, reachable: null, detail: null };
		const h = await within(ms, "The embedder", embedder.health());
		return {
			...base,
			model: embedder.model || model,
			dimensions: embedder.dimensions || base.dimensions,
			configured: true,
			reachable: h.ok,
			detail: h.detail ? scrub(h.detail, config) : null,
		};
	} catch (error) {
		return { ...base, configured: true, reachable: false, detail: scrub(errorMessage(error), config) };
	} finally {
		const release = (embedder as { close?: () => Promise<void> } | null)?.close;
		if (release && embedder) await release.call(embedder).catch(() => undefined);
	}
}

async function checkBridge(config: EngramaConfig, port: number, ms: number): Promise<HealthView["bridge"]> {
	const url = `http://127.0.0.1:${port}${MCP_PATH}`;
	const tokenFile = config.dbPath === ":memory:" ? null : defaultTokenFile(config.dbPath);
	const status = await new Promise<number | null>((done) => {
		// No token sent: any HTTP answer (401 from a bridge) proves something serves there.
		const req = httpGet(url, { timeout: Math.min(ms, 2000) }, (res) => {
			res.resume();
			done(res.statusCode ?? null);
		});
		req.on("timeout", () => req.destroy());
		req.on("error", () => done(null));
	});
	return { url, reachable: status !== null, status, token_file: tokenFile, token_file_exists: tokenFile !== null && existsSync(tokenFile) };
}

function describe(view: HealthView): string {
	const b = view.backend;
	const e = view.embedder;
	const lines = [
		`Backend: ${b.name} at ${b.location}: ${b.ok ? "ok" : "DOWN"}` +
			(b.ok ? `, ${b.nodes ?? "?"} nodes, ${b.edges ?? "?"} edges${b.schema_version !== null ? `, schema version ${b.schema_version}` : ""}` : `: ${b.detail ?? ""}`),
		e.configured
			? `Embedder: ${e.provider}, model ${e.model || "(default)"}, ${e.dimensions ?? "?"} dimensions: ${e.reachable ? "reachable" : `NOT REACHABLE${e.detail ? `: ${e.detail}` : ""}`}`
			: `Embedder: none (${e.detail ?? "embedding off"})`,
		`MCP bridge: ${view.bridge.reachable ? `answering at ${view.bridge.url} (HTTP ${view.bridge.status})` : `nothing answers at ${view.bridge.url}`}; token file ${view.bridge.token_file ?? "(none)"}${view.bridge.token_file_exists ? "" : " (not created yet: engrama serve creates it)"}`,
	];
	if (b.engine) lines.splice(1, 0, `Engine: ${b.engine}`);
	for (const line of view.advice) lines.push(`! ${line}`);
	lines.push(view.ok ? "Healthy." : "Not healthy (see above).");
	return lines.join("\n");
}

/** `engrama health`: backend, embedder and bridge at a glance; exit 0 healthy, 1 when the backend or embedder is down. */
export function registerHealthCommand(program: Command): void {
	program
		.command("health")
		.description("report the backend, embedder and MCP bridge (read-only); exit 1 when something is down")
		.option("--port <port>", "port of the MCP bridge to look for", String(DEFAULT_MCP_PORT))
		.option("--timeout <seconds>", "how long to wait for each service", "10")
		.action(async (flags: HealthFlags, command: Command) =>
			runPlain(command, async (out, options) => {
				const port = Number(flags.port);
				if (!Number.isInteger(port) || port < 1 || port > 65535) throw new ValidationError(`--port must be a port number (1-65535), got "${flags.port}".`);
				const seconds = Number(flags.timeout);
				if (!Number.isFinite(seconds) || seconds <= 0) throw new ValidationError(`--timeout must be a positive number of seconds, got "${flags.timeout}".`);
				const ms = Math.round(seconds * 1000);
				const config = resolveConfig(options);
				const [backend, embedder, bridge] = await Promise.all([checkBackend(config, ms), checkEmbedder(config, ms), checkBridge(config, port, ms)]);
				const advice: string[] = [];
				if (!backend.ok) {
					advice.push(
						config.backend === "neo4j"
							? "Start Neo4j or fix NEO4J_URI / NEO4J_USERNAME / NEO4J_PASSWORD, then run engrama health again."
							: config.backend === "sqlite" && !existsSync(config.dbPath)
								? "Run engrama init to create the memory, or point --db (or ENGRAMA_DB_PATH) at an existing file."
								: "The memory could not be opened: run engrama verify, or restore the file from a backup.",
					);
				}
				if (embedder.configured && !embedder.reachable) {
					advice.push(
						config.embedding.provider === "local"
							? "The local model did not load: check the network for its first download (or set a local model path), then engrama reindex --apply."
							: `Start the ${config.embedding.provider} embedder or fix OPENAI_BASE_URL / OLLAMA_URL / the API key; until then writes store no vectors (engrama reindex --apply catches up).`,
					);
				}
				const view: HealthView = { ok: advice.length === 0, backend, embedder, bridge, advice };
				out.result(view, () => describe(view));
				if (!view.ok) process.exitCode = 1;
			}),
		);
}
