import { parseDocument } from "yaml";
import type { Profile } from "./profile";
import type { ProfileSource } from "./load-profile";

/**
 * Label → module name for the labels that the given (shipped) modules define but `profile` lacks:
 * a module that is off. Sync uses it to say "turn on module teaching" for `type: Course`.
 * Unreadable module files are skipped: this is a hint, never a reason to fail.
 */
export function labelsOfOtherModules(modules: readonly ProfileSource[], profile: Profile): Record<string, string> {
	const out: Record<string, string> = {};
	for (const source of modules) {
		let data: unknown;
		try {
			data = parseDocument(source.text).toJS({ maxAliasCount: 100 });
		} catch {
			continue;
		}
		const file = data as { name?: unknown; nodes?: unknown } | null;
		if (!file || typeof file.name !== "string" || !Array.isArray(file.nodes)) continue;
		for (const node of file.nodes as unknown[]) {
			const label = (node as { label?: unknown } | null)?.label;
			if (typeof label === "string" && !profile.resolveLabel(label) && !(label in out)) out[label] = file.name;
		}
	}
	return out;
}
