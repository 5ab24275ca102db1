// What the panel and the search modal show for a result and for a words-only search.
import { describe, expect, test } from "vitest";
import type { SearchResultView, SearchView } from "../../src/engine/memory";
import { relativeScore, scoreExplanation, wordsOnlyHint } from "../../src/plugin/ui/search-results";
import { relationHeading, relationText } from "../../src/plugin/ui/relation-text";

const view = (cause?: SearchView["degraded_cause"]): SearchView => ({
	query: "q",
	mode: "rrf",
	degraded: cause !== undefined,
	...(cause !== undefined ? { reason: "the engine's reason for agents.", degraded_cause: cause } : {}),
	results: [],
});

describe("the words-only hint", () => {
	test("names what is missing and where in Settings to fix it, as one plain sentence", () => {
		const causes = ["no_embedder", "no_vector_store", "embedder_failed", "no_vectors", "dimension_mismatch", "model_changed", "vector_store_failed", undefined] as const;
		for (const cause of causes) {
			const hint = wordsOnlyHint({ ...view(cause), degraded: true }, false)!;
			expect(hint, String(cause)).toMatch(/^Search matches words only\b/);
			expect(hint, String(cause)).toMatch(/[^.]\.$/);
			expect(hint, String(cause)).not.toMatch(/EMBEDDING_PROVIDER|VECTOR_BACKEND|engrama reindex|--|engrama_[a-z]+\b/);
			expect(hint, String(cause)).toMatch(/Settings → Engrama → Embeddings|Re-embed missing vectors/);
		}
		expect(wordsOnlyHint(view("no_vectors"), false)).toContain("Run the command Re-embed missing vectors.");
		expect(wordsOnlyHint({ ...view("model_changed"), degraded: true }, false)).toMatch(/embedded with another model\. Run the command Re-embed missing vectors/);
		expect(wordsOnlyHint({ ...view("no_vectors"), degraded: true }, true)).toContain("until the local model is downloaded");
		expect(wordsOnlyHint(view(), false)).toBeNull();
	});
});

describe("scores", () => {
	const result = (score: number, scores: Record<string, number> = {}): SearchResultView => ({ score, scores }) as unknown as SearchResultView;

	test("are shown against the best result of the search, rounded, and explained in words", () => {
		expect(relativeScore(result(0.03), 0.04)).toBe(75);
		expect(relativeScore(result(0.04), 0.04)).toBe(100);
		expect(relativeScore(result(0.01), 0)).toBe(0);
		expect(scoreExplanation(result(0.03, { rrf: 0.03, fulltext: 0.8, vector: 0.41, graph: 0 }), 0.04)).toBe(
			"Match 75% of the best result of this search.\nFound by words 0.80, meaning 0.41.",
		);
	});

	test("say when meaning was left out or weighed less for the search's language", () => {
		const english = "the embedding model reads English only and this search is in another language.";
		expect(scoreExplanation(result(0.04, { rrf: 1, fulltext: 1, vector: 0, language_mismatch: 1, fulltext_rank: 1 }), 0.04)).toBe(
			`Match 100% of the best result of this search.\nFound by words 1.00.\nNot found by meaning: ${english}`,
		);
		expect(scoreExplanation(result(0.04, { rrf: 1, fulltext: 1, vector: 0.5, language_mismatch: 1, fulltext_rank: 1, vector_rank: 2 }), 0.04)).toBe(
			`Match 100% of the best result of this search.\nFound by words 1.00, meaning 0.50.\nMeaning counted less: ${english}`,
		);
	});
});

test("relation types read as words", () => {
	expect(relationText("BELONGS_TO")).toBe("belongs to");
	expect(relationHeading("RELATED_TO")).toBe("Related to");
	expect(relationHeading("USES")).toBe("Uses");
});
