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
} from "../../engine/protocols";
import { isFullScope } from "../../engine/scope";
import type { PartialScope, Scope } from "../../engine/types";
import type { SqlValue, SqliteConnection } from "./wasm/sqlite-connection";

/**
 * The reflect detectors in SQL (definitions: src/engine/protocols/reflect-rows.ts). Every query
 * starts from an index (scope + label, or an edge endpoint) and the pairwise detectors walk
 * their outer entity in order and stop at `limit`, so a hub never costs its square.
 */

// --- SQL fragments (constant text; values are always bound) ---

const SCOPE = (a: string) =>
	`COALESCE(json_extract(${a}.props, '$.org_id'), '') = $org AND COALESCE(json_extract(${a}.props, '$.user_id'), '') = $user`;
const STATUS = (a: string) => `COALESCE(json_extract(${a}.props, '$.status'), '')`;
/** In scope, not archived, not superseded, not a system Insight. */
const LIVE = (a: string) =>
	`${SCOPE(a)} AND ${STATUS(a)} <> 'archived' AND json_extract(${a}.props, '$.valid_to') IS NULL` +
	` AND NOT (${a}.label = 'Insight' AND TRIM(COALESCE(json_extract(${a}.props, '$.source_query'), '')) <> '')`;
const ENTITY = (a: string) =>
	`${a}.id AS rid, ${a}.label AS label, ${a}.key_value AS key, COALESCE(json_extract(${a}.props, '$.engrama_id'), 'sqlite-' || ${a}.id) AS eid, ${STATUS(a)} AS status`;
const ENTITY_ORDER = "ORDER BY key, label, eid";
/** Typed edges at node `x` as (y, type, dir); self-loops never count. */
const TYPED_AT = (x: string) =>
	`(SELECT to_id AS y, rel_type AS type, 'out' AS dir FROM edges WHERE from_id = ${x} AND rel_type <> 'LINKS_TO' AND to_id <> from_id
	UNION ALL SELECT from_id AS y, rel_type AS type, 'in' AS dir FROM edges WHERE to_id = ${x} AND rel_type <> 'LINKS_TO' AND to_id <> from_id)`;
/** Project membership of node `x` as (pid): x-[BELONGS_TO]->p or p-[HAS]->x. */
const MEMBER_OF = (x: string) =>
	`(SELECT to_id AS pid FROM edges WHERE from_id = ${x} AND rel_type = 'BELONGS_TO' UNION SELECT from_id AS pid FROM edges WHERE to_id = ${x} AND rel_type = 'HAS')`;
const OPEN_ISSUE = (a: string) =>
	`((${a}.label = 'Problem' AND ${STATUS(a)} IN ('open', 'in-progress')) OR (${a}.label = 'Vulnerability' AND ${STATUS(a)} = 'open'))`;

interface EntityRow {
	rid: number;
	label: string;
	key: string;
	eid: string;
	status: string;
}

type Params = Record<string, SqlValue>;

function entity(row: EntityRow): ReflectEntity {
	return { id: String(row.eid), label: row.label, key: row.key, status: String(row.status ?? "") };
}

/** Code-point order (what SQLite BINARY gives on UTF-8), for lists built outside SQL. */
export function compareEntities(a: ReflectEntity, b: ReflectEntity): number {
	return codePointCompare(a.key, b.key) || codePointCompare(a.label, b.label) || codePointCompare(a.id, b.id);
}

function codePointCompare(a: string, b: string): number {
	if (a === b) return 0;
	const x = [...a];
	const y = [...b];
	for (let i = 0; i < Math.min(x.length, y.length); i++) {
		const d = (x[i].codePointAt(0) ?? 0) - (y[i].codePointAt(0) ?? 0);
		if (d !== 0) return d;
	}
	return x.length - y.length;
}

class ReflectQueries {
	private readonly base: Params;

