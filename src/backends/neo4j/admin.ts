import type { IntegrityCheck, ScopeFootprint, ScopeForgetReport } from "../../engine/backend-kit";
import { isFullScope } from "../../engine/backend-kit";
import type { PartialScope, Scope } from "../../engine/types";
import type { FtCorpusName, Neo4jStoreContext } from "./store-context";
import { TERM_LABEL, countTerms, deletedDocs } from "./term-counts";
import { postingScope } from "./names-history";
import { EDGE_SCOPE, SCOPE, SIDE_SCOPE, assertScope, int } from "./rows";
import { FRAGMENT_LABEL, HISTORY_LABEL, META_LABEL, NAME_LABEL, NODE_LABEL, PASSAGE_LABEL } from "./schema";

/** The store as a whole (StoreAdmin): integrity checks, GDPR forget and footprint, settings, dropping a namespace. */

/** Rows per delete statement: keeps big forgets under the server's per-transaction memory limit. */
export const DELETE_BATCH = 2000;

/** Relations always have both endpoints and the fulltext index follows the nodes: storage and scope remain. */
export async function checkIntegrity(ctx: Neo4jStoreContext): Promise<readonly IntegrityCheck[]> {
	const indexes = await ctx.conn.read(
		(q) => q.run("SHOW INDEXES YIELD name, state WHERE name STARTS WITH 'engrama_' AND state <> 'ONLINE' RETURN name, state ORDER BY name"),
		"check the indexes",
	);
	const scope = await ctx.conn.read(
		(q) =>
			q.run(
				`MATCH (a:${NODE_LABEL} {__ns: $ns})-[r]->(b:${NODE_LABEL})
				WHERE r.__org IS NOT NULL AND (r.__org <> a.org_id OR r.__user <> a.user_id) OR a.org_id <> b.org_id OR a.user_id <> b.user_id OR b.__ns <> $ns
				WITH r, a, b ORDER BY r.__seq
				RETURN count(r) AS n, collect(a.engrama_id + ' -' + type(r) + '-> ' + b.engrama_id)[0..5] AS samples`,
				{ ns: ctx.namespace },
			),
		"check relation scopes",
	);
	return [
		{ check: "storage", problems: indexes.length, samples: indexes.slice(0, 5).map((r) => `index ${String(r.name)} is ${String(r.state)}`) },
		{ check: "edge_scope", problems: Number(scope[0]?.n ?? 0), samples: (scope[0]?.samples as string[] | undefined) ?? [] },
	];
}

/**
 * Removes the scope in batches (a transaction's memory is bounded on the server): inside an
 * open transaction every batch joins it (atomic); otherwise each batch commits on its own and
 * an interrupted forget is finished by running it again.
 */
export async function forgetScope(ctx: Neo4jStoreContext, scope: Scope): Promise<ScopeForgetReport> {
	assertScope(scope);
	const params = ctx.params(scope);
	// Every relation touching the scope's nodes, then the scope-stamped ones whose ends moved elsewhere.
	const edges =
		(await deleteInBatches(ctx, `MATCH (n:${NODE_LABEL}) WHERE ${SCOPE} MATCH (n)-[r]-() WITH DISTINCT r AS x`, params, "forget the scope's relations")) +
		(await deleteInBatches(ctx, `MATCH ()-[r]->() WHERE r.__ns = $ns AND ${EDGE_SCOPE} WITH r AS x`, params, "forget the scope's relations"));
	const nodes = await deleteInBatches(ctx, `MATCH (n:${NODE_LABEL}) WHERE ${SCOPE} WITH n AS x`, params, "forget the scope's nodes", { detach: true, corpus: "nodes" });
	// `node IS NOT NULL` lets the planner seek the (scope, node) index (a scope alone scans the label).
	const keyed = { ...params, postingScope: postingScope(ctx.namespace, scope) };
	const nameIndex =
		(await deleteInBatches(ctx, `MATCH (p:${NAME_LABEL} {scope: $postingScope}) WHERE p.node IS NOT NULL WITH p AS x`, keyed, "forget the scope's names")) +
		(await deleteInBatches(ctx, `MATCH (p:${FRAGMENT_LABEL} {scope: $postingScope}) WHERE p.node IS NOT NULL WITH p AS x`, keyed, "forget the scope's names"));
	const history = await deleteInBatches(ctx, `MATCH (h:${HISTORY_LABEL}) WHERE ${SIDE_SCOPE("h")} WITH h AS x`, params, "forget the scope's history");
	// The sections of the scope's notes (their words and vectors are on them).
	const passages = await deleteInBatches(ctx, `MATCH (p:${PASSAGE_LABEL}) WHERE ${SIDE_SCOPE("p")} WITH p AS x`, params, "forget the scope's passages", {
		corpus: "passages",
	});
	// Every node is one document of the fulltext index, removed with it.
	return { nodes, edges, fulltext: nodes, history, nameIndex, passages };
}

