import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FT_BOOSTS, FT_COLUMNS, fulltextProperties, idfCypher, luceneMatch, phraseOf, phrasePattern, queryWords, tokens } from "../../../src/backends/neo4j/fts-query";
import type { Neo4jGraphStore } from "../../../src/backends/neo4j/neo4j-graph-store";
import { bm25Idf } from "../../../src/backends/sqlite/fts-query";
import { ftsValues } from "../../../src/backends/sqlite/fts-values";
import { FTS_COLUMNS } from "../../../src/backends/sqlite/schema";
import { openDatabase } from "../../../src/backends/sqlite/wasm/open-database";
import type { SqliteConnection } from "../../../src/backends/sqlite/sqlite-connection";
import { testBackends } from "../../contracts/backends";
import { neo4jTestBackend } from "../../contracts/neo4j-backend";

describe("Neo4j fulltext tokens match SQLite FTS5", () => {
	let conn: SqliteConnection;
	beforeAll(async () => {
		conn = await openDatabase({ path: ":memory:" });
		conn.exec("CREATE VIRTUAL TABLE t USING fts5(x); CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance');");
	});
	afterAll(() => conn.close());

	/** The tokens FTS5's unicode61 tokenizer (the nodes_fts default) makes of `text`, in order. */
	function fts5Tokens(text: string): string[] {
		conn.run("DELETE FROM t");
		conn.run("INSERT INTO t(rowid, x) VALUES (1, ?)", [text]);
		return conn.all<{ term: string }>("SELECT term FROM v ORDER BY offset").map((r) => r.term);
	}

	const texts = [
		"Billing Portal: invoices for clients",
		"Añadir café — Ürün ÉCOLE naïve façade",
		"snake_case and kebab-case, v3.12.1 (2026-01-01)",
		"C++ vs C# vs F*; e-mail: someone@example.com",
		"Ünïcödé ÀÉÎÕÜ ØÅ Straße",
		"日本語のテキスト 中文 한국어",
		"emoji ☕ and math 𝄞 ∑ x²",
		"tabs\tand\nnewlines",
		"İstanbul Łódź Ærøskøbing Ðóra Þór",
		// Vowel signs and tone marks (Mn, Mc) standing alone separate tokens in unicode61.
		"ทีมงานตัดสินใจเลื่อนการปล่อยซอฟต์แวร์",
		"मराठी हिन्दी தமிழ்",
		"Tiếng Việt",
		"Ελληνικά άέή Русский йёЙ",
	];

	it.each(texts)("tokenises %j like unicode61", (text) => {
		expect(tokens(text)).toEqual(fts5Tokens(text));
	});

	it("uses the same columns as nodes_fts", () => {
		expect([...FT_COLUMNS]).toEqual([...FTS_COLUMNS]);
	});

	it("folds extra text props and the item's day into body and skips ids, provenance and date strings, as writeFts does", () => {
		const props = {
			name: "Billing Portal",
			description: "Invoices",
			body: "Main text",
			owner: "Ana Pérez",
			status: "active",
			org_id: "acme",
			valid_from: "2026-01-01",
			tags: ["finance", "web"],
			confidence: 1,
		};
		const ft = fulltextProperties(props);
		expect(ft.__ft_name).toBe(" billing  portal ");
		// valid_from's own string is not searched; its day in words is (node-text.ts itemDay).
		expect(ft.__ft_body).toBe(" main  text  ana  perez  1  january  2026 ");
		expect(ft.__ft_tags).toBe(" finance  web ");
		expect(ft.__ft_title).toBeNull();
		expect(ft.__ft_len).toBe(12);
		// SQLite's body column holds the same words, so FTS5's tokens are these.
		const body = ftsValues(props)[FTS_COLUMNS.indexOf("body")];
		expect(body).toBe("Main text\nAna Pérez\n1 January 2026");
		expect(fts5Tokens(body as string)).toEqual(tokens(body as string));
	});

	it("builds a query from words only, so user syntax is never parsed", () => {
		const words = queryWords(`"OR" NEAR( * ) AND ^title: -x +y Café café`);
		expect(words).toEqual(["or", "near", "and", "title", "x", "y", "café"]);
		const match = luceneMatch(words.map((w) => phraseOf(w, false)));
		// Each column boosted by its bm25 weight, so Lucene's window follows FTS5's order.
		expect(match).toBe(FT_COLUMNS.map((c) => `__ft_${c}:(or OR near OR and OR title OR x OR y OR cafe)${FT_BOOSTS[c] === 1 ? "" : `^${FT_BOOSTS[c]}`}`).join(" OR "));
		expect(match).toContain("__ft_name:(or OR near OR and OR title OR x OR y OR cafe)^8 OR ");
		// Prefix matching (FulltextQuery.prefix) only for words of 4+ characters, as SQLite quotes "word"*.
		expect(luceneMatch(words.map((w) => phraseOf(w, true)))).toContain("__ft_name:(or OR near* OR and OR title* OR x OR y OR cafe*)");
		expect(luceneMatch([phraseOf("snake_case", true)])).toContain("(+snake +case*)");
		expect(luceneMatch([phraseOf("snake_case", false)])).toContain('("snake case")');
		expect(luceneMatch(queryWords("!!! ---").map((w) => phraseOf(w, true)))).toBeNull();
	});

	it("counts phrase instances by pattern: prefix phrases match the start of their last token", () => {
		const stored = fulltextProperties({ description: "invoices invoice snake case snakes" }).__ft_description as string;
		const count = (word: string, prefix: boolean) => stored.split(phrasePattern(phraseOf(word, prefix))).length - 1;
		expect(count("invoic", true)).toBe(2);
		expect(count("invoice", false)).toBe(1);
		expect(count("snake_cas", true)).toBe(1);
		expect(count("snake", true)).toBe(2);
		expect(count("snake", false)).toBe(1);
		expect(count("sna", true)).toBe(0);
	});

});

describe.runIf(testBackends().some((b) => b.name === "neo4j"))("Neo4j fulltext idf", () => {
	it("is SQLite's bm25 idf, floored at 1e-6 for words in most rows", async () => {
		const opened = await neo4jTestBackend.open();
		try {
			const pairs = [[100, 1], [50_000, 1], [50_000, 2_499], [50_000, 30_000], [10, 9], [10, 5], [1, 0]];
			const graph = opened.memory.graph as Neo4jGraphStore;
			const rows = await graph.conn.read((q) => q.run(`UNWIND $pairs AS p RETURN ${idfCypher("p[0]", "p[1]")} AS idf`, { pairs }));
			// Cypher's log is Java's Math.log, which may differ from V8's and C's in the last bit (log 3: …098 against …096).
			expect(rows.map((r) => r.idf)).toEqual(pairs.map(([total, docs]): unknown => expect.closeTo(bm25Idf(docs, total), 14)));
			expect(rows.slice(3, 6).map((r) => r.idf)).toEqual([1e-6, 1e-6, 1e-6]);
		} finally {
			await opened.close();
		}
	});
});