	constructor(
		private readonly conn: SqliteConnection,
		scope: Scope,
		private readonly params: ReflectParams,
	) {
		this.base = { org: scope.orgId, user: scope.userId };
	}

	private all<T>(sql: string, extra: Params = {}): T[] {
		return this.conn.all<T>(sql, { ...this.base, ...extra });
	}

	private entities(sql: string, extra: Params = {}): EntityRow[] {
		return this.all<EntityRow>(sql, extra);
	}

	/** N(x), distinct, in entity order; `where` filters the neighbour `y`. */
	private neighbourEntities(x: number, where = "1", cap = this.params.listCap): EntityRow[] {
		return this.entities(
			`SELECT DISTINCT ${ENTITY("y")} FROM ${TYPED_AT("$x")} t JOIN nodes y ON y.id = t.y
			WHERE ${LIVE("y")} AND ${where} ${ENTITY_ORDER} LIMIT $cap`,
			{ x, cap },
		);
	}

	/** N(x) with via(x, y) and its direction, in entity order, capped. */
	private neighboursWithVia(x: number, where = "1"): ReflectNeighbour[] {
		const rows = this.all<EntityRow & { type: string; dir: "out" | "in" }>(
			`SELECT ${ENTITY("y")}, t.type AS type, t.dir AS dir FROM ${TYPED_AT("$x")} t JOIN nodes y ON y.id = t.y
			WHERE ${LIVE("y")} AND ${where}`,
			{ x },
		);
		const byNode = new Map<number, { row: EntityRow; type: string; out: Set<string> }>();
		for (const row of rows) {
			const seen = byNode.get(row.rid) ?? { row, type: row.type, out: new Set<string>() };
			if (codePointCompare(row.type, seen.type) < 0) seen.type = row.type;
			if (row.dir === "out") seen.out.add(row.type);
			byNode.set(row.rid, seen);
		}
		return [...byNode.values()]
			.map((n) => ({ entity: entity(n.row), type: n.type, direction: n.out.has(n.type) ? ("out" as const) : ("in" as const) }))
			.sort((a, b) => compareEntities(a.entity, b.entity))
			.slice(0, this.params.listCap);
	}

	/** P(x), uncapped, in entity order. */
	private projectsOf(x: number): EntityRow[] {
		return this.entities(
			`SELECT DISTINCT ${ENTITY("p")} FROM ${MEMBER_OF("$x")} m JOIN nodes p ON p.id = m.pid
			WHERE p.label = 'Project' AND ${LIVE("p")} ${ENTITY_ORDER}`,
			{ x },
		);
	}

	private cap(rows: readonly EntityRow[]): ReflectEntity[] {
		return rows.slice(0, this.params.listCap).map(entity);
	}

