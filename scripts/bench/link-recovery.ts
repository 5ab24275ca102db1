// Link recovery for related notes: take a real vault, remove the wikilinks from 40 notes chosen by
// a fixed seed (their text stays: a link becomes its alias or its target's name), sync the vault
// into a fresh memory, ask skills.related for each of the 40, and count how many of the notes the
// author had linked from it are in its list of 8 (recall@8; any@8: at least one). Notes that still
// link to it (its backlinks) are left out of what it must find: related shows them apart.
//
// Baselines in the same run, over the same notes:
// - tfidf: cosine of whole-note TF-IDF vectors (sublinear tf, idf = ln(N/df)), every other note.
// - embedding (with a model): cosine of each note's mean passage vector, every other note.
// - tfidf-unlinked, embedding-unlinked: the same with the notes that still link to it removed
//   (what a plain baseline would score if it too showed them apart).
//
// Usage: npm run bench -- link-recovery [--vaults obsidian-help,apuntes] [--models none,minilm]
//        [--notes 40] [--seed 1] [--model-root DIR] [--show N] [--json FILE]
// Vaults: scripts/bench/get-vaults.sh (pinned commits; a missing vault is SKIPped).
// Models: none, minilm (all-MiniLM-L6-v2, scripts/bench/models/prepare-minilm-maven.sh).
// The gym calls linkRecovery() and reads its rows.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseConfig } from "../../src/config/engrama-config";
import { VaultSync } from "../../src/engine";
import { createSkills } from "../../src/engine/host";
import type { EmbeddingProvider } from "../../src/engine/protocols";
import { reindex } from "../../src/engine/search/reindex";
import { FolderVaultSource } from "../../src/nodejs/folder-vault-source";
import { openMemory, type OpenedMemory } from "../../src/nodejs/open-memory";
import { TransformersEmbeddingProvider } from "../../src/nodejs/embedders/transformers-embedding-provider";
import { arg } from "./args";
import { CachedEmbeddingProvider } from "./locomo/vector-cache";
import { seededRandom } from "./stats";

export const LINK_RECOVERY_VAULTS = {
	"obsidian-help": ".bench-out/vaults/obsidian-help-fa179e9",
	apuntes: ".bench-out/vaults/apuntes-7f17b20",
} as const;
export type LinkRecoveryVault = keyof typeof LINK_RECOVERY_VAULTS;
export type LinkRecoveryModel = "none" | "minilm";
const LIST = 8;

export interface LinkRecoveryRow {
	readonly vault: string;
	/** "none" or the model's name. */
	readonly model: string;
	/** related, tfidf, tfidf-unlinked, embedding, embedding-unlinked. */
	readonly method: string;
	readonly recallAt8: number;
	readonly anyAt8: number;
	/** Notes asked about. */
	readonly n: number;
}

export interface LinkRecoveryOptions {
	readonly vaults?: readonly LinkRecoveryVault[];
	readonly models?: readonly LinkRecoveryModel[];
	/** Notes whose links are hidden (default 40). */
	readonly notes?: number;
	readonly seed?: number;
	/** Folder holding Xenova/all-MiniLM-L6-v2 (default .bench-out/models/models). */
	readonly modelRoot?: string;
	/** Prints the lists of the first N notes asked about. */
	readonly show?: number;
	readonly log?: (line: string) => void;
}

interface Note {
	readonly path: string;
	readonly text: string;
}

/** Runs link recovery on each vault present and model asked for; a missing vault is SKIPped loudly. */
export async function linkRecovery(options: LinkRecoveryOptions = {}): Promise<LinkRecoveryRow[]> {
	const { vaults = ["obsidian-help", "apuntes"], models = ["none"], log = (l: string) => console.log(l) } = options;
	const rows: LinkRecoveryRow[] = [];
	for (const vault of vaults) {
		const dir = resolve(LINK_RECOVERY_VAULTS[vault]);
		if (!existsSync(dir)) {
			log(`SKIP ${vault}: no vault at ${dir} (run scripts/bench/get-vaults.sh)`);
			continue;
		}
		for (const model of models) rows.push(...(await runVault(vault, dir, model, options, log)));
	}
	return rows;
}

