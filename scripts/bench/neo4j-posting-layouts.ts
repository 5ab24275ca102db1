// The resolver's name postings on Neo4j, layout against layout: each layout's postings of the same
// entities written in pages (one transaction each, as buildDeferredIndexes writes them), then the
// same name-candidate reads (CANDIDATES in src/backends/neo4j/names-history.ts, per layout), with
// the server's CPU for each, layouts interleaved round by round, and every read's answer compared
// with the first layout's. Entities are bare nodes written once, untimed.
// Needs a Neo4j (NEO4J_* env). Usage: npm run bench -- neo4j-posting-layouts --server-pid P
//   [--entities 12000] [--page 4000] [--rounds 2] [--queries 200] [--layouts A,B,D]
import { randomUUID } from "node:crypto";

import neo4j, { type Driver } from "neo4j-driver";
import { postingsOf } from "../../src/backends/neo4j/names-history";
import { NAME_INDEX_LIMITS, normaliseName, queryFragments } from "../../src/engine/resolver";
import { arg } from "./args";
import { fmt, percentile, seededRandom, sentence } from "./stats";
import { loadAverage, processCpuMs } from "./proc-cpu";

const ENTITIES = Number(arg("entities", "12000"));
const PAGE = Number(arg("page", "4000"));
const ROUNDS = Number(arg("rounds", "2"));
const QUERIES = Number(arg("queries", "200"));
const serverPid = arg("server-pid", "");
const NS = `plb-${Date.now()}`;
const [ORG, USER] = ["bench", "scale"];
const SCOPE_KEY = neo4j.int(2 ** 52 + 12345);
const LABELS = ["Project", "Concept", "Technology", "Problem", "Decision", "Person"];

interface Layout {
	name: string;
	schema: string[];
	write: string;
	/** Returns, per result, the entity's id. */
	read: string;
	fragments: string;
}

const cap = neo4j.int(NAME_INDEX_LIMITS.postingsPerFragment);

/** CANDIDATES with the layout's match clauses; `link` is the posting property that finds the entity. */
function candidates(name: string, frag: string, where: string, link: "node" | "seq", entity: string): string {
	return `CALL { MATCH (p:${name} ${where}) WHERE p.norm = $norm RETURN p.${link} AS id ORDER BY p.seq LIMIT $limit }
	WITH collect(id) AS exact
	CALL {
		WITH exact UNWIND $fragments AS f
		CALL {
			WITH f MATCH (p:${frag} ${where}) WHERE p.fragment = f AND p.len >= $len AND p.len <= $high RETURN p ORDER BY p.len, p.seq LIMIT $cap
			UNION ALL
			WITH f MATCH (p:${frag} ${where}) WHERE p.fragment = f AND p.len < $len AND p.len >= $low RETURN p ORDER BY p.len DESC, p.seq LIMIT $cap
		}
		WITH exact, f, p WHERE NOT p.${link} IN exact
		WITH p.${link} AS id, count(DISTINCT f) AS shared, min(abs(p.len - $len)) AS distance, min(p.seq) AS seq
		ORDER BY shared DESC, distance, seq LIMIT $limit
		RETURN collect(id) AS ranked
	}
	WITH (exact + ranked)[0..$limit] AS ids
	UNWIND range(0, size(ids) - 1) AS i
	MATCH (n:BenchEnt {__ns: $ns, ${entity}: ids[i]}) WHERE n.org_id = $org AND n.user_id = $user
	RETURN n.engrama_id AS id ORDER BY i`;
}

