#!/usr/bin/env node
// What fflate's deflate level costs per note, as passage-text.ts packs a note's passages (JSON of
// [id, text] deflated): bytes, and CPU to deflate and inflate (best of three rounds). Prints one
// JSON line per level. Usage: node scripts/bench/passage-deflate-level.mjs VAULT
import { readFileSync, readdirSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { deflateSync, inflateSync, strFromU8, strToU8 } from "fflate";

const dir = process.argv[2];
const notes = readdirSync(dir, { recursive: true })
	.filter((f) => f.endsWith(".md"))
	.map((f) => readFileSync(join(dir, f), "utf8"));
const raw = notes.reduce((sum, n) => sum + Buffer.byteLength(n), 0);

function cpuMs(fn) {
	const start = process.cpuUsage();
	fn();
	const used = process.cpuUsage(start);
	return (used.user + used.system) / 1000;
}

const perNoteUs = (ms) => Math.round((ms * 1000) / notes.length);

for (const level of [1, 3, 6, 9]) {
	let packed = [];
	const deflateMs = Math.min(
		...[0, 1, 2].map(() => cpuMs(() => (packed = notes.map((n) => deflateSync(strToU8(JSON.stringify([[1, n]])), { level }))))),
	);
	const inflateMs = Math.min(...[0, 1, 2].map(() => cpuMs(() => packed.forEach((z) => strFromU8(inflateSync(z))))));
	const bytes = packed.reduce((sum, z) => sum + z.length, 0);
	const loadAverage = loadavg().map((x) => Math.round(x * 10) / 10);
	process.stdout.write(`${JSON.stringify({ level, notes: notes.length, raw, bytes, deflateUsPerNote: perNoteUs(deflateMs), inflateUsPerNote: perNoteUs(inflateMs), loadAverage })}\n`);
}