	// 1
	crossProjectSolution(): CrossProjectSolutionRow[] {
		const out: CrossProjectSolutionRow[] = [];
		const opens = this.entities(
			`SELECT ${ENTITY("o")} FROM nodes o WHERE o.label = 'Problem' AND ${LIVE("o")} AND ${STATUS("o")} IN ('open', 'in-progress') ${ENTITY_ORDER}`,
		);
		for (const o of opens) {
			if (out.length >= this.params.limit) break;
			const openProjects = this.projectsOf(o.rid);
			if (openProjects.length === 0) continue;
			const openProjectIds = new Set(openProjects.map((p) => p.rid));
			const openConcepts = this.neighbourEntities(o.rid, "y.label = 'Concept'", -1);
			if (openConcepts.length === 0) continue;
			const resolved = this.entities(
				`WITH oc AS (SELECT value AS cid FROM json_each($concepts)),
				rc AS (SELECT e.to_id AS rid FROM oc JOIN edges e ON e.from_id = oc.cid WHERE e.rel_type <> 'LINKS_TO'
					UNION SELECT e.from_id AS rid FROM oc JOIN edges e ON e.to_id = oc.cid WHERE e.rel_type <> 'LINKS_TO')
				SELECT ${ENTITY("r")} FROM rc JOIN nodes r ON r.id = rc.rid
				WHERE r.id <> $o AND r.label = 'Problem' AND ${LIVE("r")} AND ${STATUS("r")} = 'resolved' ${ENTITY_ORDER}`,
				{ concepts: JSON.stringify(openConcepts.map((c) => c.rid)), o: o.rid },
			);
			const openConceptIds = new Set(openConcepts.map((c) => c.rid));
			for (const r of resolved) {
				if (out.length >= this.params.limit) break;
				const decisions = this.entities(
					`SELECT DISTINCT ${ENTITY("d")} FROM edges e JOIN nodes d ON d.id = e.to_id
					WHERE e.from_id = $r AND e.rel_type = 'SOLVED_BY' AND d.label = 'Decision' AND ${LIVE("d")}
					AND ${STATUS("d")} NOT IN ('rejected', 'superseded') ${ENTITY_ORDER}`,
					{ r: r.rid },
				);
				if (decisions.length === 0) continue;
				const elsewhere = this.projectsOf(r.rid).filter((p) => !openProjectIds.has(p.rid));
				if (elsewhere.length === 0) continue;
				const shared = this.neighbourEntities(r.rid, "y.label = 'Concept'", -1).filter((c) => openConceptIds.has(c.rid));
				if (shared.length === 0) continue;
				out.push({
					open: entity(o),
					openProjects: this.cap(openProjects),
					resolved: entity(r),
					resolvedProjects: this.cap(elsewhere),
					concepts: this.cap(shared),
					decisions: this.cap(decisions),
				});
			}
		}
		return out;
	}

	// 2
	sharedTechnology(): SharedTechnologyRow[] {
		const out: SharedTechnologyRow[] = [];
		const techs = this.entities(
			`SELECT ${ENTITY("t")} FROM nodes t WHERE t.label = 'Technology' AND ${LIVE("t")}
			AND (SELECT count(*) FROM (SELECT DISTINCT e.from_id FROM edges e JOIN nodes u ON u.id = e.from_id
				WHERE e.to_id = t.id AND e.rel_type IN ('USES', 'TEACHES', 'COMPOSED_OF') AND e.from_id <> t.id AND ${LIVE("u")} LIMIT 2)) = 2
			${ENTITY_ORDER}`,
		);
		for (const t of techs) {
			const users = this.all<EntityRow & { via: string }>(
				`SELECT ${ENTITY("u")}, min(e.rel_type) AS via FROM edges e JOIN nodes u ON u.id = e.from_id
				WHERE e.to_id = $t AND e.rel_type IN ('USES', 'TEACHES', 'COMPOSED_OF') AND e.from_id <> $t AND ${LIVE("u")}
				GROUP BY u.id ${ENTITY_ORDER}`,
				{ t: t.rid },
			);
			for (let i = 0; i < users.length; i++) {
				for (let j = i + 1; j < users.length; j++) {
					if (out.length >= this.params.limit) return out;
					out.push({ technology: entity(t), a: entity(users[i]), aVia: users[i].via, b: entity(users[j]), bVia: users[j].via });
				}
			}
		}
		return out;
	}

