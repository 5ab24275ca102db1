import type { DataAdapter } from "obsidian";
import type { SnapshotStorage } from "../backends";

/**
 * Obsidian mobile has no Node fs: the database lives in memory and whole-file snapshots are kept
 * through the vault adapter (written atomically: a temporary file, then a rename).
 */
export function createAdapterSnapshotStorage(adapter: DataAdapter, path: string): SnapshotStorage {
	const temporary = `${path}.tmp`;
	const stamp = `${path}.engrama-checked`;
	return {
		async read() {
			// A crash between removing the old snapshot and renaming the new one leaves only the temporary file.
			for (const candidate of [path, temporary]) {
				if (await adapter.exists(candidate)) return new Uint8Array(await adapter.readBinary(candidate));
			}
			return null;
		},
		async write(bytes) {
			// The export is a fresh array of its own: copying a large database again cost as much as exporting it.
			const { buffer } = bytes;
			const whole = buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === buffer.byteLength;
			await adapter.writeBinary(temporary, whole ? buffer : bytes.slice().buffer);
			if (await adapter.exists(path)) await adapter.remove(path);
			await adapter.rename(temporary, path);
		},
		async readStamp() {
			return (await adapter.exists(stamp)) ? adapter.read(stamp) : null;
		},
		async writeStamp(text) {
			if (text !== null) await adapter.write(stamp, text);
			else if (await adapter.exists(stamp)) await adapter.remove(stamp);
		},
	};
}
