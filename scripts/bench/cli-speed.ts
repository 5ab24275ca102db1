/**
 * The command line's own cost: CPU (user + sys) and peak RSS of `engrama --help`, `--version`,
 * one `remember` and one `get` on a fresh and on a warm memory file, each run RUNS times (median
 * and worst). Measured with /usr/bin/time (GNU time) around a real `node bin/engrama.mjs`.
 *
 *   npm run bench -- cli-speed [--runs 5] [--bin bin/engrama.mjs] [--against <other>/bin/engrama.mjs] [--wasm]
 *
 * --bin points at another checkout's bin/engrama.mjs. --against measures a second one in the same
 * run, each sample right after the first's (interleaved: both see the same machine load).
 * --wasm adds where SQLite's WASM puts CPU and peak RSS, stage by stage, in a bare Node process
 * (compile, instantiate, the JS API's first call, the first statement), with and without the call
 * to sqlite3_wasm_enum_json() (the bundles carry its result: esbuild-wasm-plugin.mjs, enum-json.ts).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { locateWasmFile } from "../../src/backends/sqlite/wasm/wasm-binary";
import { arg } from "./args";

const RUNS = Number(arg("runs", "5"));
const BIN = arg("bin", join("bin", "engrama.mjs"));
const AGAINST = arg("against", "");
const TIME = "/usr/bin/time";

interface Sample {
	cpuS: number;
	rssMb: number;
}

function measure(bin: string, args: readonly string[]): Sample {
	const out = join(tmpdir(), `engrama-cli-speed-${process.pid}.time`);
	const result = spawnSync(TIME, ["-o", out, "-f", "%U %S %M", process.execPath, bin, ...args], {
		env: { ...process.env, ENGRAMA_DB_PATH: "", VAULT_PATH: "", EMBEDDING_PROVIDER: "none" },
		encoding: "utf8",
	});
	if (result.status !== 0) throw new Error(`${bin} ${args.join(" ")} failed: ${result.stderr}`);
	const [user, sys, rssKb] = readFileSync(out, "utf8").trim().split("\n").pop()!.split(" ").map(Number);
	rmSync(out, { force: true });
	return { cpuS: user + sys, rssMb: rssKb / 1024 };
}

function row(label: string, samples: Sample[]): string {
	const cpu = samples.map((s) => s.cpuS).sort((a, b) => a - b);
	const rss = samples.map((s) => s.rssMb).sort((a, b) => a - b);
	const mid = (xs: number[]) => xs[Math.floor(xs.length / 2)];
	return `| ${label} | ${mid(cpu).toFixed(2)} s | ${cpu[cpu.length - 1].toFixed(2)} s | ${mid(rss).toFixed(0)} MB | ${rss[rss.length - 1].toFixed(0)} MB |`;
}

function load(): string {
	try {
		return readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
	} catch {
		return "n/a";
	}
}

if (!existsSync(TIME)) {
	console.error(`cli-speed needs GNU time at ${TIME} (apt-get install time).`);
	process.exit(1);
}
/**
 * Peak RSS and CPU after each step of bringing up SQLite's WASM in a bare Node process, as the
 * CLI does it (liftoff only, lazy compilation: V8 compiles a function on its first call).
 */
