import type { Command } from "commander";
import { ValidationError } from "../../engine/errors";
import { nodeView } from "../../engine/memory";
import { runWithMemory } from "../context";

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

/** status, remember, relate, get, context, forget. */
export function registerMemoryCommands(program: Command, version: string): void {
	program
		.command("status")
		.description("show the backend, node and edge counts, and labels")
		.action(async (_options, command: Command) =>
			runWithMemory(command, async ({ opened, out, config }) => {
				const { memory, scope } = opened;
				const health = await memory.graph.health();
				const counts = await memory.graph.counts(scope);
				const labels = await memory.graph.labelCounts(scope);
				const data = {
					version,
					backend: { name: memory.graph.name, ok: health.ok, node_count: counts.nodes, edge_count: counts.edges },
					database: config.backend === "sqlite" ? config.dbPath : undefined,
					profile: memory.profile.name,
					labels,
					identity: { org_id: scope.orgId, user_id: scope.userId },
				};
				out.result(data, () =>
					[
						`Engrama ${version} on ${memory.graph.name}${data.database ? ` (${data.database})` : ""}`,
						`profile ${memory.profile.name}; ${counts.nodes} nodes, ${counts.edges} relations`,
						...Object.entries(labels).map(([label, n]) => `  ${label}: ${n}`),
					].join("\n"),
				);
			}),
		);

	program
		.command("remember")
		.description("create or update (MERGE) an entity")
		.requiredOption("--label <label>", "entity label from the profile, e.g. Project")
		.requiredOption("--name <name>", "the entity's name (or title for Decision, Problem, Insight)")
		.option("--props <json>", "properties as a JSON object")
		.action(async (options: { label: string; name: string; props?: string }, command: Command) =>
			runWithMemory(command, async ({ opened, out, ctx }) => {
				const write = await opened.memory.remember(ctx, {
					label: options.label,
					key: options.name,
					props: parseJsonObject("--props", options.props),
				});
				for (const warning of write.warnings) if (!out.json) out.info(`warning: ${warning}`);
				out.result({ created: write.created, node: nodeView(write.node), warnings: write.warnings }, () =>
					`${write.created ? "Created" : "Updated"} ${write.node.label} "${write.node.key}" (${write.node.id})`,
				);
			}),
		);

	program
		.command("relate")
		.description("create a typed relation (idempotent), validated against the profile")
		.argument("<fromLabel>")
		.argument("<fromName>")
		.argument("<relation>", "relation type, e.g. USES")
		.argument("<toLabel>")
		.argument("<toName>")
		.action(async (fromLabel: string, fromName: string, relation: string, toLabel: string, toName: string, _o, command: Command) =>
			runWithMemory(command, async ({ opened, out, ctx }) => {
				const write = await opened.memory.relate(ctx, { label: fromLabel, key: fromName }, relation, { label: toLabel, key: toName });
				out.result(
					{
						created: write.created,
						from: { node_id: write.from.id, label: write.from.label, name: write.from.key },
						type: write.type,
						to: { node_id: write.to.id, label: write.to.label, name: write.to.key },
					},
					() => `${write.created ? "Related" : "Already related"}: ${write.from.key} -[${write.type}]-> ${write.to.key}`,
				);
			}),
		);

	program
		.command("get")
		.description("show one entity")
		.requiredOption("--label <label>")
		.requiredOption("--name <name>")
		.action(async (options: { label: string; name: string }, command: Command) =>
			runWithMemory(command, async ({ opened, out }) => {
				const node = await opened.memory.get(opened.scope, options.label, options.name);
				if (!node) process.exitCode = 3;
				out.result({ node: node ? nodeView(node) : null }, () =>
					node ? `${node.label} "${node.key}" (${node.id})\n${JSON.stringify(node.props, null, 2)}` : `No ${options.label} "${options.name}".`,
				);
			}),
		);

	program
		.command("context")
		.description("show an entity's neighbourhood")
		.requiredOption("--label <label>")
		.requiredOption("--name <name>")
		.option("--hops <n>", "how far to walk (1-4)", "2")
		.action(async (options: { label: string; name: string; hops: string }, command: Command) =>
			runWithMemory(command, async ({ opened, out }) => {
				const view = await opened.memory.context(opened.scope, { label: options.label, key: options.name }, positiveInt("--hops", options.hops));
				if (!view) {
					process.exitCode = 3;
					out.result({ context: null }, () => `No ${options.label} "${options.name}".`);
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

	program
		.command("forget")
		.description("archive an entity (or remove it with --hard)")
		.requiredOption("--label <label>")
		.requiredOption("--name <name>")
		.option("--hard", "remove the node, its relations and vector for good")
		.action(async (options: { label: string; name: string; hard?: boolean }, command: Command) =>
			runWithMemory(command, async ({ opened, out, ctx }) => {
				const node = await opened.memory.forget(ctx, { label: options.label, key: options.name }, { hard: !!options.hard });
				out.result({ forgotten: nodeView(node), mode: options.hard ? "hard" : "archived" }, () =>
					`${options.hard ? "Removed" : "Archived"} ${node.label} "${node.key}"`,
				);
			}),
		);
}
