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
		env: { TZ: "UTC" },
	},
});
