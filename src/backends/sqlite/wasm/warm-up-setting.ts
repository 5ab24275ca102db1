// Whether loading WASM SQLite runs its warm-ups; apart from load-sqlite.ts so the command line
// can turn them off without loading the WASM engine's JavaScript (it may run native SQLite).
let warmUpWanted = true;

/**
 * Whether loading SQLite runs the warm-ups (default: yes). They only move WASM compilation into
 * short tasks to keep Obsidian's UI responsive; a command line has no UI thread, so it turns them
 * off and compiles only what its own statements call (FTS5 and vec0 only when used).
 */
export function setSqliteWarmUp(enabled: boolean): void {
	warmUpWanted = enabled;
}

export function sqliteWarmUpWanted(): boolean {
	return warmUpWanted;
}
