import neo4j from "neo4j-driver";
import type {
	ConceptClusterRow,
	CrossProjectSolutionRow,
	HubStubRow,
	ReflectDetectorId,
	ReflectEntity,
	ReflectNeighbour,
	ReflectParams,
	ReflectRowMap,
	SharedTechnologyRow,
	StaleKnowledgeRow,
	TechniqueTransferRow,
	TrainingOpportunityRow,
	UnderConnectedRow,
	UnlinkedTagRow,
} from "../../engine/backend-kit";
import { TAG_ANCHOR_LABELS, tagAnchorPairs, unlinkedTagRows } from "../../engine/backend-kit";
import type { Scope } from "../../engine/types";
import type { CypherRunner, Row } from "./neo4j-connection";
import { JSON_MARKER, decodeValue } from "./props-codec";
import { NODE_LABEL } from "./schema";

/**
 * The reflect detectors in Cypher (definitions: src/engine/protocols/reflect-rows.ts), each one
 * query returning the rows in their final order. Lists are sorted with ORDER BY before collect
 * and cut to $cap; the pairwise detectors (1, 4) cap each outer entity's rows at $limit before the
 * final sort, so a hub never costs the square of its members.
 */

const NULL = `'${JSON_MARKER}null'`;
/** status(x): the stored string, "" when absent (a stored JSON null reads as absent, as in SQLite). */
const STATUS = (v: string) => `(CASE WHEN ${v}.status IS NULL OR ${v}.status = ${NULL} THEN '' ELSE ${v}.status END)`;
const SOURCE_QUERY = (v: string) =>
	`(CASE WHEN ${v}.source_query IS NULL OR ${v}.source_query = ${NULL} THEN '' ELSE trim(coalesce(toStringOrNull(${v}.source_query), '')) END)`;
/** Live: in scope, not archived, not superseded, not a system Insight. */
const LIVE = (v: string) =>
	`(${v}:${NODE_LABEL} AND ${v}.__ns = $ns AND ${v}.org_id = $org AND ${v}.user_id = $user AND ${STATUS(v)} <> 'archived'
	AND (${v}.valid_to IS NULL OR ${v}.valid_to = ${NULL}) AND NOT (${v}.__label = 'Insight' AND ${SOURCE_QUERY(v)} <> ''))`;
/** y is a typed neighbour of x through r. */
const TYPED = (x: string, r: string, y: string) => `type(${r}) <> 'LINKS_TO' AND ${y} <> ${x} AND ${LIVE(y)}`;
const ENT = (v: string) => `{id: ${v}.engrama_id, label: ${v}.__label, key: ${v}.__key, status: ${STATUS(v)}}`;
const BY = (v: string) => `${v}.__key, ${v}.__label, ${v}.engrama_id`;
const OPEN_ISSUE = (v: string) =>
	`((${v}.__label = 'Problem' AND ${STATUS(v)} IN ['open', 'in-progress']) OR (${v}.__label = 'Vulnerability' AND ${STATUS(v)} = 'open'))`;
/** Outer entities of a detector: live nodes of the scope (through the scope index). */
const OUTER = (v: string) => `MATCH (${v}:${NODE_LABEL}) WHERE ${v}.__ns = $ns AND ${v}.org_id = $org AND ${v}.user_id = $user AND ${LIVE(v)}`;
/** p is one of the projects of x: x-[BELONGS_TO]->p or p-[HAS]->x. */
const PROJECTS_OF = (x: string, p: string) =>
	`MATCH (${x})-[m]-(${p}) WHERE ${p}.__label = 'Project' AND ${p} <> ${x} AND ${LIVE(p)}
	AND ((type(m) = 'BELONGS_TO' AND startNode(m) = ${x}) OR (type(m) = 'HAS' AND endNode(m) = ${x}))`;

