import type { NodeRecord, PartialScope, PropValue, Scope } from "../types";

/**
 * A query for the entity resolver's name index. `normalised` and `fragments` come from
 * `normaliseName` / `queryFragments` in src/engine/resolver/normalise.ts; backends index the
 * same forms with `indexedNames` + `nameFragments` at write time.
 */
export interface NameCandidatesQuery {
	readonly normalised: string;
	readonly fragments: readonly string[];
	/** At most this many nodes (the resolver asks for ≤ 200). */
	readonly limit: number;
}

/** One recorded property change of a node. */
export interface HistoryEntry {
	/** The node's engrama_id. */
	readonly nodeId: string;
	/** ISO time of the write that changed the property. */
	readonly at: string;
	readonly prop: string;
	/** Value before the change; null when the property was absent. */
	readonly before: PropValue;
	/** Value after the change; null when the property was removed. */
	readonly after: PropValue;
	/** Provenance of the write (sync|mcp|cli|sdk), null when unknown. */
	readonly source: string | null;
}

export interface NodeHistoryQuery {
	/** Only entries with `at` strictly after this ISO time. */
	readonly since?: string;
	/** The newest `limit` entries (returned oldest first). */
	readonly limit: number;
}

export interface ValidAtQuery {
	/** ISO time. */
	readonly at: string;
	readonly label?: string;
	readonly limit: number;
}

/** The entity resolver's name index, property history and temporal reads (issue 5). Policy lives in the engine; these only fetch. */
export interface NameHistoryStore {
	/**
	 * Bounded name candidates for the entity resolver, scope-filtered, archived nodes included
	 * (the resolver reports them as revive_candidate). Must return every node whose indexed name
	 * (`indexedNames(key, props)`: the key and its `aliases`, normalised) equals `normalised`,
	 * first; then nodes whose indexed names share fragments with `fragments`, more shared
	 * fragments first, then closer name length. May read a bounded number of postings per
	 * fragment (the cost must not grow linearly with the graph). At most `limit` nodes.
	 * Implementations keep the index in step with key_value and props.aliases on every write.
	 */
	nameCandidates(scope: PartialScope, query: NameCandidatesQuery): Promise<readonly NodeRecord[]>;
	/** Appends property changes (the write pipeline computes them). */
	recordHistory(scope: Scope, entries: readonly HistoryEntry[]): Promise<void>;
	/** A node's recorded changes, oldest first; [] for a partial scope or unknown node. */
	nodeHistory(scope: PartialScope, nodeId: string, query: NodeHistoryQuery): Promise<readonly HistoryEntry[]>;
	/**
	 * Nodes valid at `at`: COALESCE(valid_from, created_at) <= at AND (valid_to IS NULL OR
	 * valid_to >= at), minus nodes archived at or before `at` (archived_at, else updated_at).
	 * Ordered by label, then key.
	 */
	nodesValidAt(scope: PartialScope, query: ValidAtQuery): Promise<readonly NodeRecord[]>;
}
