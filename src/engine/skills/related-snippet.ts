/**
 * A passage as a reader sees it rendered, for a related note's snippet: no heading marks, quote
 * marks, callout types, list bullets, emphasis, code fences or link brackets (a link shows its
 * alias or target), and without a first line that only repeats the note's own title.
 */
export function plainSnippetText(markdown: string, title: string): string {
	const lines = markdown
		.replace(/^---\n[\s\S]*?\n---\n/, "")
		.replace(/```[^\n]*\n?/g, "")
		.split("\n")
		.map(plainLine)
		.filter((line) => line.length > 0);
	if (lines.length > 1 && sameWords(lines[0], title)) lines.shift();
	return lines.join(" ");
}

function plainLine(line: string): string {
	return line
		.replace(/^\s*(?:>\s*)+/, "")
		.replace(/^\[![^\]]*\][+-]?\s*/, "")
		.replace(/^#{1,6}\s+/, "")
		.replace(/^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?/, "")
		.replace(/!?\[\[([^\]|]*?)(?:#[^\]|]*)?(?:\|([^\]]*))?\]\]/g, (_m, target: string, alias?: string) => alias ?? target.split("/").pop() ?? "")
		.replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
		.replace(/(\*\*|__|==|~~|`)/g, "")
		.replace(/(^|\s)[*_](\S[^*_]*\S|\S)[*_](?=\s|$|[.,;:!?])/g, "$1$2")
		.replace(/\$\\space\$/g, "")
		.trim();
}

function sameWords(a: string, b: string): boolean {
	const words = (s: string) => (s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).join(" ");
	return words(a) === words(b);
}
