/** Splits `items` into consecutive chunks of at most `size` (size < 1 is treated as 1). */
export function chunk<T>(items: readonly T[], size: number): T[][] {
	const step = Math.max(1, Math.floor(size));
	const out: T[][] = [];
	for (let i = 0; i < items.length; i += step) out.push(items.slice(i, i + step));
	return out;
}

/** Embeds `texts` in batches, in order; one failed batch fails the call (callers retry per batch). */
export async function embedInBatches(
	texts: readonly string[],
	batchSize: number,
	embedBatch: (batch: readonly string[]) => Promise<Float32Array[]>,
): Promise<Float32Array[]> {
	const out: Float32Array[] = [];
	for (const batch of chunk(texts, batchSize)) out.push(...(await embedBatch(batch)));
	return out;
}

/**
 * Padded characters a local model's batch may hold: 32 texts of 30 characters, 2 of 500, a longer
 * text alone. Small batches cost less CPU per text (on obsidian-hub's passages, q8 all-MiniLM-L6-v2:
 * 66–71 texts per CPU-second at 500–1,000 against 44 at 16,000) and hold the runtime's memory
 * to a small batch's (peak RSS 230 MB against 680): npm run bench -- embed-speed, docs/benchmarks-plugin.md.
 */
export const LOCAL_BATCH_CHARS = 1_000;

/**
 * What a local model is asked at once: texts sorted by length, so a batch pads to about its own
 * length (in a vault's order a batch pads to its longest text: 1.96× the characters on
 * obsidian-hub), at most `maxCount` per batch and at most `maxChars` of padded text, so a batch of
 * long passages is small and the runtime's peak memory follows the budget, not the longest note.
 * Returns the texts' indices per batch.
 */
export function lengthBatches(texts: readonly string[], maxCount: number, maxChars: number): number[][] {
	const order = texts.map((_, i) => i).sort((a, b) => texts[a].length - texts[b].length || a - b);
	const out: number[][] = [];
	let current: number[] = [];
	for (const i of order) {
		// Sorted ascending: this text is the batch's longest, so the padded size is count × its length.
		const padded = (current.length + 1) * Math.max(1, texts[i].length);
		if (current.length > 0 && (current.length >= maxCount || padded > maxChars)) {
			out.push(current);
			current = [];
		}
		current.push(i);
	}
	if (current.length > 0) out.push(current);
	return out;
}

/** Embeds `texts` in `lengthBatches`, answering in the texts' own order. */
export async function embedByLength(
	texts: readonly string[],
	limits: { readonly maxCount: number; readonly maxChars: number },
	embedBatch: (batch: readonly string[]) => Promise<Float32Array[]>,
): Promise<Float32Array[]> {
	const out = new Array<Float32Array>(texts.length);
	for (const batch of lengthBatches(texts, limits.maxCount, limits.maxChars)) {
		const vectors = await embedBatch(batch.map((i) => texts[i]));
		batch.forEach((i, k) => (out[i] = vectors[k]!));
	}
	return out;
}
