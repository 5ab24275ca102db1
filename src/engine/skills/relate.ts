import { ValidationError } from "../errors";
import { REPLAYABLE } from "../memory";
import { requireScope } from "../scope";
import type { WriteContext } from "../write/write-pipeline";
import { findLiveNode, type NodeName } from "./find-node";
import type { SkillDeps } from "./skill-deps";
import { nodeRef, type NodeRefView } from "./node-refs";

export interface RelateResult {
	readonly created: boolean;
	readonly from: NodeRefView;
	readonly type: string;
	readonly to: NodeRefView;
	/** Set when the write did not reach its note (not UTF-8, broken frontmatter): which, why, what to do. */
	readonly warnings?: readonly string[];
}

/**
 * associate/relate: a typed relation between two existing live nodes, validated against the
 * profile (MemoryFacade.relate). Endpoints are found like findNode: a missing one is a
 * NotFoundError with did_you_mean; a relation from a node to itself is refused.
 */
export async function relate(deps: SkillDeps, ctx: WriteContext, from: NodeName, type: string, to: NodeName): Promise<RelateResult> {
	const scope = requireScope(ctx.scope);
	const source = await findLiveNode(deps, scope, from, "source");
	const target = await findLiveNode(deps, scope, to, "target");
	if (source.id === target.id) {
		throw new ValidationError(`A node cannot relate to itself (${source.label} "${source.key}"). Nothing was written.`);
	}
	const { memory } = deps;
	const write = await memory.write(
		() => memory.pipeline.mergeRelation(ctx, { label: source.label, key: source.key }, type, { label: target.label, key: target.key }),
		REPLAYABLE,
	);
	// As remember: announced once committed, and a note that cannot take it is said in the answer.
	const warnings = await memory.announce([{ kind: "relation", ctx, write }]);
	return { created: write.created, from: nodeRef(write.from), type: write.type, to: nodeRef(write.to), ...(warnings.length > 0 ? { warnings } : {}) };
}