/**
 * Deletes what `match` binds to x, DELETE_BATCH at a time; returns how many. With `detach` its
 * relations go too; with `corpus` the fulltext documents deleted leave its term counts.
 */
export async function deleteInBatches(
	ctx: Neo4jStoreContext,
	match: string,
	params: Record<string, unknown>,
	what: string,
	options: { readonly detach?: boolean; readonly corpus?: FtCorpusName } = {},
): Promise<number> {
	const remove = `${options.detach ? "DETACH " : ""}DELETE x`;
	const statement = options.corpus
		? `${match} LIMIT $batch WITH collect(x) AS found
			WITH found, ${deletedDocs(options.corpus, "found")}
			${countTerms(options.corpus)}
			FOREACH (x IN found | ${remove}) RETURN size(found) AS n`
		: `${match} LIMIT $batch ${remove} RETURN count(*) AS n`;
	let total = 0;
	for (;;) {
		const rows = await ctx.write((q) => q.run(statement, { ...params, batch: int(DELETE_BATCH) }), what);
		const n = Number(rows[0]?.n ?? 0);
		total += n;
		if (n < DELETE_BATCH) return total;
	}
}

export async function scopeFootprint(ctx: Neo4jStoreContext, scope: PartialScope): Promise<ScopeFootprint> {
	if (!isFullScope(scope)) return { nodes: 0, edges: 0, fulltext: 0, history: 0, nameIndex: 0 };
	const rows = await ctx.conn.read(
		(q) =>
			q.run(
				`CALL { MATCH (n:${NODE_LABEL}) WHERE ${SCOPE} RETURN count(n) AS nodes }
				CALL { MATCH (n:${NODE_LABEL}) WHERE ${SCOPE} OPTIONAL MATCH (n)-[r]-() RETURN count(DISTINCT r) AS touching }
				CALL { MATCH ()-[r]->() WHERE r.__ns = $ns AND ${EDGE_SCOPE}
					AND NOT (startNode(r).org_id = $org AND startNode(r).user_id = $user)
					AND NOT (endNode(r).org_id = $org AND endNode(r).user_id = $user) RETURN count(r) AS stray }
				CALL { MATCH (p:${NAME_LABEL} {scope: $postingScope}) WHERE p.node IS NOT NULL RETURN count(p) AS names }
				CALL { MATCH (p:${FRAGMENT_LABEL} {scope: $postingScope}) WHERE p.node IS NOT NULL RETURN count(p) AS fragments }
				CALL { MATCH (h:${HISTORY_LABEL}) WHERE ${SIDE_SCOPE("h")} RETURN count(h) AS history }
				CALL { MATCH (p:${PASSAGE_LABEL}) WHERE ${SIDE_SCOPE("p")} RETURN count(p) AS passages }
				RETURN nodes, touching + stray AS edges, names + fragments AS nameIndex, history, passages`,
				ctx.params(scope, { postingScope: postingScope(ctx.namespace, scope) }),
			),
		"measure the scope",
	);
	const row = rows[0] ?? {};
	return {
		nodes: Number(row.nodes ?? 0),
		edges: Number(row.edges ?? 0),
		fulltext: Number(row.nodes ?? 0),
		history: Number(row.history ?? 0),
		nameIndex: Number(row.nameIndex ?? 0),
		passages: Number(row.passages ?? 0),
	};
}