	// 3
	trainingOpportunity(): TrainingOpportunityRow[] {
		const rows = this.all<EntityRow & { n: number }>(
			`WITH c AS MATERIALIZED (
				SELECT n.id AS rid FROM nodes n WHERE n.label = 'Concept' AND ${LIVE("n")}
				AND NOT EXISTS (SELECT 1 FROM edges e JOIN nodes k ON k.id = e.from_id
					WHERE e.to_id = n.id AND e.rel_type IN ('COVERS', 'TEACHES') AND k.label IN ('Course', 'Lesson') AND ${LIVE("k")})),
			nb AS (SELECT c.rid AS x, e.to_id AS y FROM c JOIN edges e ON e.from_id = c.rid WHERE e.rel_type <> 'LINKS_TO' AND e.to_id <> e.from_id
				UNION SELECT c.rid AS x, e.from_id AS y FROM c JOIN edges e ON e.to_id = c.rid WHERE e.rel_type <> 'LINKS_TO' AND e.to_id <> e.from_id),
			issues AS (SELECT nb.x AS x, count(*) AS n FROM nb JOIN nodes i ON i.id = nb.y WHERE ${LIVE("i")} AND ${OPEN_ISSUE("i")} GROUP BY nb.x)
			SELECT ${ENTITY("n")}, issues.n AS n FROM issues JOIN nodes n ON n.id = issues.x WHERE issues.n >= 2
			ORDER BY issues.n DESC, key, label, eid LIMIT $limit`,
			{ limit: this.params.limit },
		);
		return rows.map((row) => ({
			concept: entity(row),
			issues: this.neighbourEntities(row.rid, OPEN_ISSUE("y")).map(entity),
			issueCount: Number(row.n),
		}));
	}

	// 4
	techniqueTransfer(): TechniqueTransferRow[] {
		const out: TechniqueTransferRow[] = [];
		const candidatesOf = new Map<number, Map<number, { project: EntityRow; shared: EntityRow[] }>>();
		const techniques = this.entities(
			`SELECT ${ENTITY("c")} FROM nodes c WHERE c.label IN ('Concept', 'Technique') AND ${LIVE("c")} ${ENTITY_ORDER}`,
		);
		for (const c of techniques) {
			if (out.length >= this.params.limit) break;
			const neighbours = this.all<EntityRow>(
				`SELECT DISTINCT ${ENTITY("y")} FROM ${TYPED_AT("$c")} t JOIN nodes y ON y.id = t.y WHERE ${LIVE("y")}`,
				{ c: c.rid },
			);
			if (neighbours.length === 0) continue;
			// Sources (with their evidence) and the projects where c is already touched.
			const evidence = new Map<number, { project: EntityRow; items: EntityRow[] }>();
			const touched = new Set<number>();
			const addEvidence = (project: EntityRow, item: EntityRow) => {
				const entry = evidence.get(project.rid) ?? { project, items: [] };
				if (!entry.items.some((i) => i.rid === item.rid)) entry.items.push(item);
				evidence.set(project.rid, entry);
			};
			for (const x of neighbours) {
				if (x.label === "Project") {
					touched.add(x.rid);
					addEvidence(x, x);
					continue;
				}
				const projects = this.projectsOf(x.rid);
				for (const p of projects) touched.add(p.rid);
				const applied =
					(x.label === "Problem" && x.status === "resolved") ||
					(x.label === "Decision" && !["proposed", "rejected", "superseded"].includes(x.status));
				if (applied) for (const p of projects) addEvidence(p, x);
			}
			const sources = [...evidence.values()].sort((a, b) => compareEntities(entity(a.project), entity(b.project)));
			for (const source of sources) {
				if (out.length >= this.params.limit) break;
				let candidates = candidatesOf.get(source.project.rid);
				if (!candidates) {
					candidates = this.transferCandidates(source.project.rid);
					candidatesOf.set(source.project.rid, candidates);
				}
				for (const target of candidates.values()) {
					if (out.length >= this.params.limit) break;
					if (touched.has(target.project.rid)) continue;
					out.push({
						technique: entity(c),
						from: entity(source.project),
						to: entity(target.project),
						evidence: source.items.map(entity).sort(compareEntities).slice(0, this.params.listCap),
						shared: this.cap(target.shared),
						sharedCount: target.shared.length,
					});
				}
			}
		}
		return out;
	}

