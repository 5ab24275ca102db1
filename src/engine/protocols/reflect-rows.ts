/**
 * What a backend returns for each reflect detector (`GraphStore.reflectRows`). The backend only
 * finds the pattern; titles, bodies, confidences, the budget and the filtering of reviewed
 * Insights live once in the engine (src/engine/reflect/). SQLite and Neo4j must return the same
 * rows, in the same order, for the same graph: the definitions below are the contract.
 *
 * ## Terms used by every detector
 *
 * - **In scope**: the node's `org_id` and `user_id` equal the caller's (a partial scope: no rows).
 * - **Live**: in scope, `status` is not `archived`, `valid_to` is absent or null (not superseded),
 *   and it is not a *system Insight* (label `Insight` with a non-blank `source_query`: reflect's own
 *   output is never its input). Only live nodes are inputs, members or evidence.
 * - **status(x)**: the `status` property as stored (after the write pipeline's normalisation);
 *   absent counts as the empty string, which matches none of the values named below.
 * - **Typed edge**: any edge whose type is not `LINKS_TO` (body wikilinks are navigation, not an
 *   asserted relation). Direction is ignored unless a detector names it.
 * - **N(x)**, the typed neighbours of x: the live nodes y ≠ x joined to x by at least one typed
 *   edge, either direction. **degree(x)** = |N(x)| (distinct neighbours, not edges).
 * - **via(x, y)**: the smallest relation type (binary string order) among the typed edges between
 *   x and y; `direction` is `out` when an edge x-[via]->y exists, else `in`.
 * - **P(x)**, the projects of x: live `Project` nodes p with x-[BELONGS_TO]->p or p-[HAS]->x.
 * - **Entity order**: ascending by key, then label, then engrama_id, comparing strings by Unicode
 *   code point (SQLite BINARY on UTF-8; Neo4j's string order). Every list in a row is sorted this
 *   way and cut to `params.listCap` entries; the matching `...Count` field holds the full size.
 * - **open issue**: a `Problem` with status `open` or `in-progress`, or a `Vulnerability` with
 *   status `open`.
 *
 * ## Untyped notes (`Note`)
 *
 * A vault can hold thousands of daily, meeting and reading notes with no type. They must not flood
 * the review queue, so a `Note` is never the *subject* of an Insight: under_connected, hub_stubs
 * and stale_knowledge skip the label (an untyped note has only body links, which are not typed
 * relations; a `Note` stub is an unresolved wikilink, which Obsidian already shows; daily notes
 * are old by nature). A `Note` still counts where a person linked it with a typed relation (a
 * `relations:` entry): as a member of a concept cluster or a user of a technology. Body wikilinks
 * (`LINKS_TO`) count nowhere.
 *
 * Rows come sorted as each detector says, at most `params.limit` of them. For the pairwise
 * detectors (1, 4) a backend should walk the outer entity in order and stop once it has
 * `limit` rows, so a hub with thousands of members never costs its square.
 */

export type ReflectDetectorId =
	| "cross_project_solution"
	| "shared_technology"
	| "training_opportunity"
	| "technique_transfer"
	| "concept_clustering"
	| "stale_knowledge"
	| "under_connected"
	| "hub_stubs"
	| "unlinked_tag";

/** A node named in a row. */
export interface ReflectEntity {
	/** engrama_id. */
	readonly id: string;
	readonly label: string;
	/** Name or title. */
	readonly key: string;
	/** status(x) as stored, "" when absent. */
	readonly status: string;
}

export interface ReflectNeighbour {
	readonly entity: ReflectEntity;
	/** via(x, y). */
	readonly type: string;
	readonly direction: "out" | "in";
}

export interface ReflectParams {
	/** At most this many rows. */
	readonly limit: number;
	/** At most this many entries in each list of a row (the counts stay exact). */
	readonly listCap: number;
	/** stale_knowledge: ISO instant; nodes last updated strictly before it are stale. */
	readonly staleBefore: string;
	/** stale_knowledge: a confidence strictly below this is stale. */
	readonly lowConfidence: number;
	/**
	 * One id shared by the calls of one reflect run. A backend may reuse work across those calls
	 * (SQLite keeps a snapshot of the live nodes and typed edges): between them the engine writes
	 * only system Insights and their ABOUT edges, which are never inputs. Absent: no reuse.
	 */
	readonly run?: string;
}

/**
 * 1. cross_project_solution. One row per pair (o, r) of live Problems with
 * status(o) ∈ {open, in-progress}, status(r) = resolved, where
 * - S = the live Concepts in N(o) ∩ N(r) is not empty,
 * - D = the live Decisions d with r-[SOLVED_BY]->d and status(d) ∉ {rejected, superseded} is not empty,
 * - P(o) is not empty and P(r) \ P(o) is not empty (r was solved in another project).
 * Order: o, then r (entity order).
 */
export interface CrossProjectSolutionRow {
	readonly open: ReflectEntity;
	/** P(o). */
	readonly openProjects: readonly ReflectEntity[];
	readonly resolved: ReflectEntity;
	/** P(r) \ P(o). */
	readonly resolvedProjects: readonly ReflectEntity[];
	/** S. */
	readonly concepts: readonly ReflectEntity[];
	/** D. */
	readonly decisions: readonly ReflectEntity[];
}

/** A user of a Technology, with the relation that makes it one. */
export interface TechnologyUser {
	readonly entity: ReflectEntity;
	/** The smallest of USES, TEACHES, COMPOSED_OF among the user's edges to the Technology. */
	readonly via: string;
}

