// The writer stamp on its own: which states open, which refuse, and what a check catches.
import { describe, expect, test } from "vitest";
import { SecondWriterError, WRITER_META_KEY, WriterGuard, type StampFile } from "../../src/plugin/writer-guard";

function memoryFile(initial: string | null = null): StampFile & { text: string | null } {
	const file = {
		text: initial,
		read: () => Promise.resolve(file.text),
		write: (t: string) => {
			file.text = t;
			return Promise.resolve();
		},
	};
	return file;
}

function memoryMeta(initial: Record<string, string> = {}) {
	const meta = new Map(Object.entries(initial));
	return {
		meta,
		graph: { getMeta: (k: string) => Promise.resolve(meta.get(k) ?? null) },
		writeMeta: (k: string, v: string) => {
			meta.set(k, v);
			return Promise.resolve();
		},
	};
}

const stamp = (device: string, counter: number) => JSON.stringify({ device, name: `${device}-host`, counter, at: "2026-12-01T10:00:00.000Z" });
const guard = (file: StampFile, device = "me") => new WriterGuard(file, { id: device, name: `${device}-host` }, "memory.db");

describe("WriterGuard", () => {
	test("a fresh database: claimed, the counter starts at 1 in both places", async () => {
		const file = memoryFile();
		const db = memoryMeta();
		await guard(file).claim(db, false);
		expect(JSON.parse(db.meta.get(WRITER_META_KEY)!)).toMatchObject({ device: "me", counter: 1 });
		expect(JSON.parse(file.text!)).toMatchObject({ device: "me", counter: 1 });
	});

	test("our own last session: claimed again with the next counter", async () => {
		const file = memoryFile(`${stamp("me", 4)}\n`);
		const db = memoryMeta({ [WRITER_META_KEY]: stamp("me", 4) });
		await guard(file).claim(db, false);
		expect(JSON.parse(file.text!)).toMatchObject({ counter: 5 });
	});

	test("a crash between stamping the database and the side file (database ahead): accepted", async () => {
		const file = memoryFile(`${stamp("me", 4)}\n`);
		const db = memoryMeta({ [WRITER_META_KEY]: stamp("me", 5) });
		await guard(file).claim(db, false);
		expect(JSON.parse(file.text!)).toMatchObject({ counter: 6 });
	});

	test("another device wrote last, in the database or only in the side file: refused, nothing written", async () => {
		for (const [inDb, side] of [
			[stamp("laptop", 3), `${stamp("laptop", 3)}\n`],
			[stamp("me", 3), `${stamp("laptop", 4)}\n`],
		]) {
			const file = memoryFile(side);
			const db = memoryMeta({ [WRITER_META_KEY]: inDb });
			await expect(guard(file).claim(db, false)).rejects.toThrow(/last written by another device \(laptop-host, .*\).*Use this memory on this device/);
			expect(file.text).toBe(side);
			expect(db.meta.get(WRITER_META_KEY)).toBe(inDb);
		}
	});

	test("an older copy of the database put back (the side file is ahead): refused, and taking over claims it", async () => {
		const file = memoryFile(`${stamp("me", 7)}\n`);
		const db = memoryMeta({ [WRITER_META_KEY]: stamp("me", 5) });
		await expect(guard(file).claim(db, false)).rejects.toThrow(/older than this device's last session .*write 5, expected 7/);
		await guard(file).claim(db, true);
		expect(JSON.parse(db.meta.get(WRITER_META_KEY)!)).toMatchObject({ device: "me", counter: 8 });
	});

	test("check: passes while the side file is ours, then stops for good once another device claims it", async () => {
		const file = memoryFile();
		const stopped: SecondWriterError[] = [];
		const g = new WriterGuard(file, { id: "me", name: "me-host" }, "memory.db", undefined, (e) => stopped.push(e));
		await g.claim(memoryMeta(), false);
		await g.check();
		file.text = `${stamp("laptop", 9)}\n`;
		await expect(g.check()).rejects.toThrow(/Another device \(laptop-host\) opened memory\.db/);
		// Even if the file came back, this session stays stopped: its view of the database is stale.
		file.text = `${stamp("me", 1)}\n`;
		await expect(g.check()).rejects.toBeInstanceOf(SecondWriterError);
		expect(stopped).toHaveLength(1);
	});
});
