// typescript-eslint (type-checked) + the Obsidian community-plugin review rules.
import { defineConfig } from "eslint/config";
import obsidianmd from "eslint-plugin-obsidianmd";

export default defineConfig([
	// since-probe.ts calls APIs newer than minAppVersion on purpose (tests/plugin/unsupported-api.test.ts lints it alone).
	{ ignores: ["main.js", "dist/**", "node_modules/**", "examples/**", "tools/**", "**/*.mjs", ".release-check/**", "tests/fixtures/obsidian-api/since-probe.ts"] },
	...obsidianmd.configs.recommended,
	{
		languageOptions: {
			parserOptions: {
				projectService: { allowDefaultProject: ["eslint.config.mjs"] },
				tsconfigRootDir: import.meta.dirname,
			},
		},
		rules: {
			// TypeScript already checks names; no-undef misreads Node and DOM globals in .ts files.
			"no-undef": "off",
			// Strings that name the engrama_id frontmatter key are left alone (the rule would capitalise it).
			"obsidianmd/ui/sentence-case": ["error", { brands: ["Engrama", "Obsidian", "Neo4j", "SQLite", "MCP", "Ollama", "OpenAI"], acronyms: ["MCP", "URI", "URL", "ID", "HTTP", "API", "AI"], ignoreRegex: ["engrama_id"] }],
		},
	},
	{
		// These ship in main.js but reach Node only where it exists, so the rule (which the review
		// config forbids disabling inline) is wrong for them, file by file:
		// - the MCP server files: the bridge loads them with a dynamic import behind
		//   Platform.isDesktopApp (tests/plugin/plugin-mobile.test.ts checks mobile asks for no built-in);
		// - node-modules.ts: type-only imports, the modules come from a guarded lazy require;
		// - wasm-binary.ts: command line only (main.js inlines the WASM instead);
		// - sqlite/native/: command line and serve only, reached through src/nodejs (never from main.js).
		files: [
			"src/mcp/http-guard.ts",
			"src/mcp/http-server.ts",
			"src/mcp/http-sessions.ts",
			"src/mcp/session-ids.ts",
			"src/mcp/mcp-token.ts",
			"src/mcp/node-vault-guard.ts",
			"src/mcp/stdio-proxy.ts",
			"src/mcp/stdio-server.ts",
			"src/mcp/stdio-lines.ts",
			"src/platform/node-builtins.ts",
			"src/backends/sqlite/wasm/wasm-binary.ts",
			"src/backends/sqlite/native/*.ts",
		],
		rules: { "obsidianmd/no-nodejs-modules": "off", "import/no-nodejs-modules": "off" },
	},
	{
		// The command line, Node helpers, tests and scripts never run inside Obsidian. src/backends
		// and src/mcp ship in main.js, so the review rules apply to them.
		// Also off there: they read vaults on disk whose config folder is `.obsidian` (fixtures, the
		// command line's default), reach local test servers and model hubs with Node's fetch, and
		// tests/fakes/obsidian.ts implements Obsidian's own API (Vault.delete, createElement, casts
		// to TFile), which the tests then call as plugins cannot.
		files: ["src/cli/**", "src/nodejs/**", "tests/**", "scripts/**"],
		rules: {
			"obsidianmd/no-nodejs-modules": "off",
			"import/no-nodejs-modules": "off",
			"no-console": "off",
			"obsidianmd/rule-custom-message": "off",
			"obsidianmd/no-global-this": "off",
			"obsidianmd/prefer-window-timers": "off",
			"obsidianmd/hardcoded-config-path": "off",
			"no-restricted-globals": "off",
			"obsidianmd/prefer-create-el": "off",
			"obsidianmd/prefer-instanceof": "off",
			"obsidianmd/no-tfile-tfolder-cast": "off",
			"obsidianmd/prefer-file-manager-trash-file": "off",
		},
	},
	// Files that ship in main.js where a review rule is wrong, file by file, with the reason here
	// (the review config forbids inline disables); `npm run lint` allows no warning at all.
	{
		// The JS global object on purpose, not a window (in the renderer it is the main window, where
		// main.js runs; the command line has none):
		// - load-sqlite.ts: SQLite's bootstrap reads sqlite3ApiConfig, process and WorkerGlobalScope there;
		// - node-modules.ts: `process.getBuiltinModule` of the global process (plain ESM on Node);
		// - process-lock.ts: the lock registry is per process, shared by two copies of the module;
		// - local-model/runtime.ts: ONNX Runtime's glue (patched at build time) keeps its worker there.
		files: [
			"src/backends/sqlite/wasm/load-sqlite.ts",
			"src/platform/node-builtins.ts",
			"src/backends/sqlite/wasm/process-lock.ts",
			"src/plugin/local-model/runtime.ts",
		],
		rules: { "obsidianmd/no-global-this": "off" },
	},
	{
		// The engine knows no window: this default sleep serves the command line; the plugin passes
		// a window-timer sleep (createHttpEmbeddingProvider).
		files: ["src/engine/embedding/retry.ts"],
		rules: { "obsidianmd/prefer-window-timers": "off" },
	},
	{
		// The default for a vault folder on disk (command line); the plugin always passes Vault#configDir.
		files: ["src/engine/sync/sync-settings.ts"],
		rules: { "obsidianmd/hardcoded-config-path": "off" },
	},
	{
		// getSettingDefinitions() is the declarative settings API of Obsidian 1.13; minAppVersion
		// (1.11.4, for app.secretStorage) predates it. Until the minimum reaches 1.13 the tab is
		// imperative and Obsidian's settings search does not list its fields.
		files: ["src/plugin/ui/settings-tab.ts"],
		rules: { "obsidianmd/settings-tab/prefer-setting-definitions": "off" },
	},
	{
		// Node's timers for host-timers.ts, which calls them only where no window exists (the command line).
		files: ["src/platform/node-timers.ts"],
		rules: { "obsidianmd/prefer-window-timers": "off" },
	},
]);