async function runVault(vault: string, dir: string, model: LinkRecoveryModel, options: LinkRecoveryOptions, log: (l: string) => void): Promise<LinkRecoveryRow[]> {
	const work = mkdtempSync(join(tmpdir(), "engrama-links-"));
	try {
		const notes = readNotes(dir);
		const chosen = chooseNotes(notes, options.notes ?? 40, options.seed ?? 1);
		const hidden = hideLinks(notes, chosen);
		const copy = join(work, "vault");
		// Dereferenced: a vault folder that is a symlink must be copied, not linked (the hidden links
		// would otherwise be written into the shared vault and change every later run).
		cpSync(dir, copy, { recursive: true, dereference: true });
		for (const path of chosen) writeFileSync(join(copy, path), hidden.get(path) ?? "");
		const after = notes.map((n) => ({ path: n.path, text: hidden.get(n.path) ?? n.text }));
		const graph = linkGraph(after);
		const before = linkGraph(notes);
		const asked = chosen
			.map((path) => ({ path, targets: [...(before.out.get(path) ?? [])].filter((t) => !graph.in.get(path)?.has(t)), linking: graph.in.get(path) ?? new Set<string>() }))
			.filter((q) => q.targets.length > 0);
		const t0 = performance.now();
		const embedder = embedderFor(model, options.modelRoot ?? ".bench-out/models/models", work);
		const opened = await openMemory(parseConfig({ backend: "sqlite", dbPath: join(work, "m.db"), orgId: "b", userId: "b" }), { embedder: embedder as EmbeddingProvider | null });
		const sync = new VaultSync({ memory: opened.memory, source: new FolderVaultSource(copy, { watchMode: "fs" }), scope: opened.scope, settings: { writeEngramaIds: false } });
		await sync.fullSync();
		await sync.stop();
		if (embedder) await embed(opened, embedder);
		log(`${vault}: ${notes.length} notes, ${asked.length} asked, synced${embedder ? " and embedded" : ""} in ${((performance.now() - t0) / 1000).toFixed(0)} s (load ${loadavg()[0].toFixed(1)})`);
		const lists = await rankers(opened, after, embedder !== null);
		const rows: LinkRecoveryRow[] = [];
		for (const [method, rank] of lists) {
			let recall = 0;
			let any = 0;
			for (const [i, q] of asked.entries()) {
				const list = (await rank(q.path, q.linking)).slice(0, LIST);
				const found = q.targets.filter((t) => list.includes(t)).length;
				recall += found / q.targets.length;
				any += found > 0 ? 1 : 0;
				if (i < (options.show ?? 0)) log(`[${method}] ${q.path} → want ${q.targets.join(", ")}\n  ${list.map((p) => (q.targets.includes(p) ? `*${p}*` : p)).join("\n  ")}`);
			}
			rows.push({ vault, model: embedder ? model : "none", method, recallAt8: recall / asked.length, anyAt8: any / asked.length, n: asked.length });
		}
		await opened.close();
		return rows;
	} finally {
		rmSync(work, { recursive: true, force: true });
	}
}

type Ranker = (path: string, linking: ReadonlySet<string>) => Promise<string[]>;

/** Each method's ranked paths for a note (never the note itself). */
async function rankers(opened: OpenedMemory, notes: readonly Note[], withModel: boolean): Promise<Map<string, Ranker>> {
	const { memory, scope } = opened;
	const skills = createSkills(memory);
	const nodes = (await memory.graph.listNodes(scope, {})).filter((n) => typeof n.props.obsidian_path === "string");
	const byPath = new Map(nodes.map((n) => [n.props.obsidian_path as string, n]));
	const unlinked = (rank: Ranker): Ranker => async (path, linking) => (await rank(path, linking)).filter((p) => !linking.has(p));
	const tfidf = cosineRanker(tfidfVectors(notes));
	const out = new Map<string, Ranker>([
		[
			"related",
			async (path) => {
				const node = byPath.get(path);
				const view = node ? await skills.related(scope, { label: node.label, name: node.key }) : null;
				return (view?.related ?? []).map((r) => r.path);
			},
		],
		["tfidf", tfidf],
		["tfidf-unlinked", unlinked(tfidf)],
	]);
	if (withModel) {
		const vectors = new Map<string, Float32Array>();
		for (const [path, node] of byPath) {
			const mean = meanOf([...((await memory.graph.passageVectorsOf?.(scope, node.id)) ?? new Map()).values()]);
			if (mean) vectors.set(path, mean);
		}
		// Every note has its passages' vectors (apuntes: 686 of 686): a low baseline is the mean vectors' hubs, not missing ones.
		console.error(`embedding baseline: ${vectors.size} of ${byPath.size} notes have passage vectors`);
		const embedding = cosineRanker(vectors);
		out.set("embedding", embedding);
		out.set("embedding-unlinked", unlinked(embedding));
	}
	return out;
}