const LAYOUTS: Record<string, Layout> = {
	// Today's: the scope as three properties, each posting names its node and order.
	A: {
		name: "PLA_N",
		fragments: "PLA_F",
		schema: [
			"CREATE INDEX pla_n IF NOT EXISTS FOR (p:PLA_N) ON (p.__ns, p.org_id, p.user_id, p.norm)",
			"CREATE INDEX pla_n_node IF NOT EXISTS FOR (p:PLA_N) ON (p.__ns, p.node)",
			"CREATE INDEX pla_f IF NOT EXISTS FOR (p:PLA_F) ON (p.__ns, p.org_id, p.user_id, p.fragment, p.len)",
			"CREATE INDEX pla_f_node IF NOT EXISTS FOR (p:PLA_F) ON (p.__ns, p.node)",
		],
		write: `UNWIND $rows AS r
			FOREACH (x IN r.names | CREATE (:PLA_N {__ns: $ns, org_id: $org, user_id: $user, node: r.node, seq: r.seq, len: x.len, norm: x.norm}))
			FOREACH (x IN r.fragments | CREATE (:PLA_F {__ns: $ns, org_id: $org, user_id: $user, node: r.node, seq: r.seq, len: x.len, fragment: x.fragment}))`,
		read: candidates("PLA_N", "PLA_F", "{__ns: $ns, org_id: $org, user_id: $user}", "node", "engrama_id"),
	},
	// One scope key (a 53-bit number) instead of three properties; names without their length.
	B: {
		name: "PLB_N",
		fragments: "PLB_F",
		schema: [
			"CREATE INDEX plb_n IF NOT EXISTS FOR (p:PLB_N) ON (p.scope, p.norm)",
			"CREATE INDEX plb_n_node IF NOT EXISTS FOR (p:PLB_N) ON (p.node)",
			"CREATE INDEX plb_f IF NOT EXISTS FOR (p:PLB_F) ON (p.scope, p.fragment, p.len)",
			"CREATE INDEX plb_f_node IF NOT EXISTS FOR (p:PLB_F) ON (p.node)",
		],
		write: `UNWIND $rows AS r
			FOREACH (x IN r.names | CREATE (:PLB_N {scope: $scope, norm: x.norm, seq: r.seq, node: r.node}))
			FOREACH (x IN r.fragments | CREATE (:PLB_F {scope: $scope, fragment: x.fragment, len: x.len, seq: r.seq, node: r.node}))`,
		read: candidates("PLB_N", "PLB_F", "{scope: $scope}", "node", "engrama_id"),
	},
	// B without the node's id: a posting finds its entity by insertion order (an index on the entities).
	D: {
		name: "PLD_N",
		fragments: "PLD_F",
		schema: [
			"CREATE INDEX pld_n IF NOT EXISTS FOR (p:PLD_N) ON (p.scope, p.norm)",
			"CREATE INDEX pld_n_seq IF NOT EXISTS FOR (p:PLD_N) ON (p.scope, p.seq)",
			"CREATE INDEX pld_f IF NOT EXISTS FOR (p:PLD_F) ON (p.scope, p.fragment, p.len)",
			"CREATE INDEX pld_f_seq IF NOT EXISTS FOR (p:PLD_F) ON (p.scope, p.seq)",
		],
		write: `UNWIND $rows AS r
			FOREACH (x IN r.names | CREATE (:PLD_N {scope: $scope, norm: x.norm, seq: r.seq}))
			FOREACH (x IN r.fragments | CREATE (:PLD_F {scope: $scope, fragment: x.fragment, len: x.len, seq: r.seq}))`,
		read: candidates("PLD_N", "PLD_F", "{scope: $scope}", "seq", "__seq"),
	},
	// B with the fragment postings written by UNWIND (no FOREACH) and a 35-bit scope key.
	E: {
		name: "PLE_N",
		fragments: "PLE_F",
		schema: [
			"CREATE INDEX ple_n IF NOT EXISTS FOR (p:PLE_N) ON (p.scope, p.norm)",
			"CREATE INDEX ple_n_node IF NOT EXISTS FOR (p:PLE_N) ON (p.node)",
			"CREATE INDEX ple_f IF NOT EXISTS FOR (p:PLE_F) ON (p.scope, p.fragment, p.len)",
			"CREATE INDEX ple_f_node IF NOT EXISTS FOR (p:PLE_F) ON (p.node)",
		],
		write: `UNWIND $rows AS r
			FOREACH (x IN r.names | CREATE (:PLE_N {scope: $small, norm: x.norm, seq: r.seq, node: r.node}))
			WITH r UNWIND r.fragments AS x CREATE (:PLE_F {scope: $small, fragment: x.fragment, len: x.len, seq: r.seq, node: r.node})`,
		read: candidates("PLE_N", "PLE_F", "{scope: $small}", "node", "engrama_id"),
	},
};

/** Server CPU in seconds. */
const serverCpu = () => processCpuMs(serverPid) / 1000;
const loadavg = loadAverage;

async function run(driver: Driver, query: string, params: Record<string, unknown> = {}) {
	const session = driver.session();
	try {
		return (await session.executeWrite((tx) => tx.run(query, params))).records;
	} finally {
		await session.close();
	}
}

