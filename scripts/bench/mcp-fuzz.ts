/**
 * MCP fuzz run: `engrama serve` (the built CLI, its own process, a fresh SQLite file and a small
 * vault with a symlink leading out) gets randomized and hostile requests over raw HTTP: broken
 * JSON, JSON-RPC of the wrong shape, tool calls with wrong types, huge / injection / odd unicode
 * values, null / list / string arguments, unknown tools, paths leaving the vault, oversized
 * bodies, wrong tokens, Origins, Hosts, paths, methods, sessions and tenant headers, with valid
 * calls mixed in. Reports crashes, 5xx, hangs (no answer within --timeout), the distribution of
 * HTTP statuses and JSON-RPC error codes, raw validation dumps in messages, and afterwards that
 * the server still answers, stops cleanly, kept every acknowledged write, wrote nothing outside
 * the vault, and that the database passes PRAGMA integrity_check.
 *
 *   npm run bench -- mcp-fuzz [--requests 1500] [--concurrency 4] [--seed 1] [--timeout 30000]
 *
 * Exit code 1 when any of those checks fails.
 */
import { request } from "node:http";
import { connect } from "node:net";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../src/backends/sqlite/wasm/open-database";
import { parseConfig } from "../../src/config/engrama-config";
import { TOOL_NAMES } from "../../src/mcp";
import { openMemory } from "../../src/nodejs/open-memory";
import { INJECTIONS, fuzzValues } from "../../tests/helpers/fuzz-values";
import { arg as flag } from "./args";
import { startServe } from "./serve-process";
import { seededRandom } from "./stats";

const REQUESTS = Number(flag("requests", "1500"));
const CONCURRENCY = Number(flag("concurrency", "4"));
const SEED = Number(flag("seed", "1"));
const TIMEOUT_MS = Number(flag("timeout", "30000"));
const MAX_BODY = 4 * 1024 * 1024;

// GDPR forget would delete the writes the run counts afterwards; reflect is a long whole-graph job, not an input surface.
const TOOLS = TOOL_NAMES.filter((name) => name !== "engrama_reflect" && name !== "engrama_gdpr_forget");
const PATHS = ["../outside/secret.md", "/etc/passwd", "C:\\Windows\\x.md", "Leak.md", "OutDir/x.md", ".obsidian/app.json", "~/x.md", "Notes/../../x.md", "Notes/Real.md", "a\u0000b.md"];

type Kind = "valid" | "bad-json" | "bad-rpc" | "bad-args" | "wrong-args-type" | "unknown-tool" | "vault-path" | "oversized" | "refused-http" | "session";

interface Outcome {
	readonly kind: Kind;
	readonly status?: number;
	readonly body?: string;
	readonly error?: string;
	readonly ms: number;
	/** Which variant, for requests of several shapes (shown when one goes unanswered). */
	readonly note?: string;
}

interface Target {
	readonly host: string;
	readonly port: number;
	readonly token: string;
}

