import { existsSync } from "node:fs";
import { dirname } from "node:path";
import type { Command } from "commander";
import { createNodeBackend } from "../../nodejs/node-backend";
import { closeBackend, createNeo4jBackend, migrateMemory, type Backend, type MigrationReport } from "../../backends";
import type { EngramaConfig } from "../../config/engrama-config";
import { ValidationError } from "../../engine/errors";
import { preparePrivateDir } from "../../nodejs/private-dir";
import { resolveConfig, runPlain, type GlobalOptions } from "../run-command";

interface MigrateFlags {
	from: string;
	to: string;
	replace?: boolean;
	neo4jNamespace?: string;
}

const BACKENDS = ["sqlite", "neo4j"] as const;
type MigratableBackend = (typeof BACKENDS)[number];

function backendName(flag: string, value: string): MigratableBackend {
	if (!(BACKENDS as readonly string[]).includes(value)) throw new ValidationError(`${flag} must be sqlite or neo4j, got "${value}".`);
	return value as MigratableBackend;
}

function describe(report: MigrationReport): string {
	const lines = [`Migrated ${report.from} → ${report.to}: ${report.scopes.length} scope(s).`];
	for (const s of report.scopes) {
		const insights = Object.entries(s.target.insights).map(([status, n]) => `${n} ${status || "no status"}`).join(", ");
		lines.push(
			`  ${s.orgId}/${s.userId}: ${s.target.nodes} nodes, ${s.target.edges} edges, ${s.target.vectors} vectors, ${s.target.history} history entries` +
				(insights ? `, Insights: ${insights}` : "") +
				(s.identical ? " (counts identical" : ` (COUNTS DIFFER: source ${JSON.stringify(s.source)}`) +
				(s.contentIdentical ? "; every node's props, times and vector identical)" : "; CONTENT DIFFERS)"),
		);
		for (const line of s.differences) lines.push(`    ${line}`);
	}
	if (report.meta.length > 0) lines.push(`  settings copied: ${report.meta.join(", ")}`);
	if (report.renumbered > 0) lines.push(`  ${report.renumbered} nodes without a UUID got a new engrama_id`);
	lines.push(
		report.verified
			? "Verified: both memories hold the same counts, and every node reads back the same."
			: "Verification FAILED: the counts or the nodes differ (see above).",
	);
	return lines.join("\n");
}

/** `engrama migrate --from sqlite --to neo4j` (and back): copies the memory and verifies the counts. */
export function registerMigrateCommand(program: Command): void {
	program
		.command("migrate")
		.description("copy the whole memory to another backend (nodes, edges, props, vectors, history, Insights) and verify counts and content")
		.requiredOption("--from <backend>", "sqlite or neo4j (the SQLite file is --db / ENGRAMA_DB_PATH; Neo4j comes from NEO4J_*)")
		.requiredOption("--to <backend>", "sqlite or neo4j")
		.option("--replace", "forget the copied scopes in the target first (otherwise they must be empty there)")
		.option("--neo4j-namespace <name>", "which memory inside the Neo4j database (default: default)")
		.action(async (flags: MigrateFlags, command: Command) =>
			runPlain(command, async (out, options: GlobalOptions) => {
				const from = backendName("--from", flags.from);
				const to = backendName("--to", flags.to);
				if (from === to) throw new ValidationError(`--from and --to are both ${from}: migrate copies between sqlite and neo4j.`);
				const base = resolveConfig(options);
				const open = async (backend: MigratableBackend, role: "source" | "target"): Promise<Backend> => {
					const config: EngramaConfig = { ...base, backend };
					if (backend === "neo4j") return createNeo4jBackend(config, { namespace: flags.neo4jNamespace });
					if (role === "source" && !existsSync(base.dbPath)) {
						throw new ValidationError(`No SQLite memory at ${base.dbPath}. Point --db (or ENGRAMA_DB_PATH) at the file to migrate.`);
					}
					if (role === "target") preparePrivateDir(dirname(base.dbPath));
					return createNodeBackend(config);
				};
				const source = await open(from, "source");
				try {
					const target = await open(to, "target");
					try {
						const report = await migrateMemory(source, target, { replace: !!flags.replace, onProgress: (line) => out.info(`migrate: ${line}`) });
						out.result(report, () => describe(report));
						if (!report.verified) process.exitCode = 2;
					} finally {
						await closeBackend(target);
					}
				} finally {
					await closeBackend(source);
				}
			}),
		);
}
