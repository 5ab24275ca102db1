// typescript-eslint (type-checked) + the Obsidian community-plugin review rules.
import { defineConfig } from "eslint/config";
import obsidianmd from "eslint-plugin-obsidianmd";

export default defineConfig([
	{ ignores: ["main.js", "dist/**", "node_modules/**", "examples/**", "tools/**", "**/*.mjs"] },
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
			"obsidianmd/ui/sentence-case": ["error", { brands: ["Engrama", "Obsidian", "Neo4j", "SQLite", "MCP", "Ollama", "OpenAI"], acronyms: ["MCP", "URI", "URL", "ID", "HTTP", "API"] }],
		},
	},
	{
		// The command line, Node helpers, tests and scripts never run inside Obsidian; the MCP bridge
		// runs there only on desktop, loaded by a dynamic import behind Platform.isDesktopApp.
		files: ["src/cli/**", "src/node/**", "src/mcp/**", "tests/**", "scripts/**"],
		rules: { "obsidianmd/no-nodejs-modules": "off", "import/no-nodejs-modules": "off" },
	},
	{
		// The engine, backends and command line are not Obsidian code: Node built-ins and console are fine there.
		files: ["src/cli/**", "src/node/**", "src/mcp/**", "src/backends/**", "tests/**", "scripts/**"],
		rules: {
			"import/no-nodejs-modules": "off",
			"no-console": "off",
			"obsidianmd/rule-custom-message": "off",
			"obsidianmd/no-global-this": "off",
			"obsidianmd/prefer-window-timers": "off",
		},
	},
]);
