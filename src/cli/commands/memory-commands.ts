import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { ValidationError } from "../../engine/errors";
import { CONTEXT_LIMIT, RELATED_LIMIT, type IngestKind, type RelatedNoteView, type RememberResult, type Skills } from "../../engine";
import { runWithMemory, type CommandRun } from "../run-command";

function parseJsonObject(flag: string, text: string | undefined): Record<string, unknown> {
	if (text === undefined) return {};
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch (error) {
		throw new ValidationError(`${flag} is not valid JSON (${(error as Error).message}). Example: ${flag} '{"description":"..."}'`);
	}
	if (!value || typeof value !== "object" || Array.isArray(value)) throw new ValidationError(`${flag} must be a JSON object.`);
	return value as Record<string, unknown>;
}

export function positiveInt(name: string, text: string): number {
	const n = Number(text);
	if (!Number.isInteger(n) || n < 1) throw new ValidationError(`${name} must be a positive whole number, got "${text}".`);
	return n;
}

/** status, remember, relate, get, context, related, forget, decay, history, at, ingest. */
export function registerMemoryCommands(program: Command, version: string): void {
	registerStatusCommand(program, version);
	registerRememberCommand(program);
	registerRelateCommand(program);
	registerGetCommand(program);
	registerContextCommand(program);
	registerRelatedCommand(program);
	registerForgetCommand(program);
	registerDecayCommand(program);
	registerHistoryCommand(program);
	registerAtCommand(program);
	registerIngestCommand(program);
}

function registerStatusCommand(program: Command, version: string): void {
	program
		.command("status")
		.description("show the backend, node and edge counts, and labels")
		.action(async (_options, command: Command) =>
			runWithMemory(command, async (run) => {
				const { opened, out, config } = run;
				const { scope } = opened;
				const view = await skillsOf(run).status(scope, { counts: true, labels: true, search: false });
				const counts = view.counts ?? { nodes: 0, edges: 0 };
				const labels = view.labels ?? {};
				const data = {
					version,
					backend: { name: view.backend.name, ok: view.backend.ok ?? false, node_count: counts.nodes, edge_count: counts.edges },
					database: config.backend === "sqlite" ? config.dbPath : undefined,
					profile: view.profile,
					labels,
					identity: { org_id: scope.orgId, user_id: scope.userId },
				};
				out.result(data, () =>
					[
						`Engrama ${version} on ${view.backend.name}${data.database ? ` (${data.database})` : ""}`,
						`profile ${view.profile}; ${counts.nodes} nodes, ${counts.edges} relations`,
						// What another program (the Python engrama) needs as ENGRAMA_ORG_ID / ENGRAMA_USER_ID to read this memory.
						`identity: org_id ${scope.orgId}, user_id ${scope.userId}`,
						...Object.entries(labels).map(([label, n]) => `  ${label}: ${n}`),
					].join("\n"),
				);
			}),
		);
}

function registerRememberCommand(program: Command): void {
	program
		.command("remember")
		.description("create or update (MERGE) an entity, with inline relations resolved by the engine")
		.requiredOption("--label <label>", "entity label from the profile, e.g. Project")
		.requiredOption("--name <name>", "the entity's name (or title for Decision, Problem, Insight)")
		.option("--props <json>", "properties as a JSON object")
		.option("--relations <json>", 'inline relations, e.g. \'{"USES": ["Python", {"name": "SQLite", "label": "Technology"}]}\'')
		.option("--force-new", "with ENGRAMA_REMEMBER_DEDUPE=block: create even if it looks like a duplicate")
		.action(async (options: { label: string; name: string; props?: string; relations?: string; forceNew?: boolean }, command: Command) =>
			runWithMemory(command, async (run) => {
				const { out, ctx } = run;
				const write = await skillsOf(run).remember(ctx, {
					label: options.label,
					name: options.name,
					props: parseJsonObject("--props", options.props),
					relations: options.relations === undefined ? undefined : parseJsonObject("--relations", options.relations),
					forceNew: !!options.forceNew,
				});
				for (const warning of write.warnings) if (!out.json) out.info(`warning: ${warning}`);
				out.result(write, () => rememberText(write));
			}, { replicateToVault: true }),
		);
}

