/**
 * The backend kit: everything a backend (src/backends) takes from the engine, besides `./types`
 * and `./errors`: the protocols it implements and the few rules it must apply exactly as the engine
 * does (a node's words, the one name form, the fulltext fields, tag anchors, scopes, the standalone
 * identity's settings), and the copy `engrama migrate` runs (src/backends/migration).
 * tests/architecture.test.ts keeps backends to this door.
 */

export type * from "./protocols";
export { GRAPH_STORE_WRITES, ROLE_METHOD_NAMES, type RoleMethod } from "./protocols/graph-store";
export { VECTOR_STORE_WRITES } from "./protocols/vector-store";
export { isFullScope, requireScope } from "./scope";
export { FULLTEXT_FIELDS, FULLTEXT_WEIGHTS, extraFulltext, itemDay, type FulltextField } from "./node-text";
export { NOT_SEARCHED } from "./system-props";
export { indexText, isSingleCharTerm, needsSegmenting, queryTerms } from "./search/words";
export { NAME_INDEX_LIMITS, indexedNames, nameFragments } from "./resolver/normalise";
export { codePointCompare, TAG_ANCHOR_LABELS, tagAnchorPairs, unlinkedTagRows } from "./reflect/tag-anchors";
export { STANDALONE_ID_META, STANDALONE_ORG_META } from "./standalone-identity";
export { sha256Hex } from "./sha256";

export type { CopyOptions, CopyReport, CopySource, CopyTarget } from "./transfer/memory-copy";
/**
 * `engrama migrate`'s copy (an export streamed into an import through the target's write door),
 * loaded on first use: the export format's schemas would cost every command's start otherwise.
 */
export const loadMemoryCopy = () => import("./transfer/memory-copy");
