import type { PartialScope } from "../types";
import type { ReflectDetectorId, ReflectParams, ReflectRowMap } from "./reflect-rows";

/** The reflect detectors' reads (issue 6). */
export interface ReflectQueryStore {
	/**
	 * The rows of one reflect detector, exactly as src/engine/protocols/reflect-rows.ts defines
	 * them (semantics, order, list caps); [] for a partial scope. Read-only.
	 */
	reflectRows<D extends ReflectDetectorId>(scope: PartialScope, detector: D, params: ReflectParams): Promise<readonly ReflectRowMap[D][]>;
}
