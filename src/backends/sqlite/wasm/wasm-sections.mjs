// Reads the section layout of a WebAssembly binary. Plain JavaScript so the build (the esbuild
// plugin, run by Node) and the runtime (the worker warm-up, bundled) share one reader.

/** A cursor over a WebAssembly binary from the first section on (after magic and version). */
function reader(wasm) {
	const r = {
		at: 8,
		/** One unsigned LEB128 number. */
		leb() {
			let value = 0;
			let shift = 0;
			let byte;
			do {
				byte = wasm[r.at++] ?? 0;
				value += (byte & 0x7f) * 2 ** shift;
				shift += 7;
			} while (byte & 0x80);
			return value;
		},
		/** A length-prefixed name, as bytes. */
		name() {
			const length = r.leb();
			const bytes = wasm.subarray(r.at, r.at + length);
			r.at += length;
			return bytes;
		},
	};
	return r;
}

/** Every section in order: its id, where it starts (the id byte), where its body starts and ends. */
export function wasmSections(wasm) {
	const r = reader(wasm);
	const sections = [];
	while (r.at < wasm.length) {
		const start = r.at;
		const id = wasm[r.at++];
		const size = r.leb();
		const body = r.at;
		let name = "";
		if (id === 0) name = new TextDecoder().decode(r.name());
		sections.push({ id, start, body, end: body + size, name });
		r.at = body + size;
	}
	return sections;
}

/** The limits (in pages) of the module's imported memory (import section), or null. */
export function importedMemoryLimits(wasm) {
	const imports = wasmSections(wasm).find((s) => s.id === 2);
	if (!imports) return null;
	const r = reader(wasm);
	r.at = imports.body;
	for (let count = r.leb(); count > 0; count--) {
		r.name();
		r.name();
		const kind = wasm[r.at++];
		if (kind === 0) r.leb();
		else if (kind === 1) {
			r.at++;
			const flags = r.leb();
			r.leb();
			if (flags & 1) r.leb();
		} else if (kind === 2) {
			const flags = r.leb();
			const initial = r.leb();
			return flags & 1 ? { initial, maximum: r.leb() } : { initial };
		} else if (kind === 3) r.at += 2;
		else return null;
	}
	return null;
}
