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
import { codePointCompare, TAG_ANCHOR_LABELS, tagAnchorPairs, unlinkedTagRows } from "../../engine/backend-kit";
import { isFullScope } from "../../engine/backend-kit";
import type { PartialScope, Scope } from "../../engine/types";
import type { SqlValue, SqliteConnection } from "./sqlite-connection";

/**
 * The reflect detectors in SQL (definitions: src/engine/protocols/reflect-rows.ts).
 *
 * JSON functions cost about as much as reading a row here, so each run first copies the live
 * nodes of the scope (id, label, key, status) and their typed edges, both directions, into two
 * TEMP tables: one pass over `nodes` and one over the edges' covering index. Every detector is
 * then integer joins on those tables; JSON is read again only for the few rows a detector
 * returns. The snapshot is kept for the calls that share `params.run` (temp tables are private
 * to the connection and never written to the file) and rebuilt for any other run.
 * The pairwise detectors (1, 4) walk their outer entity in order and stop at `limit`.
 */

const SNAPSHOT_DDL = `
CREATE TEMP TABLE IF NOT EXISTS reflect_run (token TEXT NOT NULL, org TEXT NOT NULL, usr TEXT NOT NULL);
CREATE TEMP TABLE IF NOT EXISTS reflect_node (id INTEGER PRIMARY KEY, label TEXT NOT NULL, key TEXT NOT NULL, status TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS temp.reflect_node_label ON reflect_node (label, status);
CREATE TEMP TABLE IF NOT EXISTS reflect_adj (x INTEGER NOT NULL, y INTEGER NOT NULL, type TEXT NOT NULL, out INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS temp.reflect_adj_x ON reflect_adj (x, type, y);
`;

const STATUS = (a: string) => `COALESCE(json_extract(${a}.props, '$.status'), '')`;

/** Live = in scope, not archived, not superseded, not a system Insight (label Insight with a source_query). */
const FILL_NODES = `
INSERT INTO reflect_node (id, label, key, status)
SELECT n.id, n.label, n.key_value, ${STATUS("n")} FROM nodes n
WHERE COALESCE(json_extract(n.props, '$.org_id'), '') = $org AND COALESCE(json_extract(n.props, '$.user_id'), '') = $user
AND ${STATUS("n")} <> 'archived' AND json_extract(n.props, '$.valid_to') IS NULL
AND NOT (n.label = 'Insight' AND TRIM(COALESCE(json_extract(n.props, '$.source_query'), '')) <> '')`;

/** Typed edges (not LINKS_TO, no self-loops) between live nodes, stored from both ends. */
const FILL_EDGES = `
INSERT INTO reflect_adj (x, y, type, out)
SELECT e.from_id, e.to_id, e.rel_type, 1 FROM edges e
CROSS JOIN reflect_node a ON a.id = e.from_id CROSS JOIN reflect_node b ON b.id = e.to_id
WHERE e.rel_type <> 'LINKS_TO' AND e.from_id <> e.to_id`;

const MIRROR_EDGES = "INSERT INTO reflect_adj (x, y, type, out) SELECT y, x, type, 0 FROM reflect_adj WHERE out = 1";

const NODE = (a: string) => `${a}.id AS rid, ${a}.label AS label, ${a}.key AS key, ${a}.status AS status`;
const ORDER = "ORDER BY key, label";
const OPEN_ISSUE = (a: string) => `((${a}.label = 'Problem' AND ${a}.status IN ('open', 'in-progress')) OR (${a}.label = 'Vulnerability' AND ${a}.status = 'open'))`;
/** ra joins x to project p: x-[BELONGS_TO]->p or p-[HAS]->x. */
const MEMBERSHIP = "((ra.type = 'BELONGS_TO' AND ra.out = 1) OR (ra.type = 'HAS' AND ra.out = 0))";

interface NodeRow {
	rid: number;
	label: string;
	key: string;
	status: string;
}

type Params = Record<string, SqlValue>;

/** Code-point order (what SQLite BINARY gives on UTF-8), for lists ordered outside SQL. */
export function compareEntities(a: Pick<ReflectEntity, "key" | "label">, b: Pick<ReflectEntity, "key" | "label">): number {
	return codePointCompare(a.key, b.key) || codePointCompare(a.label, b.label);
}