	/** Active projects sharing a Domain (IN_DOMAIN) or Technology (USES) with project `a`, in entity order. */
	private transferCandidates(a: number): Map<number, { project: EntityRow; shared: EntityRow[] }> {
		const rows = this.all<EntityRow & { k_rid: number; k_label: string; k_key: string; k_eid: string; k_status: string }>(
			`WITH ctx AS (SELECT e.to_id AS k, e.rel_type AS type FROM edges e JOIN nodes k ON k.id = e.to_id
				WHERE e.from_id = $a AND ((e.rel_type = 'IN_DOMAIN' AND k.label = 'Domain') OR (e.rel_type = 'USES' AND k.label = 'Technology')) AND ${LIVE("k")})
			SELECT DISTINCT ${ENTITY("b")}, k.id AS k_rid, k.label AS k_label, k.key_value AS k_key,
				COALESCE(json_extract(k.props, '$.engrama_id'), 'sqlite-' || k.id) AS k_eid, ${STATUS("k")} AS k_status
			FROM ctx JOIN edges e2 ON e2.to_id = ctx.k AND e2.rel_type = ctx.type JOIN nodes b ON b.id = e2.from_id JOIN nodes k ON k.id = ctx.k
			WHERE b.id <> $a AND b.label = 'Project' AND ${LIVE("b")} AND ${STATUS("b")} = 'active'
			ORDER BY key, label, eid, k_key, k_label, k_eid`,
			{ a },
		);
		const out = new Map<number, { project: EntityRow; shared: EntityRow[] }>();
		for (const row of rows) {
			const entry = out.get(row.rid) ?? { project: row, shared: [] };
			entry.shared.push({ rid: row.k_rid, label: row.k_label, key: row.k_key, eid: row.k_eid, status: row.k_status });
			out.set(row.rid, entry);
		}
		return out;
	}

	// 5
	conceptClustering(): ConceptClusterRow[] {
		const rows = this.all<EntityRow & { n: number }>(
			`WITH c AS MATERIALIZED (SELECT n.id AS rid FROM nodes n WHERE n.label = 'Concept' AND ${LIVE("n")}),
			nb AS (SELECT c.rid AS x, e.to_id AS y FROM c JOIN edges e ON e.from_id = c.rid WHERE e.rel_type <> 'LINKS_TO' AND e.to_id <> e.from_id
				UNION SELECT c.rid AS x, e.from_id AS y FROM c JOIN edges e ON e.to_id = c.rid WHERE e.rel_type <> 'LINKS_TO' AND e.to_id <> e.from_id),
			members AS (SELECT nb.x AS x, count(*) AS n FROM nb JOIN nodes m ON m.id = nb.y WHERE ${LIVE("m")} GROUP BY nb.x)
			SELECT ${ENTITY("n")}, members.n AS n FROM members JOIN nodes n ON n.id = members.x WHERE members.n >= 3
			ORDER BY members.n DESC, key, label, eid LIMIT $limit`,
			{ limit: this.params.limit },
		);
		return rows.map((row) => ({
			concept: entity(row),
			members: this.neighbourEntities(row.rid).map(entity),
			memberCount: Number(row.n),
		}));
	}

