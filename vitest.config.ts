import { defineConfig } from "vitest/config";
import { fileURLToPath } from "node:url";

export default defineConfig({
	resolve: {
		// The npm `obsidian` package is types only; adapter tests run against our one maintained fake.
		alias: { obsidian: fileURLToPath(new URL("./tests/fakes/obsidian.ts", import.meta.url)) },
	},
	test: {
		include: ["tests/**/*.test.ts"],
		globalSetup: ["tests/global-setup.ts"],
		environment: "node",
		testTimeout: 30_000,
		hookTimeout: 60_000,
		pool: "forks",
		// The plugin harness evaluates main.js with vm and answers its import() as Chromium would
		// (tests/plugin/harness.ts); Node calls that hook only with this flag.
		execArgv: ["--experimental-vm-modules", "--disable-warning=ExperimentalWarning"],
		env: { TZ: "UTC" },
	},
});
