// The memory's folder is private to its owner: it holds the database, its WAL and the MCP token.
import { chmodSync, mkdirSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";

const PRIVATE_DIR_MODE = 0o700;

/** ~/.engrama: the command line's default home for the memory, its token and models. */
export function defaultDataDir(): string {
	return join(homedir(), ".engrama");
}

/**
 * Creates a database's folder (and missing parents) 0700. An existing folder keeps its mode (it
 * may be a vault or a folder shared on purpose), except Engrama's own ~/.engrama, which earlier
 * versions created 0755: group and other access are removed from it.
 */
export function preparePrivateDir(dir: string): void {
	mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
	if (process.platform === "win32" || resolve(dir) !== resolve(defaultDataDir())) return;
	const mode = statSync(dir).mode & 0o777;
	if (mode & 0o077) chmodSync(dir, mode & PRIVATE_DIR_MODE);
}
