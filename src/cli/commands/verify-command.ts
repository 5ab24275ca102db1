import type { Command } from "commander";
import { describeCompact, type VerifyReport } from "../../engine";
import { runWithMemory } from "../run-command";

type VerifyView = VerifyReport & { readonly repaired: Readonly<Record<string, number>> | null };

function describe(report: VerifyView): string {
	const lines = report.repaired
		? [`Repaired the ${report.backend} memory: ${Object.entries(report.repaired).map(([check, n]) => `${check.replaceAll("_", " ")} ${n}`).join(", ") || "nothing to repair"}. Then verified it:`]
		: [`Verified the ${report.backend} memory (read-only: nothing was changed).`];
	for (const c of report.checks) {
		const name = c.check.replaceAll("_", " ");
		lines.push(c.ok ? `  ok    ${name}` : `  FAIL  ${name}: ${c.problems}. ${c.advice}`);
		for (const sample of c.samples) lines.push(`          ${sample}`);
	}
	for (const note of report.notes) lines.push(`  note: ${note}`);
	lines.push(report.ok ? "No problems found." : "Problems found (see above).");
	return lines.join("\n");
}

/** `engrama verify [--fix]`: integrity and consistency checks; exit 0 clean, 1 problems found (after --fix: left), 2 bad input or no memory. */
export function registerVerifyCommand(program: Command): void {
	program
		.command("verify")
		.description("check the memory's integrity (database, fulltext, vectors, relations) and say what to do; read-only unless --fix")
		.option("--fix", "remove rows that belong to no node (fulltext rows, relations, vectors) and index nodes missing from the fulltext; never changes a node")
		.action(async (flags: { fix?: boolean }, command: Command) =>
			runWithMemory(
				command,
				async ({ opened, skills, out }) => {
					const repaired = flags.fix ? await skills.repair() : null;
					const report = await skills.verify(opened.scope);
					const view: VerifyView = { ...report, repaired };
					out.result(view, () => describe(view));
					if (!report.ok) process.exitCode = 1;
				},
				{ mustExist: true },
			),
		);
}

/** `engrama compact`: VACUUM the SQLite file (free pages back to the disk); says so and does nothing on Neo4j. */
export function registerCompactCommand(program: Command): void {
	program
		.command("compact")
		.description("rewrite the SQLite memory file without its free space (VACUUM); nothing stored changes")
		.action(async (_flags: unknown, command: Command) =>
			runWithMemory(
				command,
				async ({ skills, out }) => {
					const view = await skills.compact();
					out.result(view, () => describeCompact(view));
				},
				{ mustExist: true },
			),
		);
}
