// Loads the native SQLite driver (better-sqlite3) and sqlite-vec's vec0 extension, once per
// process. Both are optional dependencies: where either cannot load (no prebuilt binary and no
// compiler, another Node ABI, an unsupported platform) the caller falls back to the WASM engine.
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { NativeDatabaseConstructor, NativeOpenOptions } from "./native-api";

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
	let Database: NativeDatabaseConstructor;
	let driverVersion: string;
	try {
		({ Database, driverVersion } = loadBetterSqlite3());
	} catch (error) {
		return { error: unavailable("better-sqlite3", error) };
	}
	let vecPath: string;
	try {
		vecPath = loadSqliteVec().getLoadablePath();
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

/*
 * The command line's bundle carries both packages' JavaScript (esbuild.config.mjs): required file by
 * file from node_modules, they were ≈ 12 ms of every command (docs/benchmarks.md, command line).
 * esbuild bundles what the bundle's own `require` names; the sources run as ES modules (tests,
 * `engrama serve` from the sources) and require through createRequire, from this file's location.
 * Bundled, better-sqlite3 is told where its addon is: its `bindings` lookup starts from the file
 * that required it, the bundle, and would not find it; a binary elsewhere than build/Release (a
 * custom build) is loaded the unbundled way.
 */
function loadBetterSqlite3(): { Database: NativeDatabaseConstructor; driverVersion: string } {
	const fromNodeModules = createRequire(import.meta.url);
	const packageJson = fromNodeModules.resolve("better-sqlite3/package.json");
	const driverVersion = (JSON.parse(readFileSync(packageJson, "utf8")) as { version: string }).version;
	const nativeBinding = join(dirname(packageJson), "build", "Release", "better_sqlite3.node");
	if (typeof require !== "function" || !existsSync(nativeBinding)) {
		return { Database: fromNodeModules("better-sqlite3") as NativeDatabaseConstructor, driverVersion };
	}
	// eslint-disable-next-line @typescript-eslint/no-require-imports -- a require esbuild can see and bundle (above)
	const Bundled = require("better-sqlite3") as NativeDatabaseConstructor;
	// A constructor (called with new) that hands every open the addon's path.
	const Database = function (path: string, options?: NativeOpenOptions) {
		return new Bundled(path, { ...options, nativeBinding });
	} as unknown as NativeDatabaseConstructor;
	return { Database, driverVersion };
}

function loadSqliteVec(): { getLoadablePath(): string } {
	// eslint-disable-next-line @typescript-eslint/no-require-imports -- a require esbuild can see and bundle (loadBetterSqlite3)
	if (typeof require === "function") return require("sqlite-vec") as { getLoadablePath(): string };
	return createRequire(import.meta.url)("sqlite-vec") as { getLoadablePath(): string };
}

function unavailable(what: string, error: unknown): NativeSqliteUnavailableError {
	const detail = error instanceof Error ? error.message.split("\n")[0] : String(error);
	return new NativeSqliteUnavailableError(
		`native SQLite is not available (${what}: ${detail}); reinstall Engrama with \`npm install\` on this machine ` +
			"(better-sqlite3 needs a prebuilt binary for this Node version or a C++ compiler), or set ENGRAMA_SQLITE_ENGINE=wasm",
		{ cause: error },
	);
}
