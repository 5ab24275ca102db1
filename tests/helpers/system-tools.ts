// The programs beside Node that some tests drive for real, and the Debian package of each. A test
// that needs one fails with the install command (README, "What the tests need"), never skips.
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

export const SYSTEM_TOOLS = {
	chromium: { package: "chromium", why: "the plugin's browser test (tests/plugin/browser.test.ts)" },
	python3: { package: "python3", why: "the native SQLite reader tests and the kill -9 loop's reader modes" },
	strace: { package: "strace", why: "the WAL directory fsync test (tests/backends/sqlite/wasm/crash-durability.test.ts)" },
} as const;

export type SystemTool = keyof typeof SYSTEM_TOOLS;

/** The tool's absolute path on PATH, or null. */
export function findTool(name: SystemTool, path = process.env.PATH ?? ""): string | null {
	for (const dir of path.split(delimiter)) {
		if (!dir) continue;
		const file = join(dir, name);
		try {
			accessSync(file, constants.X_OK);
			return file;
		} catch {
			// Not in this folder.
		}
	}
	return null;
}

/** What to tell a person missing `name`. */
export function missingToolMessage(name: SystemTool): string {
	const tool = SYSTEM_TOOLS[name];
	return `${name} is not installed; ${tool.why} needs it. On Debian or Ubuntu: sudo apt-get install -y ${tool.package}`;
}

/** The tool's path; throws the install command when it is missing. */
export function requireTool(name: SystemTool): string {
	const found = findTool(name);
	if (!found) throw new Error(missingToolMessage(name));
	return found;
}
