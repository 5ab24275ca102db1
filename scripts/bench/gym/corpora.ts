/**
 * The gym's corpora: each becomes a memory the way its benchmark builds it, and every question
 * goes through the real HybridSearch once with the default settings (every candidate kept, so
 * other weights re-score it) and, when there is a model, once more with the fulltext channel
 * alone (plain BM25).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Clock } from "../../../src/engine/clock";
import { loadProfile } from "../../../src/engine/profile";
import { HybridSearch, type SearchHit, type SearchSettings } from "../../../src/engine/search/hybrid-search";
import type { NodeRecord } from "../../../src/engine/types";
import { NOTE_PROPS } from "../../../src/engine/sync/note-index";
import type { OpenedMemory } from "../../../src/nodejs/open-memory";
import { parseLocomo } from "../locomo/dataset";
import { askedAt, loadConversation, warmEmbedder, type TurnContext } from "../locomo/load-conversation";
import profileText from "../locomo/profile.yaml";
import type { CachedEmbeddingProvider } from "../locomo/vector-cache";
import type { QuestionFile } from "../vault-retrieval/scoring";
import { chooseNotes, openEmbedded, syncFresh, vaultEmbedder, type ModelName } from "../vault-retrieval/vault-memory";
import { checkRescore, plainFusion } from "./terms";

/** One question's searches, kept small: ids and signals only, with the answers marked. */
export interface Asked {
	/** The conversation (LoCoMo) or 0: leave-one-out over LoCoMo works by conversation too. */
	readonly group: number;
	/** Every candidate of the default search, the engine's order. */
	readonly hits: readonly SearchHit[];
	/** The fulltext channel alone, in bm25 order. */
	readonly bm25: readonly string[];
	readonly answers: ReadonlySet<string>;
	readonly latencyMs: number;
}

export interface CorpusRun {
	readonly corpus: string;
	readonly model: ModelName;
	/** hit@k of the note (vaults, k 5) or any evidence turn (LoCoMo, k 10). */
	readonly k: number;
	readonly measure: string;
	readonly asked: readonly Asked[];
	/** Pages where the gym's re-scoring disagreed with the engine (should be 0). */
	readonly rescoreMismatches: number;
	readonly notes: string;
}

export interface VaultCorpus {
	readonly name: string;
	readonly vault: string;
	readonly questions: string;
	/** Sync only the questions' notes plus this many others (seed 1): the whole vault is too slow with a model. */
	readonly distractors?: number;
	readonly hint: string;
}

const slim = (hit: SearchHit): SearchHit => ({ node: { id: hit.node.id } as NodeRecord, score: hit.score, signals: hit.signals });

/** Both searches of one question. */
async function ask(engine: HybridSearch, opened: OpenedMemory, question: string, withModel: boolean): Promise<{ hits: SearchHit[]; bm25: string[]; latencyMs: number }> {
	const t0 = performance.now();
	const outcome = await engine.search(opened.scope, question, { limit: 200 });
	const latencyMs = performance.now() - t0;
	const words = withModel ? (await engine.search(opened.scope, question, { limit: 200, channels: { vector: false }, graph: false, temporal: false })).hits : outcome.hits;
	return { hits: [...outcome.hits], bm25: plainFusion(words, 10).map((h) => h.node.id), latencyMs };
}

/** The memory's search engine, with `settings` over its own (the gym's --settings: a change to the channels, searched again). */
function engineOf(opened: OpenedMemory, clock: Clock, settings: Partial<SearchSettings> = {}): HybridSearch {
	const { memory } = opened;
	return new HybridSearch({ graph: memory.graph, vectors: memory.vectors, embedder: memory.embedder, clock, settings: { ...memory.searcher.settings, ...settings } });
}

