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