const WASM_PROBE = `
const { readFileSync } = require("node:fs");
const stage = (name) => {
	const s = readFileSync("/proc/self/status", "utf8");
	const kb = (k) => parseInt(s.split("\\n").find((l) => l.startsWith(k + ":")).slice(k.length + 1).trim(), 10);
	const cpu = process.cpuUsage();
	console.log("| " + name + " | " + ((cpu.user + cpu.system) / 1000).toFixed(0) + " ms | " + (kb("VmRSS") / 1024).toFixed(0) + " MB | " + (kb("VmHWM") / 1024).toFixed(0) + " MB |");
};
(async () => {
	stage("node started");
	const file = process.argv[1];
	const bytes = readFileSync(file);
	stage("sqlite3.wasm read (" + (bytes.length / 1048576).toFixed(1) + " MB)");
	const module = await WebAssembly.compile(bytes);
	stage("compiled (validated; functions compile on first call)");
	const memory = new WebAssembly.Memory({ initial: 256, maximum: 32768 });
	const imports = { env: { memory } };
	for (const imp of WebAssembly.Module.imports(module)) { if (imp.kind !== "function") continue; imports[imp.module] ??= {}; imports[imp.module][imp.name] = () => 0; }
	const { exports: x } = await WebAssembly.instantiate(module, imports);
	x.__wasm_call_ctors?.();
	x.sqlite3_initialize();
	stage("instantiated, sqlite3_initialize (16 MB memory)");
	if (process.argv[2] === "call") {
		x.sqlite3_wasm_enum_json();
		stage("sqlite3_wasm_enum_json (the JS API bootstrap's first call)");
	}
	const cstring = (t) => { const b = new TextEncoder().encode(t + String.fromCharCode(0)); const at = x.sqlite3_malloc(b.length); new Uint8Array(memory.buffer).set(b, at); return at; };
	const out = x.sqlite3_malloc(4);
	x.sqlite3_open_v2(cstring(":memory:"), out, 6, 0);
	const db = new Uint32Array(memory.buffer, out, 1)[0];
	x.sqlite3_prepare_v2(db, cstring("SELECT 1"), -1, out, 0);
	stage("open, prepare SELECT 1");
	x.sqlite3_step(new Uint32Array(memory.buffer, out, 1)[0]);
	stage("first sqlite3_step (compiles sqlite3VdbeExec)");
	x.sqlite3_exec(db, cstring("CREATE TABLE t (a); INSERT INTO t VALUES (1); SELECT * FROM t"), 0, 0, 0);
	stage("three more statements");
})();
`;

const dir = mkdtempSync(join(tmpdir(), "engrama-cli-speed-"));
try {
	const loadBefore = load();
	const bins = AGAINST ? [BIN, AGAINST] : [BIN];
	const samples = bins.map((): Record<string, Sample[]> => ({ help: [], version: [], "remember (new file)": [], remember: [], get: [] }));
	for (let i = 0; i < RUNS; i++) {
		for (const [b, bin] of bins.entries()) {
			const db = join(dir, `memory-${b}.db`);
			const mine = samples[b];
			mine.help.push(measure(bin, ["--help"]));
			mine.version.push(measure(bin, ["--version"]));
			mine["remember (new file)"].push(measure(bin, ["--db", join(dir, `fresh-${b}-${i}.db`), "remember", "--label", "Concept", "--name", `Fresh ${i}`]));
			mine.remember.push(measure(bin, ["--db", db, "remember", "--label", "Concept", "--name", `Warm ${i}`, "--props", '{"summary":"one remember"}']));
			mine.get.push(measure(bin, ["--db", db, "get", "--label", "Concept", "--name", `Warm ${i}`]));
		}
	}
	for (const [b, bin] of bins.entries()) {
		console.log(`CLI speed: ${bin}, ${RUNS} runs each${AGAINST ? " (interleaved with the other)" : ""}, Node ${process.version} (load average before ${loadBefore}, after ${load()})`);
		console.log("");
		console.log("| command | CPU median | CPU worst | peak RSS median | peak RSS worst |");
		console.log("|---|---:|---:|---:|---:|");
		for (const [label, xs] of Object.entries(samples[b])) console.log(row(label, xs));
		console.log("");
	}
	if (process.argv.includes("--wasm")) {
		for (const enumJson of ["call", "precomputed"]) {
			console.log(`SQLite WASM in a bare Node process (node --liftoff-only), cumulative, enum JSON ${enumJson === "call" ? "from the C call" : "precomputed (not called)"}:`);
			console.log("");
			console.log("| after | CPU | RSS | peak RSS |");
			console.log("|---|---:|---:|---:|");
			const probe = spawnSync(process.execPath, ["--liftoff-only", "-e", WASM_PROBE, locateWasmFile(), enumJson], { encoding: "utf8" });
			if (probe.status !== 0) throw new Error(`the WASM probe failed: ${probe.stderr}`);
			process.stdout.write(probe.stdout + "\n");
		}
	}
} finally {
	rmSync(dir, { recursive: true, force: true });
}
