/** Somewhere to keep a whole-database snapshot, e.g. a file written through Obsidian's adapter. */
export interface SnapshotStorage {
	/** The last snapshot written, or null if there is none yet. */
	read(): Promise<Uint8Array | null>;
	write(bytes: Uint8Array): Promise<void>;
}
