import { Notice } from "obsidian";
import type { SyncReport } from "../engine";
import { formatCount } from "./notices";

/** Module → the notes that a module that is off would index (from the sync's warnings). */
export function offModulesOf(report: SyncReport): Map<string, string[]> {
	const out = new Map<string, string[]>();
	for (const problem of report.problems) {
		if (problem.module === undefined) continue;
		const paths = out.get(problem.module) ?? [];
		if (!paths.includes(problem.path)) paths.push(problem.path);
		out.set(problem.module, paths);
	}
	return out;
}

/**
 * Says why notes were indexed as plain notes, with a button that turns the module on. It stays
 * until clicked: a button in a notice that fades in 5 s is hard to reach.
 */
export function offerModule(module: string, paths: readonly string[], enable: () => Promise<void>): Notice {
	const notice = new Notice("", 0);
	const el = notice.messageEl;
	el.empty();
	el.addClass("engrama-module-offer");
	const many = paths.length === 1 ? "1 note uses a label" : `${formatCount(paths.length)} notes use labels`;
	el.createDiv({ text: `Engrama: ${many} of the ${module} module, which is off. Turn it on to sync ${paths.length === 1 ? "it" : "them"} with ${paths.length === 1 ? "its label" : "their labels"}.` });
	const button = el.createEl("button", { cls: "mod-cta", text: `Turn on ${module}` });
	button.addEventListener("click", (evt) => {
		// A click on a notice hides it; the button hides it only once the work is done.
		evt.stopPropagation();
		button.disabled = true;
		button.setText(`Turning on ${module}…`);
		void enable().finally(() => notice.hide());
	});
	return notice;
}
