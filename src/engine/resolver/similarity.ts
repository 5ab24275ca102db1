/**
 * Python difflib's SequenceMatcher.ratio() (Ratcliff/Obershelp: 2·matches / total length),
 * without the autojunk heuristic, so scores match the Python engrama's resolver on names.
 */
export function similarity(a: string, b: string): number {
	if (a === b) return 1;
	const total = a.length + b.length;
	if (total === 0) return 1;
	return (2 * matchingCharacters(a, b)) / total;
}

function matchingCharacters(a: string, b: string): number {
	const b2j = new Map<string, number[]>();
	for (let j = 0; j < b.length; j++) {
		const list = b2j.get(b[j]);
		if (list) list.push(j);
		else b2j.set(b[j], [j]);
	}
	let matches = 0;
	const stack: [number, number, number, number][] = [[0, a.length, 0, b.length]];
	while (stack.length > 0) {
		const [alo, ahi, blo, bhi] = stack.pop()!;
		const [i, j, k] = longestMatch(a, b2j, alo, ahi, blo, bhi);
		if (k === 0) continue;
		matches += k;
		if (alo < i && blo < j) stack.push([alo, i, blo, j]);
		if (i + k < ahi && j + k < bhi) stack.push([i + k, ahi, j + k, bhi]);
	}
	return matches;
}

/** Leftmost longest common block of a[alo:ahi] and b[blo:bhi], as difflib finds it. */
function longestMatch(
	a: string,
	b2j: Map<string, number[]>,
	alo: number,
	ahi: number,
	blo: number,
	bhi: number,
): [number, number, number] {
	let bestI = alo;
	let bestJ = blo;
	let bestSize = 0;
	let j2len = new Map<number, number>();
	for (let i = alo; i < ahi; i++) {
		const next = new Map<number, number>();
		for (const j of b2j.get(a[i]) ?? []) {
			if (j < blo) continue;
			if (j >= bhi) break;
			const k = (j2len.get(j - 1) ?? 0) + 1;
			next.set(j, k);
			if (k > bestSize) {
				bestI = i - k + 1;
				bestJ = j - k + 1;
				bestSize = k;
			}
		}
		j2len = next;
	}
	return [bestI, bestJ, bestSize];
}