/**
 * 2. shared_technology (engrama-py 0.18.1's rule). U(t), the users of a live Technology t: live
 * nodes u ≠ t with an edge u-[USES|TEACHES|COMPOSED_OF]->t. One row per Technology t with
 * |U(t)| ≥ 3: users = U(t) (entity order, capped), userCount = |U(t)|, labelCount = the number
 * of distinct labels in all of U(t). Order: userCount descending, then t.
 */
export interface SharedTechnologyRow {
	readonly technology: ReflectEntity;
	readonly users: readonly TechnologyUser[];
	readonly userCount: number;
	readonly labelCount: number;
}

/**
 * 3. training_opportunity. One row per live Concept c where I(c), the open issues in N(c), has
 * at least 2 members and no live Course or Lesson k has an edge k-[COVERS|TEACHES]->c.
 * Order: issueCount descending, then c.
 */
export interface TrainingOpportunityRow {
	readonly concept: ReflectEntity;
	readonly issues: readonly ReflectEntity[];
	readonly issueCount: number;
}

/**
 * 4. technique_transfer. For a live Concept or Technique c and a live Project A, the evidence
 * E(c, A) = {A if c ∈ N(A)} ∪ {x live with c ∈ N(x), A ∈ P(x), and either x is a Problem with
 * status resolved or x is a Decision with status ∉ {proposed, rejected, superseded}}.
 * c is *touched* in a Project B when c ∈ N(B) or c ∈ N(x) for any live x with B ∈ P(x) (any
 * label, any status). The shared contexts C(A, B) = live Domains k with A-[IN_DOMAIN]->k and
 * B-[IN_DOMAIN]->k, plus live Technologies k with A-[USES]->k and B-[USES]->k.
 * One row per (c, A, B) with E(c, A) ≠ ∅, B ≠ A, status(B) = active, c not touched in B, and
 * C(A, B) ≠ ∅. Order: c, then A, then B.
 */
export interface TechniqueTransferRow {
	readonly technique: ReflectEntity;
	readonly from: ReflectEntity;
	readonly to: ReflectEntity;
	/** E(c, A). */
	readonly evidence: readonly ReflectEntity[];
	/** C(A, B). */
	readonly shared: readonly ReflectEntity[];
	readonly sharedCount: number;
}

/**
 * 5. concept_clustering. One row per live Concept c with degree(c) ≥ 3; members = N(c) (any
 * label, `Note` included: only typed relations count). Order: memberCount descending, then c.
 */
export interface ConceptClusterRow {
	readonly concept: ReflectEntity;
	readonly members: readonly ReflectEntity[];
	readonly memberCount: number;
}

/**
 * 6. stale_knowledge. One row per live node x with label ∉ {Note, Insight} and status(x) ≠ stub,
 * where lastUpdated(x) < params.staleBefore or confidence(x) < params.lowConfidence, and
 * A(x) = {y ∈ N(x): y is a Project or Course with status(y) = active} is not empty.
 * lastUpdated(x) = the `updated` property when it is a string (the date a note declares),
 * else the node's updated_at; compared as strings (ISO dates). confidence(x) = the
 * `confidence` property when it is a number, else 1. Order: x.
 */
export interface StaleKnowledgeRow {
	readonly node: ReflectEntity;
	readonly lastUpdated: string;
	readonly confidence: number;
	/** A(x) with via(x, y). */
	readonly active: readonly ReflectNeighbour[];
}

/**
 * 7. under_connected. One row per live node x with label ≠ Note, status(x) ≠ stub and
 * degree(x) < 2. Order: degree ascending, then x.
 */
export interface UnderConnectedRow {
	readonly node: ReflectEntity;
	readonly degree: number;
	/** N(x) with via(x, y). */
	readonly neighbours: readonly ReflectNeighbour[];
}

/**
 * 8. hub_stubs. One row per live node x with status(x) = stub, label ≠ Note and degree(x) ≥ 3.
 * Order: degree descending, then x.
 */
export interface HubStubRow {
	readonly stub: ReflectEntity;
	readonly degree: number;
	readonly referrers: readonly ReflectEntity[];
}

/**
 * 9. unlinked_tag (the Python engrama's `tag_without_edge`). An *anchor* is a live node labelled
 * Project, Client, Course or Domain. A live node x ≠ a *tags* anchor a when one of x's tags (the
 * `tags` property: a list of strings, or one string) equals a's key after `normaliseName`. x is
 * *linked* to a when any edge joins them, either direction, of any type: a body wikilink
 * (`LINKS_TO`) counts here, since it already says what the tag says. One row per anchor a with at
 * least one tagging node not linked to it; nodes = those nodes (any label, `Note` included).
 * Order: nodeCount descending, then a. (`unlinkedTagRows` in src/engine/reflect/tag-anchors.ts
 * computes it from the anchors, the taggers and the linked pairs, for every backend.)
 */
export interface UnlinkedTagRow {
	readonly anchor: ReflectEntity;
	readonly nodes: readonly ReflectEntity[];
	readonly nodeCount: number;
}

export interface ReflectRowMap {
	readonly cross_project_solution: CrossProjectSolutionRow;
	readonly shared_technology: SharedTechnologyRow;
	readonly training_opportunity: TrainingOpportunityRow;
	readonly technique_transfer: TechniqueTransferRow;
	readonly concept_clustering: ConceptClusterRow;
	readonly stale_knowledge: StaleKnowledgeRow;
	readonly under_connected: UnderConnectedRow;
	readonly hub_stubs: HubStubRow;
	readonly unlinked_tag: UnlinkedTagRow;
}

export type ReflectRow = ReflectRowMap[ReflectDetectorId];