/** One raw HTTP exchange; a request unanswered after TIMEOUT_MS counts as a hang. */
function send(
	target: Target,
	options: { method?: string; path?: string; headers?: Record<string, string>; body?: string | Buffer; auth?: string | null },
): Promise<{ status?: number; body?: string; headers?: Record<string, unknown>; error?: string; ms: number }> {
	const started = performance.now();
	return new Promise((resolve) => {
		const headers: Record<string, string> = {
			"content-type": "application/json",
			accept: "application/json, text/event-stream",
			...(options.auth === null ? {} : { authorization: `Bearer ${options.auth ?? target.token}` }),
			// Sent whole with its length: a server may answer (401, 405, 413) before reading a body.
			...(options.body !== undefined ? { "content-length": String(Buffer.byteLength(options.body)) } : {}),
			...options.headers,
		};
		// A connection of its own: a hostile request (a TRACE with a body, say) can leave bytes the
		// server reads as a broken next request, and its 400 must not land on an innocent one.
		let status: number | undefined;
		const req = request({ host: target.host, port: target.port, path: options.path ?? "/mcp", method: options.method ?? "POST", headers, timeout: TIMEOUT_MS, agent: false }, (res) => {
			status = res.statusCode;
			const chunks: Buffer[] = [];
			res.on("data", (c: Buffer) => chunks.push(c));
			res.on("end", () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString("utf8"), headers: res.headers, ms: performance.now() - started }));
			res.on("error", (e) => resolve({ status: res.statusCode, error: e.message, ms: performance.now() - started }));
		});
		req.on("timeout", () => {
			req.destroy(new Error("timeout"));
		});
		// An answer already received counts as answered, even if the socket then closed mid-upload.
		req.on("error", (e: NodeJS.ErrnoException) =>
			resolve(status !== undefined ? { status, ms: performance.now() - started } : { error: e.message === "timeout" ? "timeout" : (e.code ?? e.message), ms: performance.now() - started }),
		);
		req.end(options.body);
	});
}

/**
 * An over-limit upload on a bare socket: the server answers 413 and closes before the body is in,
 * so the upload fails with EPIPE/ECONNRESET; the answer is read from what arrived anyway.
 */
function sendOversized(target: Target, headers: Record<string, string>, body: string): Promise<{ status?: number; body?: string; error?: string; ms: number }> {
	const started = performance.now();
	return new Promise((resolve) => {
		let received = "";
		const socket = connect(target.port, target.host, () => {
			const head = Object.entries({ host: `${target.host}:${target.port}`, authorization: `Bearer ${target.token}`, "content-type": "application/json", accept: "application/json, text/event-stream", "content-length": String(Buffer.byteLength(body)), ...headers })
				.map(([k, v]) => `${k}: ${v}`)
				.join("\r\n");
			socket.write(`POST /mcp HTTP/1.1\r\n${head}\r\n\r\n`);
			socket.end(body);
		});
		socket.setTimeout(TIMEOUT_MS, () => socket.destroy(new Error("timeout")));
		socket.on("data", (chunk: Buffer) => (received += chunk.toString("utf8")));
		let failure: string | undefined;
		socket.on("error", (e: NodeJS.ErrnoException) => (failure = e.message === "timeout" ? "timeout" : (e.code ?? e.message)));
		socket.on("close", () => {
			const status = /^HTTP\/1\.1 (\d{3})/.exec(received)?.[1];
			const text = received.slice(received.indexOf("\r\n\r\n") + 4);
			resolve(status ? { status: Number(status), body: text.startsWith("{") ? text : undefined, ms: performance.now() - started } : { error: failure ?? "closed without an answer", ms: performance.now() - started });
		});
	});
}


const INIT = (id: number | string) =>
	JSON.stringify({ jsonrpc: "2.0", id, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "fuzz", version: "1" } } });

async function openSession(target: Target): Promise<string> {
	const res = await send(target, { body: INIT(0) });
	const id = res.headers?.["mcp-session-id"];
	if (typeof id !== "string") throw new Error(`initialize failed: ${res.status} ${res.body ?? res.error}`);
	await send(target, { headers: { "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" }, body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) });
	return id;
}

