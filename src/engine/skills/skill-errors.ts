import { EngramaError } from "../errors";
import type { DuplicateView } from "./node-refs";

/**
 * ENGRAMA_REMEMBER_DEDUPE=block refused a write that would create a likely duplicate.
 * Nothing was written; `details.did_you_mean` lists the existing nodes.
 */
export class DuplicateEntityError extends EngramaError {
	constructor(message: string, didYouMean: readonly DuplicateView[]) {
		super("possible_duplicate", message, { did_you_mean: didYouMean });
	}
}
