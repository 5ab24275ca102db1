import type { FulltextHit, PartialScope } from "../types";

export interface FulltextQuery {
	/** Plain words; the backend escapes its own syntax. */
	readonly text: string;
	readonly limit: number;
	readonly labels?: readonly string[];
	/**
	 * Words of 4 or more characters also match longer words that start with them (search sends
	 * stems: "research" finds "researching"). A backend without prefix matching ignores it.
	 */
	readonly prefix?: boolean;
}

/** Word search over the nodes' text. */
export interface FulltextStore {
	fulltext(scope: PartialScope, query: FulltextQuery): Promise<readonly FulltextHit[]>;
}
