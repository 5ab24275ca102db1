import type { Memory } from "../memory";
import type { EntityResolver } from "../resolver";

/** What every skill works with: the engine facade and the one resolver. */
export interface SkillDeps {
	readonly memory: Memory;
	readonly resolver: EntityResolver;
}