/** N(x) with via(x, y) and direction, in entity order, capped; `where` filters y. */
const NEIGHBOURS_WITH_VIA = (x: string, where = "true") => `CALL {
	WITH ${x}
	OPTIONAL MATCH (${x})-[r]-(y) WHERE ${TYPED(x, "r", "y")} AND ${where}
	WITH ${x}, y, r WHERE y IS NOT NULL
	WITH y, type(r) AS t, startNode(r) = ${x} AS out
	WITH y, min(t) AS via, collect(CASE WHEN out THEN t END) AS outs
	WITH y, via, via IN outs AS isOut ORDER BY ${BY("y")}
	RETURN collect({entity: ${ENT("y")}, type: via, direction: CASE WHEN isOut THEN 'out' ELSE 'in' END})[0..$cap] AS neighbours
}`;

/** The detectors that are one query each (unlinked_tag is three: see unlinkedTag below). */
type OneQueryDetector = Exclude<ReflectDetectorId, "unlinked_tag">;

export const REFLECT_QUERIES: Readonly<Record<OneQueryDetector, string>> = {
	cross_project_solution: `${OUTER("o")} AND o.__label = 'Problem' AND ${STATUS("o")} IN ['open', 'in-progress']
		WITH o ORDER BY ${BY("o")}
		CALL { WITH o ${PROJECTS_OF("o", "p")} WITH DISTINCT p ORDER BY ${BY("p")} RETURN collect(p) AS openProjects }
		WITH o, openProjects WHERE size(openProjects) > 0
		CALL { WITH o MATCH (o)-[r]-(c) WHERE ${TYPED("o", "r", "c")} AND c.__label = 'Concept' RETURN collect(DISTINCT c) AS openConcepts }
		WITH o, openProjects, openConcepts WHERE size(openConcepts) > 0
		CALL {
			WITH o, openProjects, openConcepts
			UNWIND openConcepts AS c
			MATCH (c)-[r]-(res) WHERE ${TYPED("c", "r", "res")} AND res <> o AND res.__label = 'Problem' AND ${STATUS("res")} = 'resolved'
			WITH DISTINCT o, openProjects, openConcepts, res ORDER BY ${BY("res")}
			CALL {
				WITH res MATCH (res)-[s:SOLVED_BY]->(d) WHERE d <> res AND ${LIVE("d")} AND d.__label = 'Decision'
				AND NOT ${STATUS("d")} IN ['rejected', 'superseded']
				WITH DISTINCT d ORDER BY ${BY("d")} RETURN collect(d) AS decisions
			}
			WITH o, openProjects, openConcepts, res, decisions WHERE size(decisions) > 0
			CALL { WITH res ${PROJECTS_OF("res", "p")} WITH DISTINCT p ORDER BY ${BY("p")} RETURN collect(p) AS resolvedProjects }
			WITH o, openConcepts, res, decisions, [p IN resolvedProjects WHERE NOT p IN openProjects] AS elsewhere
			WHERE size(elsewhere) > 0
			CALL {
				WITH res, openConcepts MATCH (res)-[r]-(c) WHERE ${TYPED("res", "r", "c")} AND c.__label = 'Concept' AND c IN openConcepts
				WITH DISTINCT c ORDER BY ${BY("c")} RETURN collect(c) AS shared
			}
			RETURN res, decisions, elsewhere, shared LIMIT $limit
		}
		RETURN ${ENT("o")} AS open, [p IN openProjects[0..$cap] | ${ENT("p")}] AS openProjects,
			${ENT("res")} AS resolved, [p IN elsewhere[0..$cap] | ${ENT("p")}] AS resolvedProjects,
			[c IN shared[0..$cap] | ${ENT("c")}] AS concepts, [d IN decisions[0..$cap] | ${ENT("d")}] AS decisions
		ORDER BY ${BY("o")}, ${BY("res")} LIMIT $limit`,

	shared_technology: `${OUTER("t")} AND t.__label = 'Technology'
		MATCH (u)-[r:USES|TEACHES|COMPOSED_OF]->(t) WHERE u <> t AND ${LIVE("u")}
		WITH t, u, min(type(r)) AS via ORDER BY ${BY("u")}
		WITH t, collect({u: u, via: via}) AS found, count(DISTINCT u.__label) AS labelCount WHERE size(found) >= 3
		RETURN ${ENT("t")} AS technology, [x IN found[0..$cap] | {entity: ${ENT("x.u")}, via: x.via}] AS users,
			size(found) AS userCount, labelCount
		ORDER BY userCount DESC, ${BY("t")} LIMIT $limit`,

	training_opportunity: `${OUTER("c")} AND c.__label = 'Concept'
		AND NOT EXISTS { MATCH (c)<-[k:COVERS|TEACHES]-(course) WHERE course <> c AND course.__label IN ['Course', 'Lesson'] AND ${LIVE("course")} }
		MATCH (c)-[r]-(i) WHERE ${TYPED("c", "r", "i")} AND ${OPEN_ISSUE("i")}
		WITH DISTINCT c, i ORDER BY ${BY("i")}
		WITH c, collect(i) AS issues WHERE size(issues) >= 2
		RETURN ${ENT("c")} AS concept, [i IN issues[0..$cap] | ${ENT("i")}] AS issues, size(issues) AS issueCount
		ORDER BY issueCount DESC, ${BY("c")} LIMIT $limit`,

	technique_transfer: `${OUTER("c")} AND c.__label IN ['Concept', 'Technique']
		WITH c ORDER BY ${BY("c")}
		CALL {
			WITH c
			MATCH (c)-[r]-(x) WHERE ${TYPED("c", "r", "x")}
			WITH DISTINCT c, x
			CALL { WITH x OPTIONAL ${PROJECTS_OF("x", "p")} RETURN collect(DISTINCT p) AS projects }
			WITH c, x, CASE WHEN x.__label = 'Project' THEN [x] ELSE projects END AS touchedBy,
				CASE
					WHEN x.__label = 'Project' THEN [x]
					WHEN (x.__label = 'Problem' AND ${STATUS("x")} = 'resolved')
						OR (x.__label = 'Decision' AND NOT ${STATUS("x")} IN ['proposed', 'rejected', 'superseded']) THEN projects
					ELSE []
				END AS evidenceFor
			WITH c, collect({x: x, touchedBy: touchedBy, evidenceFor: evidenceFor}) AS items
			WITH c, items, reduce(acc = [], item IN items | acc + item.touchedBy) AS touched
			UNWIND items AS item
			UNWIND item.evidenceFor AS a
			WITH c, touched, a, item.x AS e ORDER BY ${BY("e")}
			WITH c, touched, a, collect(DISTINCT e) AS evidence ORDER BY ${BY("a")}
			CALL {
				WITH a
				MATCH (a)-[ak:IN_DOMAIN|USES]->(k)<-[bk]-(b)
				WHERE ${LIVE("a")} AND type(bk) = type(ak) AND k <> a AND b <> k AND ${LIVE("k")}
				AND ((type(ak) = 'IN_DOMAIN' AND k.__label = 'Domain') OR (type(ak) = 'USES' AND k.__label = 'Technology'))
				AND b <> a AND b.__label = 'Project' AND ${STATUS("b")} = 'active' AND ${LIVE("b")}
				WITH DISTINCT b, k ORDER BY ${BY("b")}, ${BY("k")}
				RETURN b, collect(k) AS shared
			}
			WITH c, a, evidence, b, shared WHERE NOT b IN touched
			RETURN a, evidence, b, shared ORDER BY ${BY("a")}, ${BY("b")} LIMIT $limit
		}
		RETURN ${ENT("c")} AS technique, ${ENT("a")} AS from, ${ENT("b")} AS to,
			[e IN evidence[0..$cap] | ${ENT("e")}] AS evidence, [k IN shared[0..$cap] | ${ENT("k")}] AS shared, size(shared) AS sharedCount
		ORDER BY ${BY("c")}, ${BY("a")}, ${BY("b")} LIMIT $limit`,

	concept_clustering: `${OUTER("c")} AND c.__label = 'Concept'
		MATCH (c)-[r]-(y) WHERE ${TYPED("c", "r", "y")}
		WITH DISTINCT c, y ORDER BY ${BY("y")}
		WITH c, collect(y) AS members WHERE size(members) >= 3
		RETURN ${ENT("c")} AS concept, [y IN members[0..$cap] | ${ENT("y")}] AS members, size(members) AS memberCount
		ORDER BY memberCount DESC, ${BY("c")} LIMIT $limit`,

	stale_knowledge: `${OUTER("x")} AND NOT x.__label IN ['Note', 'Insight'] AND ${STATUS("x")} <> 'stub'
		AND EXISTS { MATCH (x)-[r]-(y) WHERE ${TYPED("x", "r", "y")} AND y.__label IN ['Project', 'Course'] AND ${STATUS("y")} = 'active' }
		WITH x,
			CASE WHEN x.updated IS :: STRING NOT NULL AND NOT x.updated STARTS WITH '${JSON_MARKER}' THEN x.updated ELSE x.updated_at END AS lastUpdated,
			CASE WHEN x.confidence IS :: INTEGER NOT NULL OR x.confidence IS :: FLOAT NOT NULL THEN x.confidence ELSE 1 END AS confidence
		WHERE lastUpdated < $staleBefore OR confidence < $low
		WITH x, lastUpdated, confidence ORDER BY ${BY("x")} LIMIT $limit
		${NEIGHBOURS_WITH_VIA("x", `y.__label IN ['Project', 'Course'] AND ${STATUS("y")} = 'active'`)}
		RETURN ${ENT("x")} AS node, lastUpdated, confidence, neighbours AS active`,

	under_connected: `${OUTER("x")} AND x.__label <> 'Note' AND ${STATUS("x")} <> 'stub'
		OPTIONAL MATCH (x)-[r]-(y) WHERE ${TYPED("x", "r", "y")}
		WITH x, count(DISTINCT y) AS degree WHERE degree < 2
		WITH x, degree ORDER BY degree, ${BY("x")} LIMIT $limit
		${NEIGHBOURS_WITH_VIA("x")}
		RETURN ${ENT("x")} AS node, degree, neighbours`,

	hub_stubs: `${OUTER("x")} AND ${STATUS("x")} = 'stub' AND x.__label <> 'Note'
		MATCH (x)-[r]-(y) WHERE ${TYPED("x", "r", "y")}
		WITH DISTINCT x, y ORDER BY ${BY("y")}
		WITH x, collect(y) AS referrers WHERE size(referrers) >= 3
		RETURN ${ENT("x")} AS stub, size(referrers) AS degree, [y IN referrers[0..$cap] | ${ENT("y")}] AS referrers
		ORDER BY degree DESC, ${BY("x")} LIMIT $limit`,
};

