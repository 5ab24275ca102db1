/** One section of a WebAssembly binary: id, start (the id byte), body start and end, custom name. */
export interface WasmSection {
	readonly id: number;
	readonly start: number;
	readonly body: number;
	readonly end: number;
	readonly name: string;
}

/** Every section in order. */
export function wasmSections(wasm: Uint8Array): WasmSection[];

/** The limits (in pages) of the module's imported memory (import section), or null. */
export function importedMemoryLimits(wasm: Uint8Array): { initial: number; maximum?: number } | null;
