import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

/** Every file under `dir` as text, keyed by its vault path (`/` separators): the browser page's vault. */
export function vaultFiles(dir: string): Record<string, string> {
	const out: Record<string, string> = {};
	const walk = (d: string) => {
		for (const name of readdirSync(d)) {
			const path = join(d, name);
			if (statSync(path).isDirectory()) walk(path);
			else out[relative(dir, path).split("\\").join("/")] = readFileSync(path, "utf8");
		}
	};
	walk(dir);
	return out;
}
