import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A fresh real folder per test, removed afterwards. */
export function makeTempDir(prefix = "engrama-test-"): { path: string; cleanup(): void } {
	const path = mkdtempSync(join(tmpdir(), prefix));
	return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}