function cosineRanker(vectors: ReadonlyMap<string, Float32Array | Map<string, number>>): Ranker {
	return (path) => {
		const own = vectors.get(path);
		if (!own) return Promise.resolve([]);
		const scored = [...vectors].filter(([p]) => p !== path).map(([p, v]) => [p, dot(own, v)] as const);
		return Promise.resolve(scored.sort((a, b) => b[1] - a[1]).slice(0, 50).map(([p]) => p));
	};
}

function dot(a: Float32Array | Map<string, number>, b: Float32Array | Map<string, number>): number {
	let sum = 0;
	if (a instanceof Map && b instanceof Map) for (const [w, x] of a) sum += x * (b.get(w) ?? 0);
	else if (a instanceof Float32Array && b instanceof Float32Array) for (let i = 0; i < a.length; i++) sum += a[i] * b[i];
	return sum;
}

/** Unit TF-IDF vectors of whole notes: sublinear tf (1 + ln tf), idf ln(N / df). */
function tfidfVectors(notes: readonly Note[]): Map<string, Map<string, number>> {
	const counts = notes.map((n) => {
		const tf = new Map<string, number>();
		for (const w of n.text.toLowerCase().match(/\p{L}[\p{L}\p{N}]*/gu) ?? []) tf.set(w, (tf.get(w) ?? 0) + 1);
		return tf;
	});
	const df = new Map<string, number>();
	for (const tf of counts) for (const w of tf.keys()) df.set(w, (df.get(w) ?? 0) + 1);
	const out = new Map<string, Map<string, number>>();
	notes.forEach((n, i) => {
		const v = new Map<string, number>();
		for (const [w, f] of counts[i]) v.set(w, (1 + Math.log(f)) * Math.log(notes.length / (df.get(w) ?? 1)));
		const norm = Math.sqrt([...v.values()].reduce((s, x) => s + x * x, 0)) || 1;
		for (const [w, x] of v) v.set(w, x / norm);
		out.set(n.path, v);
	});
	return out;
}

function meanOf(vectors: readonly Float32Array[]): Float32Array | null {
	if (vectors.length === 0) return null;
	const sum = new Float32Array(vectors[0].length);
	for (const v of vectors) {
		const norm = Math.hypot(...v) || 1;
		for (let i = 0; i < sum.length; i++) sum[i] += v[i] / norm;
	}
	const norm = Math.hypot(...sum) || 1;
	return sum.map((x) => x / norm);
}

function readNotes(dir: string): Note[] {
	const out: Note[] = [];
	const walk = (d: string) => {
		for (const e of readdirSync(d, { withFileTypes: true })) {
			if (e.name.startsWith(".")) continue;
			const full = join(d, e.name);
			if (e.isDirectory()) walk(full);
			else if (e.name.endsWith(".md") && !e.name.endsWith(".excalidraw.md")) out.push({ path: relative(dir, full), text: readFileSync(full, "utf8") });
		}
	};
	walk(dir);
	return out.sort((a, b) => a.path.localeCompare(b.path));
}