/** A vault corpus, or a line saying why it was skipped. */
export async function runVault(corpus: VaultCorpus, model: ModelName, modelRoot: string, dtype: "q8" | "fp32" = "q8", settings: Partial<SearchSettings> = {}): Promise<CorpusRun | string> {
	const vaultDir = resolve(corpus.vault);
	if (!existsSync(vaultDir)) return `SKIP ${corpus.name}: no vault at ${corpus.vault} (${corpus.hint})`;
	const file = JSON.parse(readFileSync(corpus.questions, "utf8")) as QuestionFile;
	const pinned = join(vaultDir, ".pinned-commit");
	if (file.commit && existsSync(pinned) && readFileSync(pinned, "utf8").trim() !== file.commit) return `SKIP ${corpus.name}: ${corpus.vault} is not commit ${file.commit}`;
	const notes = await chooseNotes(vaultDir, new Set(file.questions.map((q) => q.note)), corpus.distractors);
	const work = mkdtempSync(join(tmpdir(), "engrama-gym-"));
	try {
		const synced = await syncFresh(vaultDir, notes, work);
		const embedder = vaultEmbedder(model, modelRoot, dtype, resolve(".bench-out/gym/vectors", corpus.name));
		const { opened, embedSeconds } = await openEmbedded(synced.dbPath, embedder, {}, `${corpus.name} ${model}`);
		const engine = engineOf(opened, opened.memory.clock, settings);
		const asked: Asked[] = [];
		let mismatches = 0;
		for (const q of file.questions) {
			const { hits, bm25, latencyMs } = await ask(engine, opened, q.question, embedder !== null);
			const answers = new Set(hits.filter((h) => h.node.props[NOTE_PROPS.path] === q.note).map((h) => h.node.id));
			for (const id of bm25) if (!answers.has(id) && (await opened.memory.graph.getNodeById(opened.scope, id))?.props[NOTE_PROPS.path] === q.note) answers.add(id);
			if (!checkRescore(hits, 5)) mismatches++;
			asked.push({ group: 0, hits: hits.map(slim), bm25, answers, latencyMs });
		}
		embedder?.save();
		await opened.close();
		const how = `${notes.length} notes${corpus.distractors !== undefined ? ` (questions' notes + ${corpus.distractors} others)` : ""}, sync ${synced.syncSeconds.toFixed(0)} s${embedSeconds !== undefined ? `, embed ${embedSeconds.toFixed(0)} s` : ""}`;
		return { corpus: corpus.name, model, k: 5, measure: "note hit@5", asked, rescoreMismatches: mismatches, notes: how };
	} finally {
		rmSync(work, { recursive: true, force: true });
	}
}

/** LoCoMo: one memory per conversation (turns with the turn they answer), categories 1–4, any evidence turn in the top 10. */
export async function runLocomo(
	file: string,
	model: ModelName,
	embedder: CachedEmbeddingProvider | null,
	conversations: number,
	settings: Partial<SearchSettings> = {},
	context: TurnContext = "previous",
): Promise<CorpusRun | string> {
	if (!existsSync(file)) return `SKIP locomo: no ${file}`;
	const profile = loadProfile([{ file: "scripts/bench/locomo/profile.yaml", text: profileText }]);
	const convs = parseLocomo(JSON.parse(readFileSync(file, "utf8"))).slice(0, conversations);
	const asked: Asked[] = [];
	let mismatches = 0;
	for (const [ci, conv] of convs.entries()) {
		if (embedder) await warmEmbedder(embedder, conv, context);
		const { opened, turnIds } = await loadConversation(conv, profile, embedder, context);
		const engine = engineOf(opened, askedAt(conv), settings);
		for (const q of conv.questions) {
			if (q.category < 1 || q.category > 4 || q.evidence.length === 0) continue;
			const { hits, bm25, latencyMs } = await ask(engine, opened, q.question, embedder !== null);
			const answers = new Set([...turnIds].filter(([, dia]) => q.evidence.includes(dia)).map(([id]) => id));
			if (!checkRescore(hits, 10)) mismatches++;
			asked.push({ group: ci, hits: hits.map(slim), bm25, answers, latencyMs });
		}
		await opened.close();
		embedder?.save();
		process.stderr.write(`locomo ${model}: ${conv.id} done\n`);
	}
	return { corpus: "locomo", model, k: 10, measure: "any@10", asked, rescoreMismatches: mismatches, notes: `${convs.length} conversations, turn context ${context}` };
}

/** Every run with its candidates and signals, so other weights can be tried without searching again. */
export function saveRuns(file: string, runs: readonly CorpusRun[]): void {
	const plain = runs.map((r) => ({ ...r, asked: r.asked.map((a) => ({ ...a, answers: [...a.answers] })) }));
	writeFileSync(file, JSON.stringify(plain));
}

/** Runs kept by saveRuns. */
export function loadRuns(file: string): CorpusRun[] {
	const plain = JSON.parse(readFileSync(file, "utf8")) as (Omit<CorpusRun, "asked"> & { asked: (Omit<Asked, "answers"> & { answers: string[] })[] })[];
	return plain.map((r) => ({ ...r, asked: r.asked.map((a) => ({ ...a, answers: new Set(a.answers) })) }));
}