function registerRelateCommand(program: Command): void {
	program
		.command("relate")
		.description("create a typed relation (idempotent), validated against the profile")
		.argument("<fromLabel>")
		.argument("<fromName>")
		.argument("<relation>", "relation type, e.g. USES")
		.argument("<toLabel>")
		.argument("<toName>")
		.action(async (fromLabel: string, fromName: string, relation: string, toLabel: string, toName: string, _o, command: Command) =>
			runWithMemory(command, async (run) => {
				const write = await skillsOf(run).relate(run.ctx, { label: fromLabel, name: fromName }, relation, { label: toLabel, name: toName });
				for (const warning of write.warnings ?? []) if (!run.out.json) run.out.info(`warning: ${warning}`);
				run.out.result(write, () => `${write.created ? "Related" : "Already related"}: ${write.from.name} -[${write.type}]-> ${write.to.name}`);
			}, { replicateToVault: true }),
		);
}

function registerGetCommand(program: Command): void {
	program
		.command("get")
		.description("show one entity")
		.requiredOption("--label <label>")
		.requiredOption("--name <name>")
		.action(async (options: { label: string; name: string }, command: Command) =>
			runWithMemory(command, async (run) => {
				const node = await skillsOf(run).get(run.opened.scope, { label: options.label, name: options.name });
				if (!node) process.exitCode = 3;
				run.out.result({ node }, () =>
					node ? `${node.label} "${node.name}" (${node.node_id})\n${JSON.stringify(node.props, null, 2)}` : `No ${options.label} "${options.name}".`,
				);
			}),
		);
}

function registerContextCommand(program: Command): void {
	program
		.command("context")
		.description("show an entity's neighbourhood")
		.option("--label <label>", "the entity's label; optional when the name is unique")
		.requiredOption("--name <name>")
		.option("--hops <n>", "how far to walk (1-4)", "2")
		.option("--limit <n>", "most neighbours to show, nearest first", String(CONTEXT_LIMIT))
		.action(async (options: { label?: string; name: string; hops: string; limit: string }, command: Command) =>
			runWithMemory(command, async (run) => {
				const { out } = run;
				const view = await skillsOf(run).context(
					run.opened.scope,
					{ label: options.label, name: options.name },
					positiveInt("--hops", options.hops),
					positiveInt("--limit", options.limit),
				);
				if (!view) {
					process.exitCode = 3;
					out.result({ context: null }, () => `No ${options.label ? `${options.label} ` : ""}"${options.name}".`);
					return;
				}
				out.result(view, () =>
					[
						`${view.node.label} "${view.node.name}"`,
						...view.relations.map((r) => `  ${r.from} -[${r.type}]-> ${r.to}`),
						view.truncated ? "  (more neighbours not shown)" : "",
					]
						.filter(Boolean)
						.join("\n"),
				);
			}),
		);
}

function registerRelatedCommand(program: Command): void {
	program
		.command("related")
		.description("notes related to a note and not yet linked to it, with the passage they share; linked notes apart")
		.argument("<note>", "the note's vault path (Guides/Setup.md) or its name")
		.option("--limit <n>", "most notes in each list", String(RELATED_LIMIT))
		.action(async (note: string, options: { limit: string }, command: Command) =>
			runWithMemory(command, async (run) => {
				const view = await skillsOf(run).relatedToNote(run.opened.scope, note, { limit: positiveInt("--limit", options.limit) });
				if (!view) {
					process.exitCode = 3;
					run.out.result({ related: null }, () => `No note "${note}". Give its vault path (as search shows it) or its exact name.`);
					return;
				}
				run.out.result(view, () => relatedText(view.related, view.linked));
			}),
		);
}

