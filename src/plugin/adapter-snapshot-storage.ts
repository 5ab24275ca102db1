import type { DataAdapter } from "obsidian";
import type { SnapshotStorage } from "../backends";

/**
 * Obsidian mobile has no Node fs: the database lives in memory and whole-file snapshots are kept
 * through the vault adapter (written atomically: a temporary file, then a rename).
 */
export function createAdapterSnapshotStorage(adapter: DataAdapter, path: string): SnapshotStorage {
	const temporary = `${path}.tmp`;
	return {
		async read() {
			// A crash between removing the old snapshot and renaming the new one leaves only the temporary file.
			for (const candidate of [path, temporary]) {
				if (await adapter.exists(candidate)) return new Uint8Array(await adapter.readBinary(candidate));
			}
			return null;
		},
		async write(bytes) {
			const copy = bytes.slice().buffer;
			await adapter.writeBinary(temporary, copy);
			if (await adapter.exists(path)) await adapter.remove(path);
			await adapter.rename(temporary, path);
		},
	};
}
