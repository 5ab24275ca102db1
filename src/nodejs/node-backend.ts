// The backend for a Node process (command line, `engrama serve`, tests, benchmarks): the SQLite
// engine the configuration names, native offered. The plugin calls createBackend itself (WASM only).
import { createBackend, type Backend, type BackendOptions } from "../backends";
import { openNativeDatabase } from "../backends/native";
import type { EngramaConfig } from "../config/engrama-config";

export function createNodeBackend(config: EngramaConfig, options: BackendOptions = {}): Promise<Backend> {
	return createBackend(config, { sqliteEngine: config.sqliteEngine, openNative: openNativeDatabase, ...options });
}
