/** Plain, readonly domain data shared by every layer. */

export type PropValue = string | number | boolean | null | readonly PropValue[] | { readonly [key: string]: PropValue };
export type Props = Readonly<Record<string, PropValue>>;

export type KeyField = "name" | "title";

/** Who owns a memory. Every node and edge carries both parts. */
export interface Scope {
	readonly orgId: string;
	readonly userId: string;
}

/** What a caller may present; anything short of a full Scope reads nothing and writes nothing. */
export interface PartialScope {
	readonly orgId?: string | null;
	readonly userId?: string | null;
}

export type Provenance = "sync" | "mcp" | "cli" | "sdk";

export interface NodeRecord {
	/** The stable `engrama_id` (UUID): the same on every backend. */
	readonly id: string;
	readonly label: string;
	readonly keyField: KeyField;
	readonly key: string;
	/** Domain and system properties (status, confidence, valid_from, source, org_id, ...). */
	readonly props: Props;
	readonly createdAt: string;
	readonly updatedAt: string;
}

export interface EdgeRecord {
	readonly fromId: string;
	readonly type: string;
	readonly toId: string;
	readonly createdAt: string;
	readonly props: Props;
}

export type Direction = "out" | "in" | "both";

/** One edge seen from a node, with the node at the other end. */
export interface NeighbourEdge {
	readonly type: string;
	readonly direction: "out" | "in";
	readonly node: NodeRecord;
	readonly edge: EdgeRecord;
}

export interface NeighbourhoodNode {
	readonly node: NodeRecord;
	readonly depth: number;
}

export interface Neighbourhood {
	readonly center: NodeRecord;
	readonly nodes: readonly NeighbourhoodNode[];
	readonly edges: readonly EdgeRecord[];
	/** True when the fan-out cap cut the walk short. */
	readonly truncated: boolean;
}

export interface FulltextHit {
	readonly node: NodeRecord;
	/** Higher is better; only the order within one call is meaningful. */
	readonly score: number;
}

export interface VectorHit {
	readonly nodeId: string;
	/** Cosine similarity in [-1, 1]. */
	readonly similarity: number;
}

/** Properties the engine owns; never set directly from user input. */
export const SYSTEM_PROPS = [
	"engrama_id",
	"org_id",
	"user_id",
	"created_at",
	"updated_at",
	"source",
	"source_agent",
	"source_session",
	"trust_level",
	// The last agent edit a person has not vouched for (write/provenance.ts EDIT_PROPS).
	"edited_by_source",
	"edited_by_agent",
	"edited_in_session",
	// Time expressions of the text resolved against the item's date (temporal/time-mentions.ts).
	"mentioned_dates",
] as const;
