#!/usr/bin/env node
// What deflating every note of a vault costs in CPU, one note at a time as a sync would store its
// passages: the web's CompressionStream / DecompressionStream ("deflate-raw", the only codec every
// host of the engine has, Obsidian mobile included; asynchronous) against Node's synchronous zlib
// (Node hosts only). Best of three rounds, after a warm-up round. Prints one JSON line.
// Usage: node scripts/bench/deflate-cost.mjs VAULT
import { readFileSync, readdirSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { deflateRawSync, inflateRawSync } from "node:zlib";

const notes = readdirSync(process.argv[2], { recursive: true })
	.filter((f) => f.endsWith(".md"))
	.map((f) => readFileSync(join(process.argv[2], f)));

async function through(bytes, transform) {
	return new Uint8Array(await new Response(new Blob([bytes]).stream().pipeThrough(transform)).arrayBuffer());
}

async function cpuMs(fn) {
	const start = process.cpuUsage();
	await fn();
	const used = process.cpuUsage(start);
	return (used.user + used.system) / 1000;
}

async function round() {
	const packed = [];
	const streamDeflate = await cpuMs(async () => {
		for (const note of notes) packed.push(await through(note, new CompressionStream("deflate-raw")));
	});
	const streamInflate = await cpuMs(async () => {
		for (const z of packed) await through(z, new DecompressionStream("deflate-raw"));
	});
	const zlibDeflate = await cpuMs(() => packed.forEach((_, i) => deflateRawSync(notes[i])));
	const zlibInflate = await cpuMs(() => packed.forEach((z) => inflateRawSync(z)));
	return { streamDeflate, streamInflate, zlibDeflate, zlibInflate };
}

await round();
const rounds = [await round(), await round(), await round()];
const best = (key) => Math.round(Math.min(...rounds.map((r) => r[key])));
const perNoteUs = (key) => Math.round((best(key) * 1000) / notes.length);
process.stdout.write(
	`${JSON.stringify({
		notes: notes.length,
		cpuMs: { streamDeflate: best("streamDeflate"), streamInflate: best("streamInflate"), zlibDeflate: best("zlibDeflate"), zlibInflate: best("zlibInflate") },
		perNoteUs: { streamDeflate: perNoteUs("streamDeflate"), streamInflate: perNoteUs("streamInflate"), zlibDeflate: perNoteUs("zlibDeflate"), zlibInflate: perNoteUs("zlibInflate") },
		loadAverage: loadavg().map((x) => Math.round(x * 10) / 10),
	})}\n`,
);
