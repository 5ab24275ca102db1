import type { DataAdapter } from "obsidian";
import type { NodeModules } from "../../platform/node-builtins";

/**
 * The file layer under the model store, with paths relative to its root: the vault adapter
 * (mobile: the plugin folder) or Node's fs (desktop: a per-user folder outside the vault).
 */
export interface ModelFiles {
	/** Where the files live, for messages and the settings text. */
	readonly location: string;
	stat(path: string): Promise<{ type: "file" | "folder"; size: number } | null>;
	read(path: string): Promise<string>;
	readBinary(path: string): Promise<ArrayBuffer>;
	/** Writes a file, creating missing parent folders. */
	write(path: string, text: string): Promise<void>;
	writeBinary(path: string, data: ArrayBuffer): Promise<void>;
	/** Moves a file, creating the missing parents of `to`. */
	rename(from: string, to: string): Promise<void>;
	/** Removes a folder and everything in it; nothing there is fine. */
	removeFolder(path: string): Promise<void>;
}

/** Through Obsidian's adapter, under `<pluginFolder>/models` (mobile, and any vault without a real folder). */
export function adapterModelFiles(adapter: DataAdapter, root: string): ModelFiles {
	const full = (path: string) => (path === "" ? root : `${root}/${path}`);
	const ensureFolder = async (folder: string): Promise<void> => {
		if (folder === "" || (await adapter.exists(folder))) return;
		await ensureFolder(parentOf(folder));
		await adapter.mkdir(folder);
	};
	return {
		location: root,
		async stat(path) {
			const stat = await adapter.stat(full(path));
			return stat ? { type: stat.type, size: stat.size } : null;
		},
		read: (path) => adapter.read(full(path)),
		readBinary: (path) => adapter.readBinary(full(path)),
		async write(path, text) {
			await ensureFolder(parentOf(full(path)));
			await adapter.write(full(path), text);
		},
		async writeBinary(path, data) {
			await ensureFolder(parentOf(full(path)));
			await adapter.writeBinary(full(path), data);
		},
		async rename(from, to) {
			await ensureFolder(parentOf(full(to)));
			await adapter.rename(full(from), full(to));
		},
		async removeFolder(path) {
			if (await adapter.exists(full(path))) await adapter.rmdir(full(path), true);
		},
	};
}

/** Node's fs under an absolute folder (desktop). Folders 0700 and files 0600: they are the owner's only. */
export function nodeModelFiles(node: NodeModules, root: string): ModelFiles {
	const { fs, path: nodePath } = node;
	const full = (path: string) => (path === "" ? root : nodePath.join(root, ...path.split("/")));
	const parent = async (file: string) => {
		await fs.promises.mkdir(nodePath.dirname(file), { recursive: true, mode: 0o700 });
	};
	return {
		location: root,
		async stat(path) {
			const stat = await fs.promises.stat(full(path)).catch(() => null);
			return stat ? { type: stat.isDirectory() ? "folder" : "file", size: stat.size } : null;
		},
		read: (path) => fs.promises.readFile(full(path), "utf8"),
		async readBinary(path) {
			return arrayBufferOf(await fs.promises.readFile(full(path)));
		},
		async write(path, text) {
			await parent(full(path));
			await fs.promises.writeFile(full(path), text, { mode: 0o600 });
		},
		async writeBinary(path, data) {
			await parent(full(path));
			await fs.promises.writeFile(full(path), new Uint8Array(data), { mode: 0o600 });
		},
		async rename(from, to) {
			await parent(full(to));
			await fs.promises.rename(full(from), full(to));
		},
		async removeFolder(path) {
			await fs.promises.rm(full(path), { recursive: true, force: true });
		},
	};
}

/** The bytes of a Buffer as an ArrayBuffer of their own (large reads already have one). */
export function arrayBufferOf(buffer: Uint8Array): ArrayBuffer {
	if (buffer.byteOffset === 0 && buffer.byteLength === buffer.buffer.byteLength && buffer.buffer instanceof ArrayBuffer) return buffer.buffer;
	return buffer.slice().buffer;
}

export function parentOf(path: string): string {
	const at = path.lastIndexOf("/");
	return at < 0 ? "" : path.slice(0, at);
}
