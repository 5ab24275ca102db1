// The storage under the vault: a real folder in Node, a map in the browser; TFile/TFolder; adapters. Part of the one fake of `obsidian`: import it through tests/fakes/obsidian.ts.

export interface FakeStat {
	readonly type: "file" | "folder";
	readonly ctime: number;
	readonly mtime: number;
	readonly size: number;
}

/** What the fake vault needs from a file system; paths are vault-relative with "/". */
export interface FakeFileSystem {
	readonly basePath: string;
	/** Every entry below the root (files and folders), recursively. */
	list(): { path: string; stat: FakeStat }[];
	stat(path: string): FakeStat | null;
	read(path: string): string;
	readBinary(path: string): Uint8Array;
	write(path: string, data: string | Uint8Array): void;
	mkdir(path: string): void;
	remove(path: string): void;
	rmdir(path: string): void;
	rename(from: string, to: string): void;
}

interface NodeFs {
	readdirSync(path: string, options: { withFileTypes: true }): { name: string; isDirectory(): boolean }[];
	statSync(path: string, options?: { throwIfNoEntry: false }): { isDirectory(): boolean; ctimeMs: number; mtimeMs: number; size: number } | undefined;
	readFileSync(path: string, encoding?: "utf8"): string & Uint8Array;
	writeFileSync(path: string, data: string | Uint8Array): void;
	mkdirSync(path: string, options: { recursive: true }): void;
	rmSync(path: string, options?: { recursive?: boolean; force?: boolean }): void;
	renameSync(from: string, to: string): void;
}

function nodeBuiltin<T>(name: string): T {
	const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
	const mod = proc?.getBuiltinModule?.(name);
	if (!mod) throw new Error(`The fake needs Node's ${name} for a folder-backed vault; use memoryFileSystem() in a browser.`);
	return mod as T;
}

/** A vault over a real folder on disk. */
export function nodeFileSystem(root: string): FakeFileSystem {
	const fs = nodeBuiltin<NodeFs>("fs");
	const full = (path: string) => (path === "" || path === "/" ? root : `${root}/${path}`);
	const toStat = (s: { isDirectory(): boolean; ctimeMs: number; mtimeMs: number; size: number }): FakeStat => ({
		type: s.isDirectory() ? "folder" : "file",
		ctime: Math.floor(s.ctimeMs),
		mtime: Math.floor(s.mtimeMs),
		size: s.size,
	});
	return {
		basePath: root,
		list() {
			const out: { path: string; stat: FakeStat }[] = [];
			const walk = (dir: string) => {
				for (const entry of fs.readdirSync(full(dir), { withFileTypes: true })) {
					const path = dir === "" ? entry.name : `${dir}/${entry.name}`;
					const stat = fs.statSync(full(path));
					if (!stat) continue;
					out.push({ path, stat: toStat(stat) });
					if (entry.isDirectory()) walk(path);
				}
			};
			walk("");
			return out;
		},
		stat(path) {
			const s = fs.statSync(full(path), { throwIfNoEntry: false });
			return s ? toStat(s) : null;
		},
		read: (path) => fs.readFileSync(full(path), "utf8"),
		readBinary: (path) => new Uint8Array(fs.readFileSync(full(path))),
		write: (path, data) => fs.writeFileSync(full(path), data),
		mkdir: (path) => fs.mkdirSync(full(path), { recursive: true }),
		remove: (path) => fs.rmSync(full(path), { force: true }),
		rmdir: (path) => fs.rmSync(full(path), { recursive: true, force: true }),
		rename: (from, to) => fs.renameSync(full(from), full(to)),
	};
}

/** A vault held in memory (browser tests): path → text or bytes. */
export function memoryFileSystem(initial: Record<string, string | Uint8Array> = {}): FakeFileSystem {
	const files = new Map<string, { data: Uint8Array; ctime: number; mtime: number }>();
	const folders = new Set<string>();
	const encoder = new TextEncoder();
	const parents = (path: string) => {
		const parts = path.split("/");
		for (let i = 1; i < parts.length; i++) folders.add(parts.slice(0, i).join("/"));
	};
	const put = (path: string, data: string | Uint8Array) => {
		const now = Date.now();
		const bytes = typeof data === "string" ? encoder.encode(data) : data;
		files.set(path, { data: bytes, ctime: files.get(path)?.ctime ?? now, mtime: now });
		parents(path);
	};
	for (const [path, data] of Object.entries(initial)) put(path, data);
	const need = (path: string) => {
		const file = files.get(path);
		if (!file) throw new Error(`ENOENT: no such file, '${path}'`);
		return file;
	};
	return {
		basePath: "/vault",
		list() {
			const out: { path: string; stat: FakeStat }[] = [];
			for (const folder of folders) out.push({ path: folder, stat: { type: "folder", ctime: 0, mtime: 0, size: 0 } });
			for (const [path, f] of files) out.push({ path, stat: { type: "file", ctime: f.ctime, mtime: f.mtime, size: f.data.byteLength } });
			return out;
		},
		stat(path) {
			const f = files.get(path);
			if (f) return { type: "file", ctime: f.ctime, mtime: f.mtime, size: f.data.byteLength };
			return folders.has(path) ? { type: "folder", ctime: 0, mtime: 0, size: 0 } : null;
		},
		read: (path) => new TextDecoder().decode(need(path).data),
		readBinary: (path) => need(path).data.slice(),
		write: put,
		mkdir(path) {
			parents(`${path}/x`);
		},
		remove: (path) => void files.delete(path),
		rmdir(path) {
			for (const key of [...files.keys()]) if (key.startsWith(`${path}/`)) files.delete(key);
			for (const key of [...folders]) if (key === path || key.startsWith(`${path}/`)) folders.delete(key);
		},
		rename(from, to) {
			const f = need(from);
			files.delete(from);
			files.set(to, { ...f, mtime: Date.now() });
			parents(to);
		},
	};
}