export async function getMeta(ctx: Neo4jStoreContext, key: string): Promise<string | null> {
	const rows = await ctx.conn.read(
		(q) => q.run(`MATCH (m:${META_LABEL} {__ns: $ns, key: $key}) RETURN m.value AS value`, { ns: ctx.namespace, key }),
		"read a setting",
	);
	return typeof rows[0]?.value === "string" ? rows[0].value : null;
}

export async function setMeta(ctx: Neo4jStoreContext, key: string, value: string): Promise<void> {
	await ctx.write(
		(q) => q.run(`MERGE (m:${META_LABEL} {__ns: $ns, key: $key}) SET m.value = $value`, { ns: ctx.namespace, key, value }),
		"write a setting",
	);
}

export async function deleteMeta(ctx: Neo4jStoreContext, key: string): Promise<void> {
	await ctx.write((q) => q.run(`MATCH (m:${META_LABEL} {__ns: $ns, key: $key}) DELETE m`, { ns: ctx.namespace, key }), "remove a setting");
}

export async function listScopes(ctx: Neo4jStoreContext): Promise<readonly Scope[]> {
	const rows = await ctx.conn.read(
		(q) =>
			q.run(
				`MATCH (n:${NODE_LABEL} {__ns: $ns}) WITH DISTINCT n.org_id AS org, n.user_id AS usr WHERE org <> '' AND usr <> '' RETURN org, usr ORDER BY org, usr`,
				{ ns: ctx.namespace },
			),
		"list scopes",
	);
	return rows.map((r) => ({ orgId: String(r.org), userId: String(r.usr) }));
}

export async function listMeta(ctx: Neo4jStoreContext): Promise<readonly (readonly [string, string])[]> {
	const rows = await ctx.conn.read(
		// Keys starting "__" describe this store (upgrade.ts), not the memory: never exported or migrated.
		(q) => q.run(`MATCH (m:${META_LABEL} {__ns: $ns}) WHERE NOT m.key STARTS WITH '__' RETURN m.key AS key, m.value AS value ORDER BY key`, { ns: ctx.namespace }),
		"list settings",
	);
	return rows.map((r) => [String(r.key), String(r.value)] as const);
}

/** Removes every node, relation and setting of this store's namespace (tests, `migrate --replace`). */
export async function dropNamespace(ctx: Neo4jStoreContext): Promise<number> {
	const ns = { ns: ctx.namespace };
	// Postings carry a scope key, not the namespace: the scopes are read from the nodes before they go.
	const scopes = await ctx.conn.read(
		(q) => q.run(`MATCH (n:${NODE_LABEL} {__ns: $ns}) RETURN DISTINCT n.org_id AS org, n.user_id AS user`, ns),
		"list the memory's scopes",
	);
	const removed = await deleteInBatches(ctx, `MATCH (n:${NODE_LABEL} {__ns: $ns}) WITH n AS x`, ns, "drop the memory", { detach: true });
	for (const row of scopes) {
		const keyed = { postingScope: postingScope(ctx.namespace, { orgId: String(row.org), userId: String(row.user) }) };
		for (const label of [NAME_LABEL, FRAGMENT_LABEL]) await deleteInBatches(ctx, `MATCH (p:${label} {scope: $postingScope}) WHERE p.node IS NOT NULL WITH p AS x`, keyed, "drop the memory");
	}
	// (An open store holds no posting of the layout before the scope key: its open upgraded them.)
	for (const label of [META_LABEL, HISTORY_LABEL, PASSAGE_LABEL, TERM_LABEL]) {
		await deleteInBatches(ctx, `MATCH (m:${label} {__ns: $ns}) WITH m AS x`, ns, "drop the memory");
	}
	return removed;
}
