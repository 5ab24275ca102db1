// Loads the native SQLite driver (better-sqlite3) and sqlite-vec's vec0 extension, once per
// process. Both are optional dependencies: where either cannot load (no prebuilt binary and no
// compiler, another Node ABI, an unsupported platform) the caller falls back to the WASM engine.
import { createRequire } from "node:module";
import type { NativeDatabaseConstructor } from "./native-api";

export interface NativeDriver {
	readonly Database: NativeDatabaseConstructor;
	/** The vec0 loadable extension for this platform (sqlite-vec-<os>-<arch>). */
	readonly vecPath: string;
	readonly driverVersion: string;
}

/** The native engine cannot run here; `message` says why and what would fix it. */
export class NativeSqliteUnavailableError extends Error {
	override readonly name = "NativeSqliteUnavailableError";
	readonly code = "native_sqlite_unavailable";
}

let cached: { driver?: NativeDriver; error?: NativeSqliteUnavailableError } | undefined;

/** The driver, or a NativeSqliteUnavailableError (cached: a failed load is not retried). */
export function loadNativeDriver(): NativeDriver {
	cached ??= tryLoad();
	if (cached.error) throw cached.error;
	return cached.driver!;
}

function tryLoad(): { driver?: NativeDriver; error?: NativeSqliteUnavailableError } {
	// Resolved from this file's location: node_modules beside the bundle (dist/) or the sources.
	const require = createRequire(import.meta.url);
	let Database: NativeDatabaseConstructor;
	let driverVersion: string;
	try {
		Database = require("better-sqlite3") as NativeDatabaseConstructor;
		driverVersion = (require("better-sqlite3/package.json") as { version: string }).version;
	} catch (error) {
		return { error: unavailable("better-sqlite3", error) };
	}
	let vecPath: string;
	try {
		vecPath = (require("sqlite-vec") as { getLoadablePath(): string }).getLoadablePath();
	} catch (error) {
		return { error: unavailable("sqlite-vec", error) };
	}
	// better-sqlite3 loads its binary at the first `new Database()`, not at require: a binary for
	// another Node ABI, or a vec0 build for another platform, shows only when used. Probed once here.
	try {
		const probe = new Database(":memory:");
		try {
			probe.loadExtension(vecPath);
		} finally {
			probe.close();
		}
	} catch (error) {
		return { error: unavailable("better-sqlite3 with sqlite-vec", error) };
	}
	return { driver: { Database, vecPath, driverVersion } };
}

function unavailable(what: string, error: unknown): NativeSqliteUnavailableError {
	const detail = error instanceof Error ? error.message.split("\n")[0] : String(error);
	return new NativeSqliteUnavailableError(
		`native SQLite is not available (${what}: ${detail}); reinstall Engrama with \`npm install\` on this machine ` +
			"(better-sqlite3 needs a prebuilt binary for this Node version or a C++ compiler), or set ENGRAMA_SQLITE_ENGINE=wasm",
		{ cause: error },
	);
}
