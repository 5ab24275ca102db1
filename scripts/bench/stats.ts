/** Small helpers shared by the benchmark scripts. */
export function percentile(samples: readonly number[], p: number): number {
	if (samples.length === 0) return Number.NaN;
	const sorted = [...samples].sort((a, b) => a - b);
	const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
	return sorted[index];
}

export function fmt(ms: number): string {
	return ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : `${ms.toFixed(2)} ms`;
}

export async function time<T>(fn: () => Promise<T>): Promise<[T, number]> {
	const start = performance.now();
	const value = await fn();
	return [value, performance.now() - start];
}

/** A deterministic pseudo-random generator so runs are comparable. */
export function seededRandom(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

export const WORDS = (
	"cache queue token retry index shard replica schema migration latency throughput backpressure idempotency " +
	"consensus lease lock journal snapshot vector embedding graph traversal cohesion anchor decay confidence " +
	"invoice billing client course lesson module exercise oauth refresh rotation grace window webhook signature " +
	"parser tokenizer lexer compiler runtime sandbox container kernel driver socket stream buffer codec " +
	"gradient optimizer dataset benchmark recall precision ranking fusion rerank hybrid fulltext bm25"
).split(" ");

const SYLLABLES = "ka ro mi tu le sa no vi da pe lo ri zu ne ha mo ti ba ce fu go ji ku".split(" ");

/** A 3,000-word vocabulary: the technical words above first (most frequent), then made-up ones. */
const VOCABULARY: string[] = (() => {
	const words = [...WORDS];
	for (let i = 0; words.length < 3000; i++) {
		let n = i;
		let word = "";
		do {
			word += SYLLABLES[n % SYLLABLES.length];
			n = Math.floor(n / SYLLABLES.length);
		} while (n > 0);
		words.push(`${word}x`);
	}
	return words;
})();

// Zipf (s = 1.1) cumulative weights: a few words are common, most are rare, as in real notes.
const ZIPF: number[] = (() => {
	const weights = VOCABULARY.map((_, rank) => 1 / Math.pow(rank + 1, 1.1));
	const total = weights.reduce((a, b) => a + b, 0);
	let acc = 0;
	return weights.map((w) => (acc += w / total));
})();

export function word(rand: () => number): string {
	const r = rand();
	let lo = 0;
	let hi = ZIPF.length - 1;
	while (lo < hi) {
		const mid = (lo + hi) >> 1;
		if (ZIPF[mid] < r) lo = mid + 1;
		else hi = mid;
	}
	return VOCABULARY[lo];
}

/** Text with Zipf-distributed words, so fulltext matches look like a real vault's. */
export function sentence(rand: () => number, words: number): string {
	const out: string[] = [];
	for (let i = 0; i < words; i++) out.push(word(rand));
	return out.join(" ");
}
