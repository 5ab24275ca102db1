import { FULLTEXT_FIELDS } from "../node-text";
import type { NodeRecord, PropValue } from "../types";
import { contentWords, isStopword, stem } from "./query-text";

/**
 * Pseudo-relevance feedback without a language model: the words that the best candidates share
 * and the rest of the window does not, for a second fulltext query that finds items sharing no
 * word with the question ("support group" → "transgender", "stories" → the turn that says only those).
 */

function fieldText(value: PropValue | undefined): string {
	if (typeof value === "string") return value;
	if (Array.isArray(value)) return value.filter((v) => typeof v === "string").join(" ");
	return "";
}

/** Stems of the words a node holds in its indexed fields (name, description, context…). */
function stemsOf(node: NodeRecord): Set<string> {
	const text = FULLTEXT_FIELDS.map((f) => fieldText(f === "name" ? node.key : node.props[f])).join(" ");
	const out = new Set<string>();
	for (const word of contentWords(text)) {
		if (word.length < 3 || /^\d+$/.test(word) || isStopword(word)) continue;
		out.add(stem(word));
	}
	return out;
}

/**
 * Up to `maxTerms` stems, best first: each scores the sum of the feedback items' weights it
 * appears in (their rank, 1/r), times ln(1 + window / its documents in the window), a crude idf
 * from the candidates at hand, so words every candidate has ("really", "great") drop out. Stems of
 * the query are left out (they are searched already), and a stem must appear in two feedback
 * items unless only one is given: one item's odd word is noise.
 */
export function feedbackTerms(query: string, feedback: readonly NodeRecord[], window: readonly NodeRecord[], maxTerms: number): string[] {
	if (feedback.length === 0 || maxTerms <= 0) return [];
	const asked = new Set(contentWords(query).map(stem));
	const df = new Map<string, number>();
	for (const node of window) for (const s of stemsOf(node)) df.set(s, (df.get(s) ?? 0) + 1);
	const mass = new Map<string, { weight: number; docs: number }>();
	feedback.forEach((node, i) => {
		for (const s of stemsOf(node)) {
			if (asked.has(s)) continue;
			const m = mass.get(s) ?? { weight: 0, docs: 0 };
			m.weight += 1 / (i + 1);
			m.docs++;
			mass.set(s, m);
		}
	});
	const minDocs = feedback.length > 1 ? 2 : 1;
	const n = Math.max(window.length, feedback.length);
	return [...mass]
		.filter(([, m]) => m.docs >= minDocs)
		.map(([s, m]) => ({ s, score: m.weight * Math.log(1 + n / Math.max(1, df.get(s) ?? 1)) }))
		.sort((a, b) => b.score - a.score || b.s.length - a.s.length || a.s.localeCompare(b.s))
		.slice(0, maxTerms)
		.map((t) => t.s);
}
