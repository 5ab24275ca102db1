/** vec0 takes vectors as raw float32 bytes; a Float32Array itself is refused by bind(). */
export function vectorBytes(values: readonly number[]): Uint8Array {
	return new Uint8Array(new Float32Array(values).buffer);
}