	// 6
	staleKnowledge(): StaleKnowledgeRow[] {
		const activeNeighbour = `y.label IN ('Project', 'Course') AND ${STATUS("y")} = 'active'`;
		const rows = this.all<EntityRow & { last: string; conf: number }>(
			`WITH cand AS MATERIALIZED (
				SELECT ${ENTITY("n")},
					COALESCE(CASE WHEN json_type(n.props, '$.updated') = 'text' THEN json_extract(n.props, '$.updated') END, n.updated_at) AS last,
					COALESCE(CASE WHEN json_type(n.props, '$.confidence') IN ('real', 'integer') THEN json_extract(n.props, '$.confidence') END, 1) AS conf
				FROM nodes n WHERE ${LIVE("n")} AND n.label NOT IN ('Note', 'Insight') AND ${STATUS("n")} <> 'stub')
			SELECT * FROM cand WHERE (last < $staleBefore OR conf < $low)
			AND (EXISTS (SELECT 1 FROM edges e JOIN nodes y ON y.id = e.to_id WHERE e.from_id = cand.rid AND e.rel_type <> 'LINKS_TO' AND e.to_id <> e.from_id AND ${activeNeighbour} AND ${LIVE("y")})
				OR EXISTS (SELECT 1 FROM edges e JOIN nodes y ON y.id = e.from_id WHERE e.to_id = cand.rid AND e.rel_type <> 'LINKS_TO' AND e.to_id <> e.from_id AND ${activeNeighbour} AND ${LIVE("y")}))
			${ENTITY_ORDER} LIMIT $limit`,
			{ staleBefore: this.params.staleBefore, low: this.params.lowConfidence, limit: this.params.limit },
		);
		return rows.map((row) => ({
			node: entity(row),
			lastUpdated: String(row.last),
			confidence: Number(row.conf),
			active: this.neighboursWithVia(row.rid, activeNeighbour),
		}));
	}

	/** Live typed neighbours of `n`, counted up to `upTo` (enough to compare with a threshold). */
	private degreeExpr(upTo: number): string {
		return `(SELECT count(*) FROM (SELECT DISTINCT t.y FROM ${TYPED_AT("n.id")} t JOIN nodes y ON y.id = t.y WHERE ${LIVE("y")} LIMIT ${upTo}))`;
	}

	// 7
	underConnected(): UnderConnectedRow[] {
		const rows = this.all<EntityRow & { degree: number }>(
			`SELECT * FROM (SELECT ${ENTITY("n")}, ${this.degreeExpr(2)} AS degree
				FROM nodes n WHERE ${LIVE("n")} AND n.label <> 'Note' AND ${STATUS("n")} <> 'stub')
			WHERE degree < 2 ORDER BY degree, key, label, eid LIMIT $limit`,
			{ limit: this.params.limit },
		);
		return rows.map((row) => ({ node: entity(row), degree: Number(row.degree), neighbours: this.neighboursWithVia(row.rid) }));
	}

	// 8
	hubStubs(): HubStubRow[] {
		const rows = this.all<EntityRow & { degree: number }>(
			`SELECT * FROM (SELECT ${ENTITY("n")},
					(SELECT count(*) FROM (SELECT DISTINCT t.y FROM ${TYPED_AT("n.id")} t JOIN nodes y ON y.id = t.y WHERE ${LIVE("y")})) AS degree
				FROM nodes n WHERE ${LIVE("n")} AND n.label <> 'Note' AND ${STATUS("n")} = 'stub')
			WHERE degree >= 3 ORDER BY degree DESC, key, label, eid LIMIT $limit`,
			{ limit: this.params.limit },
		);
		return rows.map((row) => ({ stub: entity(row), degree: Number(row.degree), referrers: this.neighbourEntities(row.rid).map(entity) }));
	}
}

/** `GraphStore.reflectRows` for SQLite. */
export function sqliteReflectRows<D extends ReflectDetectorId>(
	conn: SqliteConnection,
	scope: PartialScope,
	detector: D,
	params: ReflectParams,
): readonly ReflectRowMap[D][] {
	if (!isFullScope(scope) || params.limit <= 0) return [];
	const q = new ReflectQueries(conn, scope, params);
	const run: { [K in ReflectDetectorId]: () => readonly ReflectRowMap[K][] } = {
		cross_project_solution: () => q.crossProjectSolution(),
		shared_technology: () => q.sharedTechnology(),
		training_opportunity: () => q.trainingOpportunity(),
		technique_transfer: () => q.techniqueTransfer(),
		concept_clustering: () => q.conceptClustering(),
		stale_knowledge: () => q.staleKnowledge(),
		under_connected: () => q.underConnected(),
		hub_stubs: () => q.hubStubs(),
	};
	return run[detector]();
}
