import { NotFoundError, ValidationError } from "../errors";
import { isArchived } from "../node-text";
import { isFullScope } from "../scope";
import type { NodeRecord, PartialScope } from "../types";
import { resolveLabelOrThrow, sanitiseKey } from "../write/sanitise";
import type { SkillDeps } from "./skill-deps";
import { candidateView } from "./node-refs";

/** A node named by a caller: a label is optional when the name is unique. */
export interface NodeName {
	readonly label?: string;
	readonly name: string;
}

/**
 * Finds the node a caller means: exact key under the label, else the same name up to case,
 * accents and separators; without a label, the one live node of that name. Otherwise a
 * NotFoundError (or, for a name under several labels, a ValidationError) with did_you_mean.
 */
export async function findNode(deps: SkillDeps, scope: PartialScope, ref: NodeName, role = "node"): Promise<NodeRecord> {
	const { memory, resolver } = deps;
	const def = ref.label ? resolveLabelOrThrow(memory.profile, ref.label) : undefined;
	const key = sanitiseKey(ref.name, def?.keyField ?? "name");
	if (!isFullScope(scope)) throw new NotFoundError(`No ${role} "${key}": the scope is incomplete, so nothing is visible.`);
	if (def) {
		const exact = await memory.graph.getNode(scope, def.label, key);
		if (exact) return exact;
	}
	const candidates = await resolver.candidates(scope, key);
	const exact = candidates.filter((c) => c.exact && (!def || c.node.label === def.label));
	const live = exact.filter((c) => c.live);
	const pick = live.length > 0 ? live : exact;
	if (pick.length === 1) return pick[0].node;
	if (pick.length > 1) {
		throw new ValidationError(
			`"${key}" names ${pick.length} nodes (${pick.map((c) => c.node.label).join(", ")}): give the label.`,
			{ did_you_mean: pick.map(candidateView) },
		);
	}
	const close = candidates.filter((c) => c.live && (!def || c.node.label === def.label) && c.score >= resolver.settings.suggest).slice(0, 5);
	const hint = close.length > 0 ? ` Did you mean: ${close.map((c) => `${c.node.label} "${c.node.key}"`).join(", ")}?` : " Remember it first, or check the name.";
	throw new NotFoundError(`The ${role} ${def ? `${def.label} ` : ""}"${key}" does not exist.${hint}`, {
		label: def?.label,
		key,
		did_you_mean: close.map(candidateView),
	});
}

/** Like findNode, refusing archived nodes (they are out of every read until restored). */
export async function findLiveNode(deps: SkillDeps, scope: PartialScope, ref: NodeName, role = "node"): Promise<NodeRecord> {
	const node = await findNode(deps, scope, ref, role);
	if (isArchived(node)) {
		throw new ValidationError(`The ${role} ${node.label} "${node.key}" is archived. Remember it again to restore it first.`, {
			node_id: node.id,
		});
	}
	return node;
}