function entity(value: unknown): ReflectEntity {
	const v = value as Record<string, unknown>;
	return { id: String(v.id), label: String(v.label), key: String(v.key), status: typeof v.status === "string" ? v.status : JSON.stringify(v.status ?? "") };
}

const entities = (value: unknown) => (value as unknown[]).map(entity);

function neighbours(value: unknown): ReflectNeighbour[] {
	return (value as Record<string, unknown>[]).map((n) => ({
		entity: entity(n.entity),
		type: String(n.type),
		direction: n.direction === "out" ? "out" : "in",
	}));
}

const MAPPERS: { [K in OneQueryDetector]: (row: Row) => ReflectRowMap[K] } = {
	cross_project_solution: (r): CrossProjectSolutionRow => ({
		open: entity(r.open),
		openProjects: entities(r.openProjects),
		resolved: entity(r.resolved),
		resolvedProjects: entities(r.resolvedProjects),
		concepts: entities(r.concepts),
		decisions: entities(r.decisions),
	}),
	shared_technology: (r): SharedTechnologyRow => ({
		technology: entity(r.technology),
		users: (r.users as Record<string, unknown>[]).map((u) => ({ entity: entity(u.entity), via: String(u.via) })),
		userCount: Number(r.userCount),
		labelCount: Number(r.labelCount),
	}),
	training_opportunity: (r): TrainingOpportunityRow => ({ concept: entity(r.concept), issues: entities(r.issues), issueCount: Number(r.issueCount) }),
	technique_transfer: (r): TechniqueTransferRow => ({
		technique: entity(r.technique),
		from: entity(r.from),
		to: entity(r.to),
		evidence: entities(r.evidence),
		shared: entities(r.shared),
		sharedCount: Number(r.sharedCount),
	}),
	concept_clustering: (r): ConceptClusterRow => ({ concept: entity(r.concept), members: entities(r.members), memberCount: Number(r.memberCount) }),
	stale_knowledge: (r): StaleKnowledgeRow => ({
		node: entity(r.node),
		lastUpdated: String(r.lastUpdated),
		confidence: Number(r.confidence),
		active: neighbours(r.active),
	}),
	under_connected: (r): UnderConnectedRow => ({ node: entity(r.node), degree: Number(r.degree), neighbours: neighbours(r.neighbours) }),
	hub_stubs: (r): HubStubRow => ({ stub: entity(r.stub), degree: Number(r.degree), referrers: entities(r.referrers) }),
};