/** Each note on a line (path, then the shared passage indented); linked notes under their own heading. */
function relatedText(related: readonly RelatedNoteView[], linked: readonly RelatedNoteView[]): string {
	const lines = (notes: readonly RelatedNoteView[]) => notes.flatMap((n) => [`  ${n.path}${n.relation ? ` (${n.relation.type}, ${n.relation.direction})` : ""}`, ...(n.passage ? [`      ${n.passage.snippet}`] : [])]);
	return [
		related.length > 0 ? "Related, not yet linked:" : "No related notes that are not yet linked.",
		...lines(related),
		...(linked.length > 0 ? ["Already linked:", ...lines(linked)] : []),
	].join("\n");
}

function registerForgetCommand(program: Command): void {
	program
		.command("forget")
		.description("archive an entity (--hard removes it), forget by age (--ttl), or erase your whole memory (--gdpr)")
		.option("--label <label>")
		.option("--name <name>")
		.option("--hard", "remove for good (node, relations, vector) instead of archiving")
		.option("--ttl <days>", "every node not updated for more than this many days (with --label: of that label)")
		.option("--gdpr", "every node, relation, vector, fulltext row and history entry of your scope, and nothing else")
		.option("--dry-run", "with --ttl or --gdpr: report what would go (the default)")
		.option("--apply", "with --ttl or --gdpr: do it")
		.action(
			async (
				options: { label?: string; name?: string; hard?: boolean; ttl?: string; gdpr?: boolean; dryRun?: boolean; apply?: boolean },
				command: Command,
			) =>
				runWithMemory(command, async (run) => {
					const { out, ctx } = run;
					const bulk = options.gdpr || options.ttl !== undefined;
					if (options.gdpr && options.ttl !== undefined) throw new ValidationError("Use --gdpr or --ttl, not both.");
					if (options.dryRun && options.apply) throw new ValidationError("Use --dry-run or --apply, not both.");
					if (!bulk && (options.dryRun || options.apply)) throw new ValidationError("--dry-run and --apply go with --ttl or --gdpr.");
					if (options.gdpr) {
						if (options.name || options.label) throw new ValidationError("--gdpr forgets your whole scope; it takes no --label or --name.");
						const report = await skillsOf(run).gdprForget(ctx, { apply: !!options.apply });
						const c = report.counts;
						out.result(report, () =>
							[
								`${report.mode === "apply" ? "Removed" : "Would remove (dry run; --apply to do it)"} for ${report.scope.org_id}/${report.scope.user_id}:`,
								`  ${c.nodes} nodes, ${c.edges} relations, ${c.vectors} vectors, ${c.fulltext} fulltext rows, ${c.history} history entries, ${c.name_index} name-index rows, ${c.passages} note passages`,
								...notesLines(report.notes),
							].join("\n"),
						);
						return;
					}
					if (options.ttl !== undefined) {
						if (options.name) throw new ValidationError("--ttl works on every node (or one --label); it takes no --name.");
						const report = await skillsOf(run).forgetByTtl(ctx, {
							days: positiveInt("--ttl", options.ttl),
							label: options.label,
							hard: !!options.hard,
							apply: !!options.apply,
						});
						out.result(report, () =>
							[
								`${report.mode === "apply" ? (report.action === "hard" ? "Removed" : "Archived") : "Would " + (report.action === "hard" ? "remove" : "archive") + " (dry run; --apply to do it)"} ${report.count} nodes not updated since ${report.cutoff}`,
								...report.nodes.map((n) => `  ${n.label} "${n.name}"`),
								...notesLines(report.notes),
							].join("\n"),
						);
						return;
					}
					if (!options.name) throw new ValidationError("forget needs --name (and --label when the name is ambiguous), or --ttl, or --gdpr.");
					const result = await skillsOf(run).forget(ctx, { label: options.label, name: options.name }, { hard: !!options.hard });
					out.result(result, () => [`${options.hard ? "Removed" : "Archived"} ${result.forgotten.label} "${result.forgotten.name}"`, ...notesLines(result.notes)].join("\n"));
				}, { replicateToVault: true }),
		);
}

/** What an erase did to the notes (with a vault): removed, and those kept that still hold it. */
function notesLines(notes: { removed: number; kept: number; kept_paths: readonly string[] } | undefined): string[] {
	if (!notes || notes.removed + notes.kept === 0) return [];
	const kept = notes.kept > 0 ? `; kept ${notes.kept} that you wrote or changed (they still hold it): ${notes.kept_paths.join(", ")}${notes.kept > notes.kept_paths.length ? ", …" : ""}` : "";
	return [`  notes: removed ${notes.removed} that Engrama wrote${kept}`];
}

