import { describe, expect, it } from "vitest";
import { chooseLeavingOneOut } from "../../scripts/bench/gym/choose";
import type { Asked, CorpusRun } from "../../scripts/bench/gym/corpora";
import { DEFAULT_WEIGHTS, rescore } from "../../scripts/bench/gym/terms";
import { rrfFuse } from "../../src/engine/search/fusion";
import type { SearchHit, SignalScores } from "../../src/engine/search/hybrid-search";
import type { NodeRecord } from "../../src/engine/types";

const ZERO: SignalScores = { fulltext: 0, vector: 0, fusion: 0, graph: 0, cohesion: 0, anchor: 0, temporal: 0, trust: 0, date: 0, when: 0, penalty: 0, name: 0 };
const hit = (id: string, signals: Partial<SignalScores>): SearchHit => ({ node: { id } as NodeRecord, score: 0, signals: { ...ZERO, ...signals } });

/** One question: "good" has the better words score, "linked" the better graph term. */
function asked(answer: string): Asked {
	const hits = [hit("good", { fusion: 1, fulltext: 1, fulltextRank: 1 }), hit("linked", { fusion: 0.98, fulltext: 0.5, cohesion: 1, fulltextRank: 2 })];
	return { group: 0, hits, bm25: ["good", "linked"], answers: new Set([answer]), latencyMs: 0 };
}
const run = (corpus: string, answer: string, n: number): CorpusRun => ({ corpus, model: "none", k: 1, measure: "hit@1", asked: Array.from({ length: n }, () => asked(answer)), rescoreMismatches: 0, notes: "" });

describe("retrieval gym", () => {
	it("re-fuses the candidates with another RRF constant from the ranks they kept, as the engine fuses them", () => {
		const k = DEFAULT_WEIGHTS.rrfK / 2;
		const fused = rrfFuse(["a", "b", "c"], ["c", "a"], k);
		const hits = [...fused].map(([id, f]) => hit(id, { fusion: 0, fulltextRank: f.fulltextRank, vectorRank: f.vectorRank }));
		const page = rescore(hits, { ...DEFAULT_WEIGHTS, rrfK: k, graphWeight: 0, temporalWeight: 0, trustWeight: 0, fulltextWeight: 0, vectorWeight: 0 }, 3);
		for (const h of page) expect(h.signals.fusion).toBeCloseTo(fused.get(h.node.id)?.score ?? -1, 12);
		expect(page.map((h) => h.node.id)).toEqual(["a", "c", "b"]);
	});

	it("re-fuses a query the engine flagged (English-only model, another language) at the vector share asked for", () => {
		const k = DEFAULT_WEIGHTS.rrfK;
		const plain = { ...DEFAULT_WEIGHTS, graphWeight: 0, temporalWeight: 0, trustWeight: 0, fulltextWeight: 0 };
		for (const share of [0, 0.5, 1]) {
			const fused = rrfFuse(["a", "b"], ["b", "c"], k, undefined, share);
			const hits = [...fused].map(([id, f]) => hit(id, { fusion: 0, vector: id === "a" ? 0 : 0.9, fulltextRank: f.fulltextRank, vectorRank: f.vectorRank, languageMismatch: 1 }));
			const page = rescore(hits, { ...plain, foreignVectorShare: share }, 3);
			for (const h of page) {
				expect(h.signals.fusion).toBeCloseTo(fused.get(h.node.id)?.score ?? -1, 12);
				expect(h.score).toBeCloseTo(h.signals.fusion + plain.vectorWeight * share * h.signals.vector, 12);
			}
		}
	});

	it("chooses each held-out corpus's weights on the other corpora, each corpus weighing the same", () => {
		// The graph term helps one large corpus and hurts two small ones. The large one does not outvote the
		// rest by its size: left out, a small one is a tie (large for, small against), which goes to the earlier option.
		const runs = [run("large", "linked", 100), run("small-a", "good", 3), run("small-b", "good", 3)];
		const plain = { ...DEFAULT_WEIGHTS, fulltextWeight: 0, vectorWeight: 0 };
		const options = [{ ...plain, graphWeight: 0 }, { ...plain, graphWeight: 0.1 }];
		expect(chooseLeavingOneOut(runs, options)).toEqual([
			{ heldOut: "large", chosen: 0 },
			{ heldOut: "small-a", chosen: 0 },
			{ heldOut: "small-b", chosen: 0 },
		]);
		// Two corpora the graph helps: only the corpus it hurts, left out, is given the graph (both others chose it).
		const helped = [run("large", "linked", 100), run("small-a", "linked", 3), run("small-b", "good", 3)];
		expect(chooseLeavingOneOut(helped, options).map((f) => f.chosen)).toEqual([0, 0, 1]);
	});
});
