// The obsidian types carry @since tags (1.13: several hundred) and eslint-plugin-obsidianmd's
// no-unsupported-api rule reads them: the code calls no API newer than manifest.json's minAppVersion
// unless guarded by requireApiVersion (ui/destructive.ts). With types that lacked the tags the rule
// saw nothing; the probe proves it sees.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ESLint } from "eslint";
import { expect, test } from "vitest";

const ROOT = join(__dirname, "..", "..");
const RULE = "obsidianmd/no-unsupported-api";
const PROBE = "tests/fixtures/obsidian-api/since-probe.ts";

function linter(minAppVersion?: string): ESLint {
	return new ESLint({
		cwd: ROOT,
		ignore: false,
		ruleFilter: ({ ruleId }) => ruleId === RULE,
		...(minAppVersion ? { overrideConfig: { rules: { [RULE]: ["error", { minAppVersion }] } } } : {}),
	});
}

test("the rule sees the @since tags: an API newer than the minimum app version is reported, one at or below it is not", { timeout: 300_000 }, async () => {
	const text = readFileSync(join(ROOT, PROBE), "utf8");
	const messages = async (min: string) => (await linter(min).lintText(text, { filePath: join(ROOT, PROBE) }))[0]?.messages.map((m) => m.message) ?? [];
	expect(await messages("1.8.0")).toEqual([
		"'SecretStorage.getSecret' requires Obsidian v1.11.4, but minAppVersion is 1.8.0.",
		"'App.secretStorage' requires Obsidian v1.11.4, but minAppVersion is 1.8.0.",
		"'Notice.messageEl' requires Obsidian v1.8.7, but minAppVersion is 1.8.0.",
		"'ButtonComponent.setDestructive' requires Obsidian v1.13.0, but minAppVersion is 1.8.0.",
	]);
	expect(await messages("1.11.4")).toEqual(["'ButtonComponent.setDestructive' requires Obsidian v1.13.0, but minAppVersion is 1.11.4."]);
});

test("src calls no Obsidian API newer than manifest.json's minAppVersion", { timeout: 600_000 }, async () => {
	const manifest = JSON.parse(readFileSync(join(ROOT, "manifest.json"), "utf8")) as { minAppVersion: string };
	expect(manifest.minAppVersion).toBe("1.11.4");
	const results = await linter().lintFiles(["src/**/*.ts"]);
	const found = results.flatMap((r) => r.messages.filter((m) => m.ruleId === RULE).map((m) => `${r.filePath}:${m.line} ${m.message}`));
	expect(found).toEqual([]);
	expect(results.length).toBeGreaterThan(100);
});