function registerDecayCommand(program: Command): void {
	program
		.command("decay")
		.description("report what age does to ranking (read-only: stored confidence no longer decays)")
		.option("--rate <n>", "accepted for old scripts, no longer used: the rate is ln 2 / half-life (ENGRAMA_RECENCY_HALF_LIFE)")
		.option("--max-age <days>", "list nodes not updated for at least this many days (env DECAY_MAX_AGE_DAYS, default 90)")
		.option("--label <label>", "only this label")
		.option("--dry-run", "accepted for old scripts: every run is a dry run now")
		.action(async (options: { rate?: string; maxAge?: string; label?: string; dryRun?: boolean }, command: Command) =>
			runWithMemory(command, async (run) => {
				const rate = options.rate === undefined ? run.config.decay.rate : nonNegative("--rate", options.rate);
				const maxAgeDays = options.maxAge === undefined ? run.config.decay.maxAgeDays : nonNegative("--max-age", options.maxAge);
				const report = await skillsOf(run).decay(run.ctx, { rate, maxAgeDays, label: options.label, dryRun: !!options.dryRun });
				const notice =
					"Stored confidence no longer decays (as engrama-py 0.18.1): nothing was changed. Search applies age when ranking, " +
					`confidence × 2^(−days/${report.halfLifeDays}) = confidence × exp(−${round(report.rate)} × days).`;
				const view = {
					notice,
					changed: false,
					rate: round(report.rate),
					half_life_days: report.halfLifeDays,
					max_age_days: maxAgeDays,
					dry_run: true,
					examined: report.examined,
					aged: report.aged,
					decayed: 0,
					sample: report.sample.map((c) => ({
						node_id: c.node.id,
						label: c.node.label,
						name: c.node.key,
						days: Math.round(c.days * 10) / 10,
						confidence: round(c.confidence),
						ranking_confidence: round(c.rankingConfidence),
					})),
				};
				run.out.result(view, () =>
					[
						notice,
						`${report.aged} of ${report.examined} nodes not updated for ${maxAgeDays} days or more.`,
						...view.sample.slice(0, 20).map((c) => `  ${c.label} "${c.name}": stored ${c.confidence}, ranks as ${c.ranking_confidence} (${c.days} days)`),
					].join("\n"),
				);
			}),
		);
}

function registerHistoryCommand(program: Command): void {
	program
		.command("history")
		.description("every recorded property change of an entity, oldest first")
		.requiredOption("--name <name>")
		.option("--label <label>", "needed when the name exists under several labels")
		.option("--limit <n>", "newest changes to show", "200")
		.action(async (options: { name: string; label?: string; limit: string }, command: Command) =>
			runWithMemory(command, async (run) => {
				const view = await skillsOf(run).history(run.opened.scope, { label: options.label, name: options.name }, positiveInt("--limit", options.limit));
				run.out.result(view, () =>
					[
						`${view.node.label} "${view.node.name}" created ${view.created_at}`,
						...view.changes.map((c) => `  ${c.at}  ${c.prop}: ${JSON.stringify(c.before)} → ${JSON.stringify(c.after)}${c.source ? ` (${c.source})` : ""}`),
					].join("\n"),
				);
			}),
		);
}

function registerAtCommand(program: Command): void {
	program
		.command("at")
		.description("what the memory held as valid at a date (query_at_date), with the properties of then")
		.argument("<date>", "YYYY-MM-DD (end of that day, UTC) or an ISO date-time")
		.option("--label <label>", "only this label")
		.option("--limit <n>", "most nodes to list", "100")
		.action(async (date: string, options: { label?: string; limit: string }, command: Command) =>
			runWithMemory(command, async (run) => {
				const view = await skillsOf(run).atDate(run.opened.scope, { at: date, label: options.label, limit: positiveInt("--limit", options.limit) });
				run.out.result(view, () =>
					view.nodes.length === 0
						? `Nothing valid at ${view.at}.`
						: [`Valid at ${view.at}:`, ...view.nodes.map((n) => `  [${n.label}] ${n.name} (${n.status})`)].join("\n"),
				);
			}),
		);
}

