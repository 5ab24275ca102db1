#!/usr/bin/env node
// The README's first command: sync a copy of examples/vault into a memory on the embedded default
// (SQLite in one file), then search it, walk a neighbourhood and reflect, all through the real
// command line. Nothing to install beyond `npm install`.
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";

const dir = join(process.cwd(), ".engrama-demo");
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const db = join(dir, "engrama.db");

function engrama(...args) {
	console.log(`\n$ engrama ${args.map((a) => (/\s|"/.test(a) ? `'${a}'` : a)).join(" ")}`);
	const result = spawnSync(process.execPath, ["bin/engrama.mjs", "--db", db, "--modules", "teaching", ...args], { stdio: "inherit" });
	if (result.status !== 0) process.exit(result.status ?? 1);
}

// A copy of the example vault: sync writes engrama_id into notes, and the repository's copy stays clean.
const vault = join(dir, "vault");
cpSync("examples/vault", vault, { recursive: true });
engrama("--vault", vault, "sync");
engrama("search", "duplicate charges webhook");
engrama("context", "--label", "Project", "--name", "Billing Portal", "--hops", "1");
engrama("reflect");
engrama("insights", "--status", "pending");
engrama("status");
console.log(`\nThe memory is one file: ${db}; the synced vault copy is ${vault}`);
