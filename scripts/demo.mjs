#!/usr/bin/env node
// The README's first command: a small memory on the embedded default (SQLite in one file), built
// and queried through the real command line. Nothing to install beyond `npm install`.
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";

const dir = join(process.cwd(), ".engrama-demo");
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const db = join(dir, "engrama.db");

function engrama(...args) {
	console.log(`\n$ engrama ${args.map((a) => (/\s|"/.test(a) ? `'${a}'` : a)).join(" ")}`);
	const result = spawnSync(process.execPath, ["bin/engrama.mjs", "--db", db, ...args], { stdio: "inherit" });
	if (result.status !== 0) process.exit(result.status ?? 1);
}

engrama("remember", "--label", "Project", "--name", "Billing Portal", "--props", '{"description":"Invoices and payments for agency clients","status":"active"}');
engrama("remember", "--label", "Problem", "--name", "Duplicate charges on webhook retries", "--props", '{"status":"solved","context":"Stripe retries webhooks; we charged twice"}');
engrama("remember", "--label", "Decision", "--name", "Store processed webhook event IDs", "--props", '{"rationale":"Makes the handler idempotent"}');
engrama("remember", "--label", "Concept", "--name", "Idempotency", "--props", '{"description":"Doing an operation twice has the same effect as once"}');
engrama("relate", "Project", "Billing Portal", "HAS", "Problem", "Duplicate charges on webhook retries");
engrama("relate", "Problem", "Duplicate charges on webhook retries", "SOLVED_BY", "Decision", "Store processed webhook event IDs");
engrama("relate", "Problem", "Duplicate charges on webhook retries", "APPLIES", "Concept", "Idempotency");
engrama("search", "webhook retries charged twice");
engrama("context", "--label", "Project", "--name", "Billing Portal", "--hops", "2");
engrama("status");
console.log(`\nThe memory is one file: ${db}`);
