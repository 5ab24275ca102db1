/** Somewhere to keep a whole-database snapshot, e.g. a file written through Obsidian's adapter. */
export interface SnapshotStorage {
	/** The last snapshot written, or null if there is none yet. */
	read(): Promise<Uint8Array | null>;
	write(bytes: Uint8Array): Promise<void>;
	/**
	 * The check stamp kept beside the snapshot (snapshot-stamp.ts), or null. Optional: a storage
	 * without it has every open run quick_check over the whole snapshot.
	 */
	readStamp?(): Promise<string | null>;
	/** Keeps `stamp` beside the snapshot; null removes it. */
	writeStamp?(stamp: string | null): Promise<void>;
}
