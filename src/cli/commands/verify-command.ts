import type { Command } from "commander";
import { verifyMemory, type VerifyReport } from "../../engine/verify";
import { runWithMemory } from "../context";

function describe(report: VerifyReport): string {
	const lines = [`Verified the ${report.backend} memory (read-only: nothing was changed).`];
	for (const c of report.checks) {
		const name = c.check.replaceAll("_", " ");
		lines.push(c.ok ? `  ok    ${name}` : `  FAIL  ${name}: ${c.problems}. ${c.advice}`);
		for (const sample of c.samples) lines.push(`          ${sample}`);
	}
	for (const note of report.notes) lines.push(`  note: ${note}`);
	lines.push(report.ok ? "No problems found." : "Problems found (see above).");
	return lines.join("\n");
}

/** `engrama verify`: integrity and consistency checks; exit 0 clean, 1 problems found, 2 bad input or no memory. */
export function registerVerifyCommand(program: Command): void {
	program
		.command("verify")
		.description("check the memory's integrity (database, fulltext, vectors, relations) and say what to do; read-only")
		.action(async (_options: unknown, command: Command) =>
			runWithMemory(command, async ({ opened, out }) => {
				const { memory, scope } = opened;
				const report = await verifyMemory({ graph: memory.graph, vectors: memory.vectors, embedder: memory.embedder }, scope);
				out.result(report, () => describe(report));
				if (!report.ok) process.exitCode = 1;
			}, { mustExist: true }),
		);
}