const driver = neo4j.driver(process.env.NEO4J_URI ?? "bolt://localhost:7687", neo4j.auth.basic(process.env.NEO4J_USERNAME || "neo4j", process.env.NEO4J_PASSWORD ?? ""));
const base = { ns: NS, org: ORG, user: USER, scope: SCOPE_KEY, small: neo4j.int(123456789) };
const rand = seededRandom(ENTITIES);
const keys = Array.from({ length: ENTITIES }, (_, i) => `${LABELS[i % LABELS.length]} ${i} ${sentence(seededRandom(i + 1), 2)}`);
const seq0 = Date.now() * 1000;
const rows = keys.map((key, i) => {
	const { names, fragments } = postingsOf(key, {});
	return {
		node: randomUUID(),
		seq: neo4j.int(seq0 + i),
		names: names.map((n) => ({ norm: n.norm, len: neo4j.int(n.norm.length) })),
		fragments: fragments.map((f) => ({ fragment: f.fragment, len: neo4j.int(f.len) })),
	};
});
const postings = rows.reduce((sum, r) => sum + r.names.length + r.fragments.length, 0);
const layouts = arg("layouts", "A,B,D").split(",");

await run(driver, "CREATE INDEX plb_ent_id IF NOT EXISTS FOR (n:BenchEnt) ON (n.__ns, n.engrama_id)");
await run(driver, "CREATE INDEX plb_ent_seq IF NOT EXISTS FOR (n:BenchEnt) ON (n.__ns, n.__seq)");
for (const name of layouts) for (const s of LAYOUTS[name].schema) await run(driver, s);
await run(driver, "CALL db.awaitIndexes(300)");
for (let i = 0; i < rows.length; i += 5000) {
	await run(driver, "UNWIND $rows AS r CREATE (:BenchEnt {__ns: $ns, org_id: $org, user_id: $user, engrama_id: r.node, __seq: r.seq})", { ...base, rows: rows.slice(i, i + 5000) });
}

// Typo'd names of random entities, as an agent's remember would look them up.
const queries = Array.from({ length: QUERIES }, () => {
	const key = keys[Math.floor(rand() * keys.length)];
	const at = 1 + Math.floor(rand() * (key.length - 2));
	const normalised = normaliseName(key.slice(0, at) + "x" + key.slice(at + 1));
	const len = normalised.length;
	return {
		norm: normalised,
		fragments: [...new Set(queryFragments(normalised))],
		limit: neo4j.int(10),
		len: neo4j.int(len),
		high: neo4j.int(Math.ceil(len * NAME_INDEX_LIMITS.lengthWindowHigh)),
		low: neo4j.int(Math.floor(len * NAME_INDEX_LIMITS.lengthWindowLow)),
		cap,
	};
});

console.log(`${ENTITIES} entities, ${postings} postings (${(postings / ENTITIES).toFixed(1)} per entity), pages of ${PAGE}, ${QUERIES} reads; load ${loadavg()}`);
const reference: string[][] = [];
for (let round = 1; round <= ROUNDS; round++) {
	for (const name of layouts) {
		const layout = LAYOUTS[name];
		const [s0, t0] = [serverCpu(), performance.now()];
		for (let i = 0; i < rows.length; i += PAGE) await run(driver, layout.write, { ...base, rows: rows.slice(i, i + PAGE) });
		const [writeS, writeCpu] = [(performance.now() - t0) / 1000, serverCpu() - s0];
		const wall: number[] = [];
		let differ = 0;
		const s1 = serverCpu();
		for (const [qi, q] of queries.entries()) {
			const t = performance.now();
			const ids = (await run(driver, layout.read, { ...base, ...q })).map((r) => String(r.get("id")));
			wall.push(performance.now() - t);
			if (!reference[qi]) reference[qi] = ids;
			else if (JSON.stringify(reference[qi]) !== JSON.stringify(ids)) differ++;
		}
		const readCpu = serverCpu() - s1;
		console.log(
			`round ${round} ${name}: write ${writeS.toFixed(1)} s wall, ${writeCpu.toFixed(1)} s server CPU (${((writeCpu * 1e6) / ENTITIES).toFixed(0)} µs per entity); ` +
				`read p50 ${fmt(percentile(wall, 50))} p95 ${fmt(percentile(wall, 95))}, ${((readCpu * 1000) / QUERIES).toFixed(1)} ms server CPU each; answers differing ${differ}; load ${loadavg()}`,
		);
		for (const label of [layout.name, layout.fragments]) {
			for (;;) {
				const r = await run(driver, `MATCH (p:${label}) WITH p LIMIT 20000 DELETE p RETURN count(*) AS n`);
				if (Number(r[0].get("n")) < 20000) break;
			}
		}
	}
}
for (;;) {
	const r = await run(driver, "MATCH (p:BenchEnt {__ns: $ns}) WITH p LIMIT 20000 DELETE p RETURN count(*) AS n", base);
	if (Number(r[0].get("n")) < 20000) break;
}
await driver.close();