/**
 * Temp tables in memory: through the file VFS every temp page would be a file read and write.
 * SqliteGraphStore.init sets this; SQLite refuses the change inside a transaction, so here it is
 * only a fallback for connections opened otherwise (the snapshot still works on a temp file).
 */
function useMemoryTempStore(conn: SqliteConnection): void {
	if (Number(conn.get<{ temp_store: number }>("PRAGMA temp_store")?.temp_store) === 2) return;
	try {
		conn.exec("PRAGMA temp_store = MEMORY");
	} catch {
		// Inside a transaction: keep the default.
	}
}

/** Builds the run's snapshot unless this connection already holds it for the same run and scope. */
function ensureSnapshot(conn: SqliteConnection, scope: Scope, run: string | undefined): void {
	useMemoryTempStore(conn);
	conn.exec(SNAPSHOT_DDL);
	if (run !== undefined) {
		const held = conn.get<{ token: string; org: string; usr: string }>("SELECT token, org, usr FROM reflect_run");
		if (held && held.token === run && held.org === scope.orgId && held.usr === scope.userId) return;
	}
	conn.exec("DELETE FROM reflect_run; DELETE FROM reflect_adj; DELETE FROM reflect_node;");
	conn.run(FILL_NODES, { org: scope.orgId, user: scope.userId });
	conn.run(FILL_EDGES);
	conn.run(MIRROR_EDGES);
	conn.run("INSERT INTO reflect_run (token, org, usr) VALUES (?, ?, ?)", [run ?? "", scope.orgId, scope.userId]);
}

class ReflectQueries {
	private readonly ids = new Map<number, string>();

	constructor(
		private readonly conn: SqliteConnection,
		private readonly params: ReflectParams,
	) {}

	private nodes(sql: string, extra: Params = {}): NodeRow[] {
		return this.conn.all<NodeRow>(sql, extra);
	}

	/** engrama_ids of the given rows (read from the JSON only for rows a detector returns). */
	private loadIds(rows: readonly NodeRow[]): void {
		const missing = [...new Set(rows.map((r) => r.rid).filter((rid) => !this.ids.has(rid)))];
		if (missing.length === 0) return;
		const found = this.conn.all<{ id: number; eid: string }>(
			// The id list drives: primary-key lookups, never a walk over the nodes.
			"SELECT n.id AS id, COALESCE(json_extract(n.props, '$.engrama_id'), 'sqlite-' || n.id) AS eid FROM json_each(?) j CROSS JOIN nodes n ON n.id = j.value",
			[JSON.stringify(missing)],
		);
		for (const row of found) this.ids.set(row.id, String(row.eid));
	}

	private entity(row: NodeRow): ReflectEntity {
		return { id: this.ids.get(row.rid) ?? `sqlite-${row.rid}`, label: row.label, key: row.key, status: row.status };
	}

	private entities(rows: readonly NodeRow[], cap = this.params.listCap): ReflectEntity[] {
		const kept = cap < 0 ? rows : rows.slice(0, cap);
		this.loadIds(kept);
		return kept.map((r) => this.entity(r));
	}

	/** N(x) in entity order; `where` filters the neighbour `y` (and may use the edge `ra`). */
	private neighbours(x: number, where = "1", cap = this.params.listCap): NodeRow[] {
		return this.nodes(
			`SELECT DISTINCT ${NODE("y")} FROM reflect_adj ra CROSS JOIN reflect_node y ON y.id = ra.y
			WHERE ra.x = $x AND ${where} ${ORDER} LIMIT $cap`,
			{ x, cap },
		);
	}