function registerIngestCommand(program: Command): void {
	program
		.command("ingest")
		.description("read a note, text or conversation (a file, or - for stdin) and print extraction guidance and dedup hints")
		.argument("<source>", "a file path, or - to read stdin")
		.option("--kind <kind>", "note, text or conversation (guessed when absent)")
		.action(async (source: string, options: { kind?: string }, command: Command) =>
			runWithMemory(command, async (run) => {
				const kind = options.kind === undefined ? undefined : ingestKind(options.kind);
				const content = readSource(source);
				const result = await skillsOf(run).ingest(run.opened.scope, { content, kind, source: source === "-" ? "stdin" : source });
				run.out.result(result, () =>
					[
						`${result.kind} (${result.characters} characters) from ${result.source ?? "stdin"}`,
						`Mentions: ${result.mentions.join(", ") || "none"}`,
						result.dedup_hints.length > 0 ? "Existing nodes it seems to mention (reuse these names):" : "No existing node seems to be mentioned.",
						...result.dedup_hints.map((h) => `  [${h.label}] ${h.name}  ← "${h.mention}" (${h.reason}, ${h.score})`),
						"Guidance:",
						...result.guidance.instructions.map((i) => `  - ${i}`),
					].join("\n"),
				);
			}),
		);
}

/** The engine's face for this command (the MCP bridge and the plugin call the same skills). */
export function skillsOf(run: CommandRun): Skills {
	return run.skills;
}

function round(x: number): number {
	return Math.round(x * 10_000) / 10_000;
}

export function nonNegative(name: string, text: string): number {
	const n = Number(text);
	if (text.trim() === "" || !Number.isFinite(n) || n < 0) throw new ValidationError(`${name} must be a number ≥ 0, got "${text}".`);
	return n;
}

function ingestKind(text: string): IngestKind {
	if (text === "note" || text === "text" || text === "conversation") return text;
	throw new ValidationError(`--kind must be note, text or conversation, got "${text}".`);
}

function readSource(source: string): string {
	try {
		return readFileSync(source === "-" ? 0 : source, "utf8");
	} catch (error) {
		throw new ValidationError(`Cannot read ${source === "-" ? "stdin" : source}: ${(error as Error).message}`);
	}
}

/** The human face of a remember answer: what happened, then what the engine noticed. */
function rememberText(write: RememberResult): string {
	const lines = [`${write.created ? "Created" : "Updated"} ${write.node.label} "${write.node.name}" (${write.node.node_id}), ${write.degree} relations`];
	for (const r of write.relations) {
		const target = r.node ? `${r.node.label} "${r.node.name}"` : `"${r.target}"`;
		lines.push(`  ${r.type} → ${target}: ${r.outcome} (${r.resolution})${r.outcome === "resolved" || r.outcome === "stubbed" ? "" : ` — ${r.message}`}`);
		for (const c of r.did_you_mean ?? []) lines.push(`      did you mean ${c.label} "${c.name}" (${c.score})?`);
	}
	for (const d of write.possible_duplicate_of) lines.push(`  possible duplicate of ${d.label} "${d.name}" (${d.reason}, ${d.score})`);
	for (const t of write.relations_from_tags ?? []) lines.push(`  linked from tag "${t.tag ?? ""}": ${t.type} ${t.direction === "out" ? "→" : "←"} ${t.node.label} "${t.node.name}"`);
	if (write.orphan_warning) lines.push(`  ${write.orphan_warning}`);
	for (const s of write.suggested_relations ?? []) lines.push(`  suggested: ${s.type} ${s.direction === "out" ? "→" : "←"} ${s.node.label} "${s.node.name}" (${s.reason})`);
	for (const h of write.enrich_hint ?? []) lines.push(`  ${h.message}`);
	if (write.proactive_hint) lines.push(`  ${write.proactive_hint} (engrama reflect, then engrama insights)`);
	return lines.join("\n");
}
