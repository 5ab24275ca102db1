import type { EmbedderHealth, EmbeddingProvider } from "../protocols";
import { normalise } from "./dimensions";

/** FNV-1a, 32 bit: stable across platforms and runs. */
function fnv1a(text: string, seed = 0x811c9dc5): number {
	let hash = seed >>> 0;
	for (let i = 0; i < text.length; i++) {
		hash ^= text.charCodeAt(i);
		hash = Math.imul(hash, 0x01000193) >>> 0;
	}
	return hash >>> 0;
}

/** Lowercase words without accents: "Café" and "cafe" are the same feature. */
export function hashTokens(text: string): string[] {
	return (text.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length > 1);
}

/**
 * A real, deterministic embedder with no model: feature hashing of words (weight 1) and their
 * character trigrams (weight 0.5) into a signed bag, L2-normalised. Texts that share words or
 * word stems land close together, so it is good enough to test ranking end to end offline.
 */
export class HashEmbeddingProvider implements EmbeddingProvider {
	readonly name = "hash";
	readonly model: string;

	constructor(readonly dimensions = 256) {
		if (!Number.isInteger(dimensions) || dimensions < 8) throw new RangeError("HashEmbeddingProvider needs at least 8 dimensions.");
		this.model = `hash-${dimensions}`;
	}

	private add(vector: Float32Array, feature: string, weight: number): void {
		const hash = fnv1a(feature);
		const sign = fnv1a(feature, 0x9747b28c) & 1 ? 1 : -1;
		vector[hash % this.dimensions] += sign * weight;
	}

	embedSync(text: string): Float32Array {
		const vector = new Float32Array(this.dimensions);
		for (const word of hashTokens(text)) {
			this.add(vector, `w:${word}`, 1);
			const padded = `^${word}$`;
			for (let i = 0; i + 3 <= padded.length; i++) this.add(vector, `t:${padded.slice(i, i + 3)}`, 0.5);
		}
		return normalise(vector);
	}

	async embed(text: string): Promise<Float32Array> {
		return this.embedSync(text);
	}

	async embedBatch(texts: readonly string[]): Promise<Float32Array[]> {
		return texts.map((t) => this.embedSync(t));
	}

	async health(): Promise<EmbedderHealth> {
		return { ok: true, detail: `hash embedder, ${this.dimensions} dimensions (tests and demos; not semantic)` };
	}
}