	/** N(x) with via(x, y) and its direction, in entity order, capped. */
	private neighboursWithVia(x: number, where = "1"): ReflectNeighbour[] {
		const rows = this.conn.all<NodeRow & { type: string; out: number }>(
			`SELECT ${NODE("y")}, ra.type AS type, ra.out AS out FROM reflect_adj ra CROSS JOIN reflect_node y ON y.id = ra.y WHERE ra.x = $x AND ${where}`,
			{ x },
		);
		const byNode = new Map<number, { row: NodeRow; type: string; out: Set<string> }>();
		for (const row of rows) {
			const seen = byNode.get(row.rid) ?? { row, type: row.type, out: new Set<string>() };
			if (codePointCompare(row.type, seen.type) < 0) seen.type = row.type;
			if (row.out === 1) seen.out.add(row.type);
			byNode.set(row.rid, seen);
		}
		const kept = [...byNode.values()].sort((a, b) => compareEntities(a.row, b.row)).slice(0, this.params.listCap);
		this.loadIds(kept.map((k) => k.row));
		return kept.map((k) => ({ entity: this.entity(k.row), type: k.type, direction: k.out.has(k.type) ? ("out" as const) : ("in" as const) }));
	}

	/** P(x), uncapped, in entity order. */
	private projectsOf(x: number): NodeRow[] {
		return this.neighbours(x, `y.label = 'Project' AND ${MEMBERSHIP}`, -1);
	}

	// 1
	crossProjectSolution(): CrossProjectSolutionRow[] {
		const out: CrossProjectSolutionRow[] = [];
		const opens = this.nodes(`SELECT ${NODE("o")} FROM reflect_node o WHERE o.label = 'Problem' AND o.status IN ('open', 'in-progress') ${ORDER}`);
		for (const o of opens) {
			if (out.length >= this.params.limit) break;
			const openConcepts = this.neighbours(o.rid, "y.label = 'Concept'", -1);
			if (openConcepts.length === 0) continue;
			const openProjects = this.projectsOf(o.rid);
			if (openProjects.length === 0) continue;
			const openProjectIds = new Set(openProjects.map((p) => p.rid));
			const openConceptIds = new Set(openConcepts.map((c) => c.rid));
			const resolved = this.nodes(
				`SELECT DISTINCT ${NODE("r")} FROM reflect_adj oc CROSS JOIN reflect_node c ON c.id = oc.y
				CROSS JOIN reflect_adj rc ON rc.x = c.id CROSS JOIN reflect_node r ON r.id = rc.y
				WHERE oc.x = $o AND c.label = 'Concept' AND r.id <> $o AND r.label = 'Problem' AND r.status = 'resolved' ${ORDER}`,
				{ o: o.rid },
			);
			for (const r of resolved) {
				if (out.length >= this.params.limit) break;
				const decisions = this.neighbours(
					r.rid,
					"ra.type = 'SOLVED_BY' AND ra.out = 1 AND y.label = 'Decision' AND y.status NOT IN ('rejected', 'superseded')",
					-1,
				);
				if (decisions.length === 0) continue;
				const elsewhere = this.projectsOf(r.rid).filter((p) => !openProjectIds.has(p.rid));
				if (elsewhere.length === 0) continue;
				const shared = this.neighbours(r.rid, "y.label = 'Concept'", -1).filter((c) => openConceptIds.has(c.rid));
				out.push({
					open: this.entities([o])[0],
					openProjects: this.entities(openProjects),
					resolved: this.entities([r])[0],
					resolvedProjects: this.entities(elsewhere),
					concepts: this.entities(shared),
					decisions: this.entities(decisions),
				});
			}
		}
		return out;
	}

	// 2
	sharedTechnology(): SharedTechnologyRow[] {
		const users = "ra.out = 0 AND ra.type IN ('USES', 'TEACHES', 'COMPOSED_OF')";
		const techs = this.conn.all<NodeRow & { n: number; labels: number }>(
			`SELECT ${NODE("t")}, count(DISTINCT u.id) AS n, count(DISTINCT u.label) AS labels FROM reflect_node t
			CROSS JOIN reflect_adj ra ON ra.x = t.id CROSS JOIN reflect_node u ON u.id = ra.y
			WHERE t.label = 'Technology' AND ${users} GROUP BY t.id HAVING n >= 3 ORDER BY n DESC, key, label LIMIT $limit`,
			{ limit: this.params.limit },
		);
		return techs.map((t) => {
			const rows = this.conn.all<NodeRow & { via: string }>(
				`SELECT ${NODE("u")}, min(ra.type) AS via FROM reflect_adj ra CROSS JOIN reflect_node u ON u.id = ra.y
				WHERE ra.x = $t AND ${users} GROUP BY u.id ${ORDER} LIMIT $cap`,
				{ t: t.rid, cap: this.params.listCap },
			);
			const entities = this.entities(rows);
			return {
				technology: this.entities([t])[0],
				users: entities.map((entity, i) => ({ entity, via: rows[i].via })),
				userCount: Number(t.n),
				labelCount: Number(t.labels),
			};
		});
	}

