// Quantised vector channels against the float scan, on a file made by search-speed: top-10 overlap
// with the float channel and CPU per query. Each quantised channel scans a vec0 table of codes
// (k = 10 × oversample) and rescores those rows with their float vectors.
// Usage: npm run bench -- search-speed --sizes 50000 --reuse DIR   (makes DIR/search-50000.db)
//        npm run bench -- vector-quantise --db DIR/search-50000.db [--queries 50] [--oversample 4,8,16]
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../src/backends/sqlite/wasm/open-database";
import { HashEmbeddingProvider } from "../../src/engine/embedding/hash-embedding-provider";
import { arg } from "./args";
import { seededRandom } from "./stats";

const source = arg("db", "");
if (!source) throw new Error("--db FILE: a database made by `npm run bench -- search-speed --reuse DIR` (DIR/search-<size>.db).");
const queries = Number(arg("queries", "50"));
const oversamples = arg("oversample", "4,8,16").split(",").map(Number);
const dir = mkdtempSync(join(tmpdir(), "engrama-quantise-"));
copyFileSync(source, join(dir, "q.db"));
const conn = await openDatabase({ path: join(dir, "q.db") });
const dims = Number(/float\[(\d+)\]/i.exec(conn.get<{ sql: string }>("SELECT sql FROM sqlite_master WHERE name = 'node_embeddings'")?.sql ?? "")?.[1] ?? 0);
const embedder = new HashEmbeddingProvider(dims);
const bytes = (v: Float32Array | Uint8Array) => new Uint8Array(v.buffer, v.byteOffset, v.byteLength);

// SimHash: signs of a fixed random rotation (sign flips + Walsh-Hadamard, three rounds), so sparse
// vectors (the hash embedder's) get informative bits too.
const BITS = 2 ** Math.ceil(Math.log2(dims));
const rand = seededRandom(99);
const flips = [0, 1, 2].map(() => Float32Array.from({ length: BITS }, () => (rand() < 0.5 ? -1 : 1)));
function simhash(v: Float32Array): Uint8Array {
	const a = new Float32Array(BITS);
	a.set(v);
	for (const f of flips) {
		for (let i = 0; i < BITS; i++) a[i] *= f[i];
		for (let h = 1; h < BITS; h *= 2) {
			for (let i = 0; i < BITS; i += h * 2) {
				for (let j = i; j < i + h; j++) {
					const x = a[j];
					a[j] = x + a[j + h];
					a[j + h] = x - a[j + h];
				}
			}
		}
	}
	const out = new Uint8Array(BITS / 8);
	for (let i = 0; i < BITS; i++) if (a[i] > 0) out[i >> 3] |= 1 << (i & 7);
	return out;
}

const t0 = performance.now();
conn.exec("BEGIN");
conn.exec(`CREATE VIRTUAL TABLE q_bit USING vec0(node_id INTEGER PRIMARY KEY, code bit[${dims}])`);
conn.exec(`CREATE VIRTUAL TABLE q_int8 USING vec0(node_id INTEGER PRIMARY KEY, code int8[${dims}])`);
conn.exec(`CREATE VIRTUAL TABLE q_simhash USING vec0(node_id INTEGER PRIMARY KEY, code bit[${BITS}])`);
conn.exec("INSERT INTO q_bit(node_id, code) SELECT node_id, vec_quantize_binary(embedding) FROM node_embeddings");
conn.exec("INSERT INTO q_int8(node_id, code) SELECT node_id, vec_quantize_int8(embedding, 'unit') FROM node_embeddings");
for (const row of conn.all<{ node_id: number; embedding: Uint8Array }>("SELECT node_id, embedding FROM node_embeddings")) {
	conn.run("INSERT INTO q_simhash(node_id, code) VALUES (?, vec_bit(?))", [row.node_id, simhash(new Float32Array(row.embedding.slice().buffer))]);
}
conn.exec("COMMIT");
const vectors = Number(conn.get<{ n: number }>("SELECT count(*) AS n FROM node_embeddings")?.n ?? 0);
process.stderr.write(`${vectors} vectors quantised in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);

// Queries as search-speed asks them: three words of the stored text.
const words = conn.all<{ k: string }>("SELECT key_value AS k FROM nodes ORDER BY id LIMIT 5000").flatMap((r) => r.k.split(" ").slice(2));
const pick = seededRandom(7);
const texts = Array.from({ length: queries }, () => [0, 1, 2].map(() => words[Math.floor(pick() * words.length)]).join(" "));

const METHODS: Record<string, { table: string; code: (v: Float32Array) => Uint8Array; match: string }> = {
	bit: { table: "q_bit", code: bytes, match: "vec_quantize_binary(?)" },
	simhash: { table: "q_simhash", code: simhash, match: "vec_bit(?)" },
	int8: { table: "q_int8", code: bytes, match: "vec_quantize_int8(?, 'unit')" },
};

function cpu<T>(fn: () => T): [T, number] {
	const c0 = process.cpuUsage();
	const value = fn();
	const d = process.cpuUsage(c0);
	return [value, (d.user + d.system) / 1000];
}

const lines: string[] = [];
let floatCpu = 0;
const truths = texts.map((t) => {
	const q = bytes(embedder.embedSync(t));
	const [ids, ms] = cpu(() => conn.all<{ node_id: number }>("SELECT node_id FROM node_embeddings WHERE embedding MATCH ? AND k = 10", [q]).map((r) => r.node_id));
	floatCpu += ms;
	return ids;
});
lines.push(`| float scan | – | 1.000 | ${(floatCpu / queries).toFixed(2)} ms |`);
for (const [name, m] of Object.entries(METHODS)) {
	for (const over of oversamples) {
		let overlap = 0;
		let total = 0;
		texts.forEach((t, i) => {
			const v = embedder.embedSync(t);
			const [ids, ms] = cpu(() =>
				conn
					.all<{ node_id: number }>(
						`WITH coarse AS (SELECT node_id FROM ${m.table} WHERE code MATCH ${m.match} AND k = ?)
						SELECT coarse.node_id AS node_id, vec_distance_cosine(e.embedding, ?) AS d FROM coarse JOIN node_embeddings e ON e.node_id = coarse.node_id ORDER BY d LIMIT 10`,
						[m.code(v), 10 * over, bytes(v)],
					)
					.map((r) => r.node_id),
			);
			total += ms;
			overlap += truths[i].filter((id) => ids.includes(id)).length / Math.max(1, truths[i].length);
		});
		lines.push(`| ${name} + float rescore | ${over}× | ${(overlap / queries).toFixed(3)} | ${(total / queries).toFixed(2)} ms |`);
	}
}
console.log(`\nQuantised vector channels, ${vectors} ${dims}-d hash vectors, ${queries} queries; load average ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
console.log("| channel | oversample | top-10 overlap with float | CPU per query |");
console.log("| --- | ---: | ---: | ---: |");
for (const line of lines) console.log(line);
conn.close();
rmSync(dir, { recursive: true, force: true });
