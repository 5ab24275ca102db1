/**
 * The command line's own cost: CPU (user + sys) and peak RSS of `engrama --help`, `--version`,
 * one `remember` and one `get` on a fresh and on a warm memory file, each run RUNS times (median
 * and worst). Measured with /usr/bin/time (GNU time) around a real `node bin/engrama.mjs`.
 *
 *   npm run bench -- cli-speed [--runs 5] [--bin bin/engrama.mjs]
 *
 * --bin points at another checkout's bin/engrama.mjs to compare before/after in the same
 * conditions (interleave runs on a shared machine).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { arg } from "./args";

const RUNS = Number(arg("runs", "5"));
const BIN = arg("bin", join("bin", "engrama.mjs"));
const TIME = "/usr/bin/time";

interface Sample {
	cpuS: number;
	rssMb: number;
}

function measure(args: readonly string[]): Sample {
	const out = join(tmpdir(), `engrama-cli-speed-${process.pid}.time`);
	const result = spawnSync(TIME, ["-o", out, "-f", "%U %S %M", process.execPath, BIN, ...args], {
		env: { ...process.env, ENGRAMA_DB_PATH: "", VAULT_PATH: "", EMBEDDING_PROVIDER: "none" },
		encoding: "utf8",
	});
	if (result.status !== 0) throw new Error(`engrama ${args.join(" ")} failed: ${result.stderr}`);
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
const dir = mkdtempSync(join(tmpdir(), "engrama-cli-speed-"));
try {
	const db = join(dir, "memory.db");
	const loadBefore = load();
	const samples: Record<string, Sample[]> = { help: [], version: [], "remember (new file)": [], remember: [], get: [] };
	for (let i = 0; i < RUNS; i++) {
		samples.help.push(measure(["--help"]));
		samples.version.push(measure(["--version"]));
		samples["remember (new file)"].push(measure(["--db", join(dir, `fresh-${i}.db`), "remember", "--label", "Concept", "--name", `Fresh ${i}`]));
		samples.remember.push(measure(["--db", db, "remember", "--label", "Concept", "--name", `Warm ${i}`, "--props", '{"summary":"one remember"}']));
		samples.get.push(measure(["--db", db, "get", "--label", "Concept", "--name", `Warm ${i}`]));
	}
	console.log(`CLI speed: ${BIN}, ${RUNS} runs each, Node ${process.version} (load average before ${loadBefore}, after ${load()})`);
	console.log("");
	console.log("| command | CPU median | CPU worst | peak RSS median | peak RSS worst |");
	console.log("|---|---:|---:|---:|---:|");
	for (const [label, xs] of Object.entries(samples)) console.log(row(label, xs));
} finally {
	rmSync(dir, { recursive: true, force: true });
}