	// 3
	trainingOpportunity(): TrainingOpportunityRow[] {
		const rows = this.conn.all<NodeRow & { n: number }>(
			`SELECT ${NODE("c")}, count(DISTINCT i.id) AS n FROM reflect_node c
			CROSS JOIN reflect_adj ra ON ra.x = c.id CROSS JOIN reflect_node i ON i.id = ra.y
			WHERE c.label = 'Concept' AND ${OPEN_ISSUE("i")}
			AND NOT EXISTS (SELECT 1 FROM reflect_adj rb CROSS JOIN reflect_node k ON k.id = rb.y
				WHERE rb.x = c.id AND rb.out = 0 AND rb.type IN ('COVERS', 'TEACHES') AND k.label IN ('Course', 'Lesson'))
			GROUP BY c.id HAVING n >= 2 ORDER BY n DESC, key, label LIMIT $limit`,
			{ limit: this.params.limit },
		);
		return rows.map((row) => ({
			concept: this.entities([row])[0],
			issues: this.entities(this.neighbours(row.rid, OPEN_ISSUE("y"))),
			issueCount: Number(row.n),
		}));
	}

	// 4
	techniqueTransfer(): TechniqueTransferRow[] {
		const out: TechniqueTransferRow[] = [];
		const candidatesOf = new Map<number, { project: NodeRow; shared: NodeRow[] }[]>();
		const techniques = this.nodes(`SELECT ${NODE("c")} FROM reflect_node c WHERE c.label IN ('Concept', 'Technique') ${ORDER}`);
		for (const c of techniques) {
			if (out.length >= this.params.limit) break;
			const around = this.neighbours(c.rid, "1", -1);
			if (around.length === 0) continue;
			// Sources (with their evidence) and the projects where c is already touched.
			const evidence = new Map<number, { project: NodeRow; items: NodeRow[] }>();
			const touched = new Set<number>();
			const addEvidence = (project: NodeRow, item: NodeRow) => {
				const entry = evidence.get(project.rid) ?? { project, items: [] };
				if (!entry.items.some((i) => i.rid === item.rid)) entry.items.push(item);
				evidence.set(project.rid, entry);
			};
			for (const x of around) {
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
			const sources = [...evidence.values()].sort((a, b) => compareEntities(a.project, b.project));
			for (const source of sources) {
				if (out.length >= this.params.limit) break;
				let candidates = candidatesOf.get(source.project.rid);
				if (!candidates) {
					candidates = this.transferCandidates(source.project.rid);
					candidatesOf.set(source.project.rid, candidates);
				}
				for (const target of candidates) {
					if (out.length >= this.params.limit) break;
					if (touched.has(target.project.rid)) continue;
					out.push({
						technique: this.entities([c])[0],
						from: this.entities([source.project])[0],
						to: this.entities([target.project])[0],
						evidence: this.entities([...source.items].sort(compareEntities)),
						shared: this.entities(target.shared),
						sharedCount: target.shared.length,
					});
				}
			}
		}
		return out;
	}

	/** Active projects sharing a Domain (IN_DOMAIN) or Technology (USES) with project `a`, in entity order. */
	private transferCandidates(a: number): { project: NodeRow; shared: NodeRow[] }[] {
		const rows = this.conn.all<NodeRow & { k_rid: number; k_label: string; k_key: string; k_status: string }>(
			`SELECT DISTINCT ${NODE("b")}, k.id AS k_rid, k.label AS k_label, k.key AS k_key, k.status AS k_status
			FROM reflect_adj ak CROSS JOIN reflect_node k ON k.id = ak.y
			CROSS JOIN reflect_adj bk ON bk.x = k.id AND bk.type = ak.type AND bk.out = 0 CROSS JOIN reflect_node b ON b.id = bk.y
			WHERE ak.x = $a AND ak.out = 1 AND ((ak.type = 'IN_DOMAIN' AND k.label = 'Domain') OR (ak.type = 'USES' AND k.label = 'Technology'))
			AND b.id <> $a AND b.label = 'Project' AND b.status = 'active'
			ORDER BY key, label, k_key, k_label`,
			{ a },
		);
		const out = new Map<number, { project: NodeRow; shared: NodeRow[] }>();
		for (const row of rows) {
			const entry = out.get(row.rid) ?? { project: row, shared: [] };
			if (!entry.shared.some((s) => s.rid === row.k_rid)) entry.shared.push({ rid: row.k_rid, label: row.k_label, key: row.k_key, status: row.k_status });
			out.set(row.rid, entry);
		}
		return [...out.values()];
	}

	// 5
	conceptClustering(): ConceptClusterRow[] {
		const rows = this.conn.all<NodeRow & { n: number }>(
			`SELECT ${NODE("c")}, count(DISTINCT ra.y) AS n FROM reflect_node c CROSS JOIN reflect_adj ra ON ra.x = c.id
			WHERE c.label = 'Concept' GROUP BY c.id HAVING n >= 3 ORDER BY n DESC, key, label LIMIT $limit`,
			{ limit: this.params.limit },
		);
		return rows.map((row) => ({
			concept: this.entities([row])[0],
			members: this.entities(this.neighbours(row.rid)),
			memberCount: Number(row.n),
		}));
	}

	// 6
	staleKnowledge(): StaleKnowledgeRow[] {
		const activeNeighbour = "y.label IN ('Project', 'Course') AND y.status = 'active'";
		const rows = this.conn.all<NodeRow & { last: string; conf: number }>(
			`WITH cand AS MATERIALIZED (
				SELECT ${NODE("x")} FROM reflect_node x WHERE x.label NOT IN ('Note', 'Insight') AND x.status <> 'stub'
				AND EXISTS (SELECT 1 FROM reflect_adj ra CROSS JOIN reflect_node y ON y.id = ra.y WHERE ra.x = x.id AND ${activeNeighbour})),
			dated AS (
				SELECT cand.*, n.updated_at AS updated_at, json_extract(n.props, '$.updated', '$.confidence') AS j
				FROM cand CROSS JOIN nodes n ON n.id = cand.rid),
			typed AS (
				SELECT rid, label, key, status,
					CASE WHEN json_type(j, '$[0]') = 'text' THEN j ->> '$[0]' ELSE updated_at END AS last,
					CASE WHEN json_type(j, '$[1]') IN ('real', 'integer') THEN j ->> '$[1]' ELSE 1 END AS conf
				FROM dated)
			SELECT * FROM typed WHERE last < $staleBefore OR conf < $low ${ORDER} LIMIT $limit`,
			{ staleBefore: this.params.staleBefore, low: this.params.lowConfidence, limit: this.params.limit },
		);
		return rows.map((row) => ({
			node: this.entities([row])[0],
			lastUpdated: String(row.last),
			confidence: Number(row.conf),
			active: this.neighboursWithVia(row.rid, activeNeighbour),
		}));
	}

	// 7
	underConnected(): UnderConnectedRow[] {
		const rows = this.conn.all<NodeRow & { degree: number }>(
			`SELECT ${NODE("x")}, count(DISTINCT ra.y) AS degree FROM reflect_node x LEFT JOIN reflect_adj ra ON ra.x = x.id
			WHERE x.label <> 'Note' AND x.status <> 'stub' GROUP BY x.id HAVING degree < 2 ORDER BY degree, key, label LIMIT $limit`,
			{ limit: this.params.limit },
		);
		return rows.map((row) => ({ node: this.entities([row])[0], degree: Number(row.degree), neighbours: this.neighboursWithVia(row.rid) }));
	}

	// 8
	hubStubs(): HubStubRow[] {
		const rows = this.conn.all<NodeRow & { degree: number }>(
			`SELECT ${NODE("x")}, count(DISTINCT ra.y) AS degree FROM reflect_node x CROSS JOIN reflect_adj ra ON ra.x = x.id
			WHERE x.status = 'stub' AND x.label <> 'Note' GROUP BY x.id HAVING degree >= 3 ORDER BY degree DESC, key, label LIMIT $limit`,
			{ limit: this.params.limit },
		);
		return rows.map((row) => ({ stub: this.entities([row])[0], degree: Number(row.degree), referrers: this.entities(this.neighbours(row.rid)) }));
	}

	// 9
	unlinkedTag(): UnlinkedTagRow[] {
		const labels = TAG_ANCHOR_LABELS.map((l) => `'${l}'`).join(", ");
		const anchors = this.nodes(`SELECT ${NODE("a")} FROM reflect_node a WHERE a.label IN (${labels})`);
		if (anchors.length === 0) return [];
		// The one JSON read over the live nodes: their tags (only nodes that have some).
		const taggers = this.conn.all<NodeRow & { tags: string }>(
			`SELECT ${NODE("x")}, json_extract(n.props, '$.tags') AS tags FROM reflect_node x CROSS JOIN nodes n ON n.id = x.id
			WHERE json_type(n.props, '$.tags') IN ('array', 'text')`,
		);
		const byRid = new Map<number, NodeRow>([...anchors, ...taggers].map((r) => [r.rid, r]));
		const pairs = tagAnchorPairs(
			anchors.map((a) => ({ ref: a.rid, key: a.key })),
			taggers.map((t) => ({ ref: t.rid, tags: parseTags(t.tags) })),
		);
		if (pairs.length === 0) return [];
		// Linked: any edge between the two, either direction, any type (LINKS_TO included).
		const linked = new Set(
			this.conn
				.all<{ x: number; a: number }>(
					`SELECT j.value ->> 0 AS x, j.value ->> 1 AS a FROM json_each(?) j
					WHERE EXISTS (SELECT 1 FROM edges e WHERE e.from_id = j.value ->> 0 AND e.to_id = j.value ->> 1)
					OR EXISTS (SELECT 1 FROM edges e WHERE e.from_id = j.value ->> 1 AND e.to_id = j.value ->> 0)`,
					[JSON.stringify(pairs.map((p) => [p.node, p.anchor]))],
				)
				.map((r) => `${r.x}:${r.a}`),
		);
		const unlinked = pairs.filter((p) => !linked.has(`${p.node}:${p.anchor}`));
		this.loadIds(unlinked.flatMap((p) => [byRid.get(p.node), byRid.get(p.anchor)]).filter((r): r is NodeRow => r !== undefined));
		return unlinkedTagRows(
			unlinked.map((p) => ({ node: this.entity(byRid.get(p.node) as NodeRow), anchor: this.entity(byRid.get(p.anchor) as NodeRow) })),
			this.params,
		);
	}
}

/** json_extract gives a JSON array as text and a JSON string as the string itself. */
function parseTags(raw: string): unknown {
	if (raw.startsWith("[")) {
		try {
			return JSON.parse(raw) as unknown;
		} catch {
			return raw;
		}
	}
	return raw;
}

/** `GraphStore.reflectRows` for SQLite. */
export function sqliteReflectRows<D extends ReflectDetectorId>(
	conn: SqliteConnection,
	scope: PartialScope,
	detector: D,
	params: ReflectParams,
): readonly ReflectRowMap[D][] {
	if (!isFullScope(scope) || params.limit <= 0) return [];
	ensureSnapshot(conn, scope, params.run);
	const q = new ReflectQueries(conn, params);
	const run: { [K in ReflectDetectorId]: () => readonly ReflectRowMap[K][] } = {
		cross_project_solution: () => q.crossProjectSolution(),
		shared_technology: () => q.sharedTechnology(),
		training_opportunity: () => q.trainingOpportunity(),
		technique_transfer: () => q.techniqueTransfer(),
		concept_clustering: () => q.conceptClustering(),
		stale_knowledge: () => q.staleKnowledge(),
		under_connected: () => q.underConnected(),
		hub_stubs: () => q.hubStubs(),
		unlinked_tag: () => q.unlinkedTag(),
	};
	return run[detector]();
}