const WIKILINK = /(!?)\[\[([^\]|#^]*)([#^][^\]|]*)?(?:\|([^\]]*))?\]\]/g;

/** Outgoing and incoming wikilinks between notes (Obsidian's resolution: a path, else a file name). */
function linkGraph(notes: readonly Note[]): { out: Map<string, Set<string>>; in: Map<string, Set<string>> } {
	const resolveLink = linkResolver(notes);
	const out = new Map<string, Set<string>>();
	const incoming = new Map<string, Set<string>>();
	for (const note of notes) {
		for (const m of note.text.matchAll(WIKILINK)) {
			const target = m[1] ? undefined : resolveLink(m[2]);
			if (!target || target === note.path) continue;
			out.set(note.path, (out.get(note.path) ?? new Set()).add(target));
			incoming.set(target, (incoming.get(target) ?? new Set()).add(note.path));
		}
	}
	return { out, in: incoming };
}

function linkResolver(notes: readonly Note[]): (link: string) => string | undefined {
	const byPath = new Map(notes.map((n) => [n.path.toLowerCase().replace(/\.md$/, ""), n.path]));
	const byName = new Map<string, string>();
	for (const n of notes) {
		const name = n.path.toLowerCase().replace(/\.md$/, "").split("/").pop() ?? "";
		if (!byName.has(name)) byName.set(name, n.path);
	}
	return (link) => {
		const key = link.trim().toLowerCase().replace(/\.md$/, "");
		return key ? (byPath.get(key) ?? byName.get(key.split("/").pop() ?? "")) : undefined;
	};
}

/** The notes whose links are hidden: drawn by seed among notes that link to a note that does not link back. */
function chooseNotes(notes: readonly Note[], count: number, seed: number): string[] {
	const { out, in: incoming } = linkGraph(notes);
	const pool = notes.map((n) => n.path).filter((p) => [...(out.get(p) ?? [])].some((t) => !incoming.get(p)?.has(t)));
	const rand = seededRandom(seed);
	for (let i = pool.length - 1; i > 0; i--) {
		const j = Math.floor(rand() * (i + 1));
		[pool[i], pool[j]] = [pool[j], pool[i]];
	}
	return pool.slice(0, count);
}

/** The chosen notes' text without their wikilinks: each becomes its alias, else its target's name. */
function hideLinks(notes: readonly Note[], chosen: readonly string[]): Map<string, string> {
	const text = new Map(notes.map((n) => [n.path, n.text]));
	return new Map(
		chosen.map((path) => [
			path,
			(text.get(path) ?? "").replace(WIKILINK, (whole, embed: string, target: string, _anchor: string | undefined, alias: string | undefined) =>
				embed ? whole : (alias ?? target.split("/").pop() ?? ""),
			),
		]),
	);
}

function embedderFor(model: LinkRecoveryModel, modelRoot: string, cacheDir: string): CachedEmbeddingProvider | null {
	if (model === "none") return null;
	const root = resolve(modelRoot);
	if (!existsSync(join(root, "Xenova/all-MiniLM-L6-v2"))) throw new Error(`No all-MiniLM-L6-v2 under ${root}: run scripts/bench/models/prepare-minilm-maven.sh`);
	const inner = new TransformersEmbeddingProvider({ model: "Xenova/all-MiniLM-L6-v2", localModelPath: root, cacheDir: join(cacheDir, "hub-cache"), allowRemoteModels: false, dtype: "fp32", batchSize: 32, dimensions: 384 });
	const cache = resolve(".bench-out/link-recovery/vectors");
	mkdirSync(cache, { recursive: true });
	return new CachedEmbeddingProvider(inner, join(cache, "minilm-fp32-vectors.json"), "fp32");
}

async function embed(opened: OpenedMemory, embedder: CachedEmbeddingProvider): Promise<void> {
	const { memory } = opened;
	const report = await reindex({ graph: memory.graph, vectors: memory.vectors, embedder, pipeline: memory.pipeline, write: (job) => memory.write(job) }, opened.scope, { apply: true, batchSize: 32 });
	embedder.save();
	if (report.failed > 0) console.error(`reindex: ${report.failed} failed: ${report.errors.slice(0, 3).join("; ")}`);
}

/** The table the command prints (and docs/benchmarks-search.md holds). */
export function linkRecoveryTable(rows: readonly LinkRecoveryRow[]): string {
	const lines = ["| vault | model | method | recall@8 | any@8 | n |", "|---|---|---|---|---|---|"];
	for (const r of rows) lines.push(`| ${r.vault} | ${r.model} | ${r.method} | ${r.recallAt8.toFixed(3)} | ${r.anyAt8.toFixed(3)} | ${r.n} |`);
	return lines.join("\n");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
	const rows = await linkRecovery({
		vaults: arg("vaults", "obsidian-help,apuntes").split(",") as LinkRecoveryVault[],
		models: arg("models", "none").split(",") as LinkRecoveryModel[],
		notes: Number(arg("notes", "40")),
		seed: Number(arg("seed", "1")),
		modelRoot: arg("model-root", ".bench-out/models/models"),
		show: Number(arg("show", "0")),
	});
	console.log(linkRecoveryTable(rows));
	const json = arg("json", "");
	if (json) writeFileSync(json, JSON.stringify(rows, null, 1));
}
