#!/usr/bin/env node
// What writing a changed note back costs the process (CPU: user + system) on this machine's file
// system, per way of writing it, for notes of a first sync's size (2.7 KB, five folders). The
// ways: `replace` (temporary file + rename per note: what FolderVaultSource.write does), `fsync`
// (temporary files of a batch of 500, fsync each, rename each, fsync the folders: durable on
// every file system), `in-place` (overwrite the file itself: cheapest, but a crash can leave
// half a note). No engine code: the system calls alone.
// Usage: node scripts/bench/id-write-cost.mjs [--notes 5000] [--dir DIR] [--ways replace,fsync,in-place]
import { closeSync, fsyncSync, mkdirSync, mkdtempSync, openSync, renameSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const arg = (name, fallback) => {
	const i = process.argv.indexOf(`--${name}`);
	return i >= 0 ? process.argv[i + 1] : fallback;
};
const NOTES = Number(arg("notes", "5000"));
const WAYS = arg("ways", "replace,fsync,in-place").split(",");
const BATCH = 500;
const body = `${"A line of a note's body, with a [[link]] and a #tag.\n".repeat(50)}`;
const cpuMs = () => {
	const u = process.cpuUsage();
	return (u.user + u.system) / 1000;
};

const ways = {
	replace(files) {
		for (const f of files) {
			const temp = join(f, "..", `.${process.pid}-${Date.now()}.engrama-tmp`);
			writeFileSync(temp, `${body}engrama_id: x\n`);
			renameSync(temp, f);
		}
	},
	fsync(files, dirs) {
		for (let start = 0; start < files.length; start += BATCH) {
			const batch = files.slice(start, start + BATCH).map((f, i) => [f, join(f, "..", `.${process.pid}-${start + i}.engrama-tmp`)]);
			for (const [, temp] of batch) {
				const fd = openSync(temp, "w");
				writeSync(fd, `${body}engrama_id: x\n`);
				fsyncSync(fd);
				closeSync(fd);
			}
			for (const [f, temp] of batch) renameSync(temp, f);
			for (const d of dirs) {
				const fd = openSync(d, "r");
				fsyncSync(fd);
				closeSync(fd);
			}
		}
	},
	"in-place"(files) {
		for (const f of files) {
			const fd = openSync(f, "r+");
			writeSync(fd, `${body}engrama_id: x\n`, 0);
			closeSync(fd);
		}
	},
};

const work = mkdtempSync(join(arg("dir", tmpdir()), "engrama-id-write-"));
try {
	for (const way of WAYS) {
		const dirs = ["A", "B", "C", "D", "E"].map((d) => join(work, way, d));
		for (const d of dirs) mkdirSync(d, { recursive: true });
		const files = Array.from({ length: NOTES }, (_, i) => join(dirs[i % dirs.length], `Note ${i}.md`));
		for (const f of files) writeFileSync(f, body);
		const cpu = cpuMs();
		const start = performance.now();
		ways[way](files, dirs);
		const used = cpuMs() - cpu;
		console.log(JSON.stringify({ way, notes: NOTES, cpuMs: Math.round(used), usPerNote: Math.round((used * 1000) / NOTES), wallMs: Math.round(performance.now() - start) }));
	}
} finally {
	rmSync(work, { recursive: true, force: true });
}
