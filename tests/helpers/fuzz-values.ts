/**
 * Hostile values for fuzzing the MCP bridge, shared by tests/mcp/fuzz.test.ts (in-process bridge,
 * MCP client) and scripts/bench/mcp-fuzz.ts (`engrama serve` over raw HTTP). Deterministic for a
 * given random source, so a failure can be replayed from its seed.
 */

/** Deterministic PRNG (mulberry32). */
export function mulberry32(seed: number): () => number {
	let a = seed;
	return () => {
		a = (a + 0x6d2b79f5) | 0;
		let t = Math.imul(a ^ (a >>> 15), 1 | a);
		t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

/** Query, template and shell injection attempts: must reach the store as plain text, or be refused. */
export const INJECTIONS = [
	"'; DROP TABLE nodes; --",
	'" OR 1=1 --',
	"Robert'); DELETE FROM edges WHERE ('1'='1",
	"MATCH (n) DETACH DELETE n",
	"name) RETURN n //",
	'NEAR(a b) OR "x" * ^ : -',
	"{{constructor.constructor('return process')()}}",
	"<script>alert(1)</script>",
	"../../../etc/passwd",
	"$(rm -rf /)",
	"`id`",
	"__proto__",
	"constructor",
	"%s%s%s%n",
];

/** Lone surrogates, bidi overrides, zero widths, NFD, BOM, NUL, line separators, other scripts, blanks. */
export const ODD_UNICODE = [
	"\ud800",
	"a\udfffb",
	"\u202eevil\u202c",
	"zero\u200bwidth",
	"👩‍👩‍👧‍👦 family",
	"e\u0301cole",
	"école",
	"\ufeffBOM name",
	"\u0000nul",
	"tab\tand\nnewline",
	"𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
	"Ωmega ünïcödé 漢字 العربية",
	"\u0085\u2028\u2029",
	" ",
	"",
];

/** Labels and relation types in the right, wrong and unknown cases. */
export const LABELISH = ["Project", "project", "PROJECT", "Concept", "Technology", "Spaceship", "Insight", "Note", "", "USES", "LOVES", "uses"];

/** Argument names of the fourteen tools (and a few that none has). */
export const ARG_KEYS = [
	"label", "properties", "relations", "name", "query", "limit", "hops", "from_name", "from_label", "rel_type", "to_name", "to_label",
	"path", "dry_run", "source", "source_type", "mode", "title", "action", "target_note", "labels", "valid_at", "force_new", "folder",
];

export interface FuzzValues {
	readonly pick: <T>(items: readonly T[]) => T;
	/** Any JSON-ish value: wrong types, huge strings and lists, injections, odd unicode, nested junk. */
	readonly junk: (depth?: number) => unknown;
	/** An arguments object of 1–5 random tool argument names with junk values. */
	readonly junkArgs: () => Record<string, unknown>;
}

export function fuzzValues(rand: () => number): FuzzValues {
	const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)];
	const junk = (depth = 0): unknown => {
		switch (Math.floor(rand() * 12)) {
			case 0:
				return null;
			case 1:
				return rand() * 1e12 - 5e11;
			case 2:
				return pick<unknown>([NaN.toString(), Infinity.toString(), 1e308, -0, -1, 0.5, 2 ** 53 + 1]);
			case 3:
				return rand() < 0.5;
			case 4:
				return pick(INJECTIONS);
			case 5:
				return pick(ODD_UNICODE);
			case 6:
				return "x".repeat(pick([501, 2_001, 20_000, 300_000]));
			case 7:
				return depth > 3 ? [] : Array.from({ length: Math.floor(rand() * 4) }, () => junk(depth + 1));
			case 8:
				return depth > 3 ? {} : Object.fromEntries(Array.from({ length: Math.floor(rand() * 4) }, () => [pick([...INJECTIONS, ...ODD_UNICODE, "name", "label", "__proto__"]), junk(depth + 1)]));
			case 9:
				return pick(LABELISH);
			case 10:
				return Array.from({ length: 2000 }, (_, i) => i);
			default:
				return `name ${Math.floor(rand() * 50)}`;
		}
	};
	const junkArgs = (): Record<string, unknown> => Object.fromEntries(Array.from({ length: 1 + Math.floor(rand() * 5) }, () => [pick(ARG_KEYS), junk()]));
	return { pick, junk, junkArgs };
}
