import neo4j, { type Integer } from "neo4j-driver";
import type { FtCorpusName } from "./store-context";
import { NODE_COLUMNS, PASSAGE_COLUMNS, type Phrase } from "./fts-query";

/**
 * bm25's document frequencies as a lookup. Per memory and fulltext corpus (nodes, passages) one
 * :EngramaTerm node per key holds `df`, the documents containing it, kept by every statement that
 * writes, re-indexes or deletes a document, in that statement's transaction. A key is a token
 * ("word": documents holding it) or a prefix ("word*": documents holding a token it begins, as
 * FTS5 counts a prefix phrase's rows) of PREFIX_KEY_MIN or more characters, or of one Han, kana
 * or Hangul character. The empty key is the corpus itself: `df` its documents, `len` their tokens.
 * A query reads its phrases' counts by key instead of counting Lucene's matches; a phrase no key
 * covers (several tokens, a short prefix) is still counted (fulltext.ts).
 */
export const TERM_LABEL = "EngramaTerm";

/** Prefix keys are kept from this many characters (code points) on: the shortest prefix a query asks for. */
export const PREFIX_KEY_MIN = 4;

/**
 * A node a bulk load wrote without its search indexes (deferred-indexes.ts): none of its words
 * are counted yet, so deleting it changes no count.
 */
export const PENDING_LABEL = "EngramaPending";

/** The key of the corpus itself (no token is empty). */
export const CORPUS_KEY = "";

/** Below this character a one-character prefix has no key (Han, kana and Hangul are above it). */
const WIDE_SCRIPTS = "\u1100";

/** The key that holds a phrase's document count, or null when none does (it must be counted). */
export function phraseTermKey(phrase: Phrase): string | null {
	if (phrase.tokens.length !== 1) return null;
	const token = phrase.tokens[0];
	if (!phrase.prefix) return token;
	const chars = Array.from(token).length;
	return chars >= PREFIX_KEY_MIN || (chars === 1 && token >= WIDE_SCRIPTS) ? `${token}*` : null;
}

/** A document's stored token columns as a Cypher list, for variable `v` (null columns included). */
export function columnList(corpus: FtCorpusName, v: string): string {
	const columns = corpus === "nodes" ? NODE_COLUMNS : PASSAGE_COLUMNS;
	return `[${columns.map((c) => `${v}.${c.property}`).join(", ")}]`;
}

/** Cypher: the distinct keys of `doc[field]` (a list of stored columns, or null: no document) as `out`. */
function documentKeys(field: "old" | "new", out: string): string {
	return `CALL {
		WITH doc
		UNWIND coalesce(doc.${field}, []) AS c
		UNWIND split(trim(coalesce(c, '')), '  ') AS w
		WITH DISTINCT w WHERE w <> ''
		UNWIND [w] + [i IN range(${PREFIX_KEY_MIN}, size(w)) | substring(w, 0, i) + '*']
			+ CASE WHEN substring(w, 0, 1) >= '${WIDE_SCRIPTS}' THEN [substring(w, 0, 1) + '*'] ELSE [] END AS k
		RETURN collect(DISTINCT k) AS ${out}
	}`;
}

/**
 * Cypher (a unit subquery) that applies documents' changes to the corpus's counts. Variable
 * `ftDocs` holds maps {old, oldLen, new, newLen}: a document's stored columns and token count
 * before and after the statement (old null: it is new; new null: it is deleted). Keys are
 * summed over all documents and written in key order (the same lock order in every writer);
 * a key no document holds any more is removed.
 */
export function countTerms(corpus: FtCorpusName): string {
	return `CALL {
		WITH ftDocs
		UNWIND ftDocs AS doc
		${documentKeys("old", "before")}
		${documentKeys("new", "after")}
		UNWIND [k IN before | [k, -1, 0]] + [k IN after | [k, 1, 0]]
			+ CASE WHEN doc.old IS NULL THEN [] ELSE [['${CORPUS_KEY}', -1, -coalesce(doc.oldLen, 0)]] END
			+ CASE WHEN doc.new IS NULL THEN [] ELSE [['${CORPUS_KEY}', 1, coalesce(doc.newLen, 0)]] END AS change
		WITH change[0] AS key, sum(change[1]) AS df, sum(change[2]) AS len
		${mergeCounts(corpus)}
	}`;
}

/** Cypher: rows of (key, df, len) changes merged into the counts, in key order; emptied keys removed. */
function mergeCounts(corpus: FtCorpusName): string {
	return `WITH key, df, len WHERE df <> 0 OR len <> 0
		ORDER BY key
		MERGE (t:${TERM_LABEL} {__ns: $ns, corpus: '${corpus}', key: key})
		SET t.df = coalesce(t.df, 0) + df, t.len = coalesce(t.len, 0) + len
		WITH t WHERE t.df <= 0
		DELETE t`;
}

/**
 * A new document's keys, as documentKeys makes them in Cypher from its stored columns (" t1  t2 "):
 * each token, and its prefixes of PREFIX_KEY_MIN code points or more (Cypher's size and substring
 * count code points), and a wide-script first character.
 */
export function documentTermKeys(columns: readonly unknown[]): string[] {
	const keys = new Set<string>();
	for (const column of columns) {
		if (typeof column !== "string") continue;
		for (const w of column.replace(/^ +| +$/g, "").split("  ")) {
			if (w === "") continue;
			keys.add(w);
			const chars = Array.from(w);
			for (let i = PREFIX_KEY_MIN; i <= chars.length; i++) keys.add(`${chars.slice(0, i).join("")}*`);
			if (chars[0] >= WIDE_SCRIPTS) keys.add(`${chars[0]}*`);
		}
	}
	return [...keys];
}

/**
 * New documents' changes to the counts summed here (`termChanges(...)` as $termChanges), for a
 * statement that only creates: Cypher then merges one row per key instead of expanding every
 * document's tokens. The same keys and sums as countTerms.
 */
export function newDocumentTerms(docs: readonly { columns: readonly unknown[]; len: number }[]): [string, Integer, Integer][] {
	const changes = new Map<string, [number, number]>();
	const add = (key: string, len: number) => {
		const change = changes.get(key) ?? [0, 0];
		change[0] += 1;
		change[1] += len;
		changes.set(key, change);
	};
	for (const doc of docs) {
		for (const key of documentTermKeys(doc.columns)) add(key, 0);
		add(CORPUS_KEY, doc.len);
	}
	return [...changes].map(([key, [df, len]]) => [key, neo4j.int(df), neo4j.int(len)]);
}

/** Cypher (a unit subquery) that applies $termChanges (newDocumentTerms) to the corpus's counts. */
export function countNewTerms(corpus: FtCorpusName): string {
	return `CALL {
		UNWIND $termChanges AS change
		WITH change[0] AS key, change[1] AS df, change[2] AS len
		${mergeCounts(corpus)}
	}`;
}

/** Cypher: `ftDocs` for deleting the documents in list variable `docs` (pending nodes were never counted). */
export function deletedDocs(corpus: FtCorpusName, docs: string): string {
	return `[d IN ${docs} WHERE NOT d:${PENDING_LABEL} | {old: ${columnList(corpus, "d")}, oldLen: d.__ft_len}] AS ftDocs`;
}