const ANCHORS = `${OUTER("a")} AND a.__label IN $anchorLabels RETURN ${ENT("a")} AS anchor`;
const TAGGERS = `${OUTER("x")} AND x.tags IS NOT NULL RETURN ${ENT("x")} AS node, x.tags AS tags`;
/** Linked: any edge between the two, either direction, any type (LINKS_TO included). */
const LINKED = `UNWIND $pairs AS pair
	MATCH (x:${NODE_LABEL} {engrama_id: pair[0]}) WHERE x.__ns = $ns AND x.org_id = $org AND x.user_id = $user
	MATCH (a:${NODE_LABEL} {engrama_id: pair[1]}) WHERE a.__ns = $ns AND a.org_id = $org AND a.user_id = $user
	AND EXISTS { MATCH (x)--(a) }
	RETURN pair[0] AS x, pair[1] AS a`;
/** The queries of unlinked_tag (exported for the scope check of every query). */
export const UNLINKED_TAG_QUERIES: Readonly<Record<string, string>> = { anchors: ANCHORS, taggers: TAGGERS, linked: LINKED };

// 9: the anchors, the taggers and which candidate pairs are linked; the rest is shared (tag-anchors.ts).
async function unlinkedTag(q: CypherRunner, scopeParams: Record<string, unknown>, params: ReflectParams): Promise<UnlinkedTagRow[]> {
	const anchors = (await q.run(ANCHORS, { ...scopeParams, anchorLabels: [...TAG_ANCHOR_LABELS] })).map((r) => entity(r.anchor));
	if (anchors.length === 0) return [];
	const taggers = (await q.run(TAGGERS, scopeParams)).map((r) => ({ node: entity(r.node), tags: decodeValue(r.tags) }));
	const byId = new Map<string, ReflectEntity>([...anchors, ...taggers.map((t) => t.node)].map((e) => [e.id, e]));
	const pairs = tagAnchorPairs(
		anchors.map((a) => ({ ref: a.id, key: a.key })),
		taggers.map((t) => ({ ref: t.node.id, tags: t.tags })),
	);
	if (pairs.length === 0) return [];
	const linked = new Set((await q.run(LINKED, { ...scopeParams, pairs: pairs.map((p) => [p.node, p.anchor]) })).map((r) => `${String(r.x)}\n${String(r.a)}`));
	const unlinked = pairs.filter((p) => !linked.has(`${p.node}\n${p.anchor}`));
	return unlinkedTagRows(
		unlinked.map((p) => ({ node: byId.get(p.node) as ReflectEntity, anchor: byId.get(p.anchor) as ReflectEntity })),
		params,
	);
}

const isOneQuery = (detector: ReflectDetectorId): detector is OneQueryDetector => detector !== "unlinked_tag";

/** `GraphStore.reflectRows` for Neo4j. */
export async function neo4jReflectRows<D extends ReflectDetectorId>(
	q: CypherRunner,
	namespace: string,
	scope: Scope,
	detector: D,
	params: ReflectParams,
): Promise<readonly ReflectRowMap[D][]> {
	const scopeParams = { ns: namespace, org: scope.orgId, user: scope.userId };
	if (!isOneQuery(detector)) return (await unlinkedTag(q, scopeParams, params)) as unknown as readonly ReflectRowMap[D][];
	const rows = await q.run(REFLECT_QUERIES[detector], {
		...scopeParams,
		limit: neo4j.int(Math.max(0, Math.floor(params.limit))),
		cap: neo4j.int(Math.max(0, Math.floor(params.listCap))),
		staleBefore: params.staleBefore,
		low: params.lowConfidence,
	});
	const map = MAPPERS[detector] as unknown as (row: Row) => ReflectRowMap[D];
	return rows.map(map);
}