async function main(): Promise<void> {
	const dir = mkdtempSync(join(tmpdir(), "engrama-mcp-fuzz-"));
	const vault = join(dir, "vault");
	const outside = join(dir, "outside");
	mkdirSync(join(vault, "Notes"), { recursive: true });
	mkdirSync(outside);
	writeFileSync(join(outside, "secret.md"), "# Secret\n\nNot part of the vault.\n");
	writeFileSync(join(vault, "Notes", "Real.md"), "---\nengrama_label: Project\n---\n# Real\n\nA real note about invoices.\n");
	symlinkSync(join(outside, "secret.md"), join(vault, "Leak.md"));
	symlinkSync(outside, join(vault, "OutDir"));
	const db = join(dir, "memory.db");

	const rand = seededRandom(SEED);
	const { pick, junk, junkArgs } = fuzzValues(rand);

	const serve = await startServe(["--db", db, "--vault", vault], { EMBEDDING_PROVIDER: "hash", EMBEDDING_DIMENSIONS: "64" });
	const url = new URL(serve.url);
	const target: Target = { host: url.hostname, port: Number(url.port), token: serve.token };
	let crashed: string | undefined;
	let stopping = false;
	void serve.exited.then(({ code, signal }) => {
		if (!stopping) crashed ??= `exited with ${code ?? signal} during the run`;
	});

	const sessions = await Promise.all(Array.from({ length: CONCURRENCY }, () => openSession(target)));
	const sessionHeaders = (s: string) => ({ "mcp-session-id": s, "mcp-protocol-version": "2025-06-18" });
	const acknowledged = new Map<string, string>();
	const refusedValid: string[] = [];
	let nextId = 1;
	let validCounter = 0;

	const rpc = (method: string, params: unknown) => JSON.stringify({ jsonrpc: "2.0", id: nextId++, method, params });

	/** One randomized request: what kind it is and its raw answer. */
	const fuzzOne = async (session: string): Promise<Outcome> => {
		const roll = rand();
		const h = sessionHeaders(session);
		const done = (kind: Kind, r: { status?: number; body?: string; error?: string; ms: number }): Outcome => ({ kind, ...r });
		if (roll < 0.08) {
			const name = `Fuzz valid ${validCounter++} ${pick(["Alpha", "Δέλτα", "日本", "Ærø"])}`;
			const summary = `${pick(["Invoices", "Billing", "Cache"])} and ${pick(INJECTIONS)}`;
			const r = await send(target, { headers: h, body: rpc("tools/call", { name: "engrama_remember", arguments: { label: "Concept", properties: { name, summary } } }) });
			try {
				const parsed = JSON.parse(r.body ?? "") as { result?: { isError?: boolean } };
				if (r.status === 200 && parsed.result && !parsed.result.isError) acknowledged.set(name, summary);
				else if (refusedValid.length < 3) refusedValid.push(`${r.status}: ${(r.body ?? r.error ?? "").slice(0, 300)}`);
			} catch {
				if (refusedValid.length < 3) refusedValid.push(`${r.status}: ${(r.body ?? r.error ?? "").slice(0, 300)}`);
			}
			return done("valid", r);
		}
		if (roll < 0.18) {
			const text = rpc("tools/call", { name: "engrama_search", arguments: { query: "x" } });
			const body = pick([
				"{",
				"",
				"null",
				"[]",
				'"str"',
				"{not json}",
				`${"[".repeat(20_000)}${"]".repeat(20_000)}`,
				text.slice(0, Math.floor(rand() * text.length)),
				Buffer.from([0xff, 0xfe, 0x00, 0x7b]).toString("latin1"),
			]);
			return done("bad-json", await send(target, { headers: h, body }));
		}
		if (roll < 0.3) {
			const bodies: unknown[] = [
				{ jsonrpc: "1.0", id: 1, method: "tools/list" },
				{ jsonrpc: "2.0", id: {}, method: "tools/call" },
				{ jsonrpc: "2.0", id: 1, method: 5 },
				{ jsonrpc: "2.0", id: 1, method: "no/such/method" },
				{ jsonrpc: "2.0", id: 1, result: {} },
				{ jsonrpc: "2.0", id: 1, method: "tools/call", params: "x" },
				{ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: 7 } },
				{ jsonrpc: "2.0", id: 1, method: "tools/list", params: { cursor: junk() } },
				{ jsonrpc: "2.0", id: 1, method: "initialize", params: junk() },
				[{ jsonrpc: "2.0", id: 1, method: "tools/list" }, { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "engrama_status", arguments: junk() } }],
				'{"__proto__":{"polluted":true},"jsonrpc":"2.0","id":1,"method":"ping"}',
				'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"engrama_search","arguments":{"query":"\\ud800"}}}',
			];
			const chosen = pick(bodies);
			return done("bad-rpc", await send(target, { headers: h, body: typeof chosen === "string" ? chosen : JSON.stringify(chosen) }));
		}
		if (roll < 0.55) {
			return done("bad-args", await send(target, { headers: h, body: rpc("tools/call", { name: pick(TOOLS), arguments: junkArgs() }) }));
		}
		if (roll < 0.65) {
			const args = pick<unknown>([null, [], "query", 5, true, [{ query: "x" }]]);
			return done("wrong-args-type", await send(target, { headers: h, body: rpc("tools/call", { name: pick(TOOLS), arguments: args }) }));
		}
		if (roll < 0.7) {
			const name = pick(["engrama_nope", "", "x".repeat(300), "ENGRAMA_STATUS", "engrama_status\u0000", "../engrama_status", pick(INJECTIONS)]);
			return done("unknown-tool", await send(target, { headers: h, body: rpc("tools/call", { name, arguments: {} }) }));
		}
		if (roll < 0.8) {
			const path = pick(PATHS);
			const call = pick<[string, Record<string, unknown>]>([
				["engrama_sync_note", { path }],
				["engrama_sync_note", { path, dry_run: true }],
				["engrama_ingest", { source: path }],
				["engrama_sync_vault", { folder: path.replace(/\.md$/, ""), dry_run: rand() < 0.5 }],
				["engrama_write_insight_to_vault", { title: "No such insight", target_note: path }],
			]);
			return done("vault-path", await send(target, { headers: h, body: rpc("tools/call", { name: call[0], arguments: call[1] }) }));
		}
		if (roll < 0.805) {
			// Over the 4 MB limit: declared (Content-Length), and a valid-looking JSON body.
			const pad = "y".repeat(MAX_BODY + 1024);
			return done("oversized", await sendOversized(target, h, rpc("tools/call", { name: "engrama_remember", arguments: { label: "Concept", properties: { name: "Huge", summary: pad } } })));
		}
		if (roll < 0.95) {
			const body = rpc("tools/call", { name: "engrama_status", arguments: {} });
			const variant = Math.floor(rand() * 12);
			const port = target.port;
			const r =
				variant === 0
					? await send(target, { headers: h, body, auth: null })
					: variant === 1
						? await send(target, { headers: h, body, auth: `${target.token.slice(0, -2)}zz` })
						: variant === 2
							? await send(target, { headers: { ...h, authorization: `Basic ${target.token}` }, body, auth: null })
							: variant === 3
								? await send(target, { headers: { ...h, origin: pick(["https://evil.example", "null", "http://127.0.0.1.evil.example", "file://"]) }, body })
								: variant === 4
									? await send(target, { headers: { ...h, host: pick([`evil.example:${port}`, "localhost.evil", `127.0.0.2:${port}`]) }, body })
									: variant === 5
										? await send(target, { headers: h, body, path: pick(["/", "/mcp/", "/MCP", "/mcp/../mcp", "/../../etc/passwd", `/mcp?${"q".repeat(5000)}`]) })
										: variant === 6
											? await (async () => {
													// TRACE has no body by definition: with one, the server (rightly) reads it as a broken second request.
													const method = pick(["PUT", "PATCH", "OPTIONS", "TRACE"]);
													return send(target, { headers: h, body: method === "TRACE" ? undefined : body, method });
												})()
											: variant === 7
												? await send(target, { headers: { "mcp-session-id": pick(["nope", "", "0".repeat(36), "../x"]) }, body })
												: variant === 8
													? await send(target, { body })
													: variant === 9
														? await send(target, { headers: { ...h, "x-engrama-org-id": "acme", "x-engrama-user-id": pick(["bob", "x".repeat(500), "evil user"]) }, body })
														: variant === 10
															? await send(target, { headers: { ...h, "x-engrama-user-id": "mallory" }, body })
															: await send(target, { headers: { ...h, "content-type": pick(["text/plain", "application/xml", "multipart/form-data"]) }, body });
			return { ...done("refused-http", r), note: `variant ${variant}` };
		}
		// Session lifecycle: a new session, one call, then DELETE; the deleted id is refused afterwards.
		const fresh = await send(target, { body: INIT(nextId++) });
		const id = fresh.headers?.["mcp-session-id"];
		if (typeof id === "string") {
			await send(target, { headers: sessionHeaders(id), body: rpc("tools/call", { name: "engrama_status", arguments: {} }) });
			await send(target, { method: "DELETE", headers: sessionHeaders(id) });
			return done("session", await send(target, { headers: sessionHeaders(id), body: rpc("tools/list", {}) }));
		}
		return done("session", fresh);
	};

	const outcomes: Outcome[] = [];
	let livenessFailures = 0;
	let issued = 0;
	const started = performance.now();
	await Promise.all(
		sessions.map(async (session) => {
			while (issued < REQUESTS && !crashed) {
				issued++;
				outcomes.push(await fuzzOne(session));
				if (issued % 100 === 0) {
					const alive = await send(target, { headers: sessionHeaders(session), body: rpc("tools/call", { name: "engrama_status", arguments: {} }) });
					if (alive.status !== 200 || !/"backend"/.test(alive.body ?? "")) livenessFailures++;
				}
			}
		}),
	);
	const wallMs = performance.now() - started;

	// Afterwards: still answering, then a clean stop.
	const finalSession = crashed ? undefined : await openSession(target).catch(() => undefined);
	const still = finalSession ? await send(target, { headers: sessionHeaders(finalSession), body: rpc("tools/call", { name: "engrama_search", arguments: { query: "Fuzz valid" } }) }) : undefined;
	const answersAfter = still?.status === 200 && /"results"/.test(still.body ?? "");
	stopping = true;
	serve.child.kill("SIGTERM");
	const exit = await serve.exited;
	const stderr = serve.stderr();

	// The file: integrity, and every acknowledged write there.
	const file = await openDatabase({ path: db, readonly: true });
	let integrity: string;
	try {
		integrity = String(file.get<{ integrity_check?: string }>("PRAGMA integrity_check")?.integrity_check);
	} finally {
		file.close();
	}
	const opened = await openMemory(parseConfig({ backend: "sqlite", dbPath: db }), { embedder: null });
	let missing = 0;
	try {
		for (const [name, summary] of acknowledged) {
			const node = await opened.memory.get(opened.scope, "Concept", name);
			if (!node || node.props.summary !== summary) missing++;
		}
	} finally {
		await opened.close();
	}
	const outsideUntouched = readFileSync(join(outside, "secret.md"), "utf8") === "# Secret\n\nNot part of the vault.\n" && readdirSync(outside).join() === "secret.md";

	// Distributions.
	const statuses = new Map<string, number>();
	const codes = new Map<string, number>();
	const byKind = new Map<Kind, number>();
	let fiveHundreds = 0;
	let hangs = 0;
	let transportErrors = 0;
	let rawDumps = 0;
	const dumpSamples: string[] = [];
	const samples: string[] = [];
	const bump = <K>(m: Map<K, number>, k: K) => m.set(k, (m.get(k) ?? 0) + 1);
	for (const o of outcomes) {
		bump(byKind, o.kind);
		if (o.error === "timeout") hangs++;
		else if (o.error) {
			transportErrors++;
			bump(statuses, `no answer (${o.error}, ${o.kind}${o.note ? ` ${o.note}` : ""})`);
		}
		if (o.status !== undefined) bump(statuses, String(o.status));
		if ((o.status ?? 0) >= 500) {
			fiveHundreds++;
			if (samples.length < 5) samples.push(`${o.status} ${o.kind}: ${(o.body ?? "").slice(0, 200)}`);
		}
		if (!o.body) continue;
		let parsed: unknown;
		try {
			parsed = JSON.parse(o.body);
		} catch {
			bump(codes, "body not JSON");
			continue;
		}
		for (const m of Array.isArray(parsed) ? parsed : [parsed]) {
			const msg = m as { error?: { code?: number; message?: string }; result?: { isError?: boolean; content?: { text?: string }[] } };
			if (msg.error) {
				bump(codes, `JSON-RPC ${msg.error.code}`);
				if (/"code":\s*"invalid_type"|"path":\s*\[/.test(msg.error.message ?? "")) {
					rawDumps++;
					if (dumpSamples.length < 3) dumpSamples.push(`${o.kind}: ${(msg.error.message ?? "").replace(/\s+/g, " ").slice(0, 160)}`);
				}
			} else if (msg.result?.isError) {
				bump(codes, "tool result isError");
				if (/"code":\s*"invalid_type"/.test(msg.result.content?.[0]?.text ?? "")) rawDumps++;
			} else if (msg.result) bump(codes, "ok");
		}
	}
	const internalLogged = (stderr.match(/request failed|failed unexpectedly|engrama_\w+ failed:/g) ?? []).length;
	const load = (() => {
		try {
			return readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
		} catch {
			return "n/a";
		}
	})();

	const table = (m: ReadonlyMap<string, number>) => [...m.entries()].sort((a, b) => b[1] - a[1]).map(([k, n]) => `| ${k} | ${n} |`);
	console.log(`MCP fuzz: ${outcomes.length} requests (seed ${SEED}, ${CONCURRENCY} at a time) in ${(wallMs / 1000).toFixed(1)} s; Node ${process.version}; load average ${load}`);
	console.log("");
	console.log("| request kind | count |\n|---|---:|");
	console.log(table(byKind).join("\n"));
	console.log("\n| HTTP status | count |\n|---|---:|");
	console.log(table(statuses).join("\n"));
	console.log("\n| answer | count |\n|---|---:|");
	console.log(table(codes).join("\n"));
	console.log("");
	const checks: [string, boolean, string][] = [
		["no crash", !crashed && exit.code === 0, crashed ?? `stopped with ${exit.code ?? exit.signal} on SIGTERM`],
		["no 5xx", fiveHundreds === 0, `${fiveHundreds}${samples.length ? ` (${samples.join(" | ")})` : ""}`],
		["no hang", hangs === 0, `${hangs} requests unanswered after ${TIMEOUT_MS} ms`],
		["no dropped connection", transportErrors === 0, `${transportErrors}`],
		["no internal error logged", internalLogged === 0, `${internalLogged}`],
		["no raw validation dump", rawDumps === 0, `${rawDumps}${dumpSamples.length ? ` (${dumpSamples.join(" | ")})` : ""}`],
		["liveness during the run", livenessFailures === 0, `${livenessFailures} failed status calls`],
		["answers afterwards", !!answersAfter, still ? `HTTP ${still.status}` : "no session"],
		["valid calls answered ok", acknowledged.size === byKind.get("valid"), `${acknowledged.size} of ${byKind.get("valid") ?? 0}${refusedValid.length ? ` (${refusedValid.join(" | ")})` : ""}`],
		["acknowledged writes kept", missing === 0, `${acknowledged.size - missing} of ${acknowledged.size}`],
		["nothing written outside the vault", outsideUntouched, outsideUntouched ? "outside folder unchanged" : "outside folder changed"],
		["PRAGMA integrity_check", integrity === "ok", integrity],
	];
	console.log("| check | result | detail |\n|---|---|---|");
	for (const [name, ok, detail] of checks) console.log(`| ${name} | ${ok ? "pass" : "FAIL"} | ${detail} |`);
	if (checks.some(([, ok]) => !ok)) process.exitCode = 1;
	rmSync(dir, { recursive: true, force: true });
}

await main();
