import type { PassageInput } from "../protocols";
import { contentHash } from "./content-hash";

/**
 * Largest passage, in characters. all-MiniLM-L6-v2 reads 256 word pieces and bge-small 512; at
 * the usual ≈ 4 characters per piece of English prose (an assumption, not yet measured on the
 * vaults here: docs/benchmarks-search.md), 1,000 characters stay inside MiniLM's window with room
 * for the note name and heading path in front. CJK text runs nearer 1 character per piece, so its
 * passages are cut by the encoder.
 */
export const MAX_PASSAGE_CHARS = 1000;
/**
 * Passages per note at most. A note with more pieces (20,000 headings, a 4 MB single line) has
 * consecutive pieces packed into larger passages (`packed`): every word stays searchable, the
 * rows and vectors a note costs stay bounded, and a packed passage's vector sees its start only.
 */
export const MAX_PASSAGES = 400;

const HEADING = /^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

interface Section {
	readonly path: string;
	readonly line: number;
	readonly lines: string[];
}

/** Cuts a section into pieces under MAX_PASSAGE_CHARS: at a blank line once a piece is well filled, else at a line end, a longer line anywhere. */
function pieces(section: Section): { line: number; text: string }[] {
	const out: { line: number; text: string }[] = [];
	let current: string[] = [];
	let currentLine = section.line;
	let size = 0;
	const flush = () => {
		const text = current.join("\n").trim();
		if (/[\p{L}\p{N}]/u.test(text)) out.push({ line: currentLine, text });
		current = [];
		size = 0;
	};
	section.lines.forEach((raw, i) => {
		if (raw.trim() === "") {
			if (size >= MAX_PASSAGE_CHARS * 0.6) flush();
			else if (current.length > 0) current.push(raw);
			return;
		}
		for (let rest = raw; rest.length > 0; rest = rest.slice(MAX_PASSAGE_CHARS)) {
			const part = rest.slice(0, MAX_PASSAGE_CHARS);
			if (size + part.length + 1 > MAX_PASSAGE_CHARS) flush();
			if (current.length === 0) currentLine = section.line + i;
			current.push(part);
			size += part.length + 1;
		}
	});
	flush();
	return out;
}

/**
 * A note's body as passages: one per section (a heading and what follows it until the next
 * heading of any level), long sections cut at paragraph ends. Each keeps its heading path
 * ("Setup > Linux"), the file line it starts on (1-based; `firstLine` is the body's first line,
 * after the frontmatter) and a hash of its heading path and text, so an edit changes only the
 * passages it touches. Headings inside fenced code are text.
 */
export function splitPassages(body: string, firstLine = 1): PassageInput[] {
	const lines = body.split(/\r\n?|\n/);
	const sections: Section[] = [];
	const stack: string[] = [];
	let section: Section = { path: "", line: firstLine, lines: [] };
	let fence: string | null = null;
	lines.forEach((line, i) => {
		const fenceMatch = FENCE.exec(line);
		if (fenceMatch) {
			if (fence === null) fence = fenceMatch[1][0];
			else if (fenceMatch[1][0] === fence) fence = null;
		}
		const heading = fence === null && !fenceMatch ? HEADING.exec(line) : null;
		if (!heading) {
			section.lines.push(line);
			return;
		}
		sections.push(section);
		const level = heading[1].length;
		stack.length = Math.min(stack.length, level - 1);
		while (stack.length < level - 1) stack.push("");
		stack.push(heading[2].trim());
		// The heading line is part of its section's text: its words describe it.
		section = { path: stack.filter(Boolean).join(" > "), line: firstLine + i, lines: [line] };
	});
	sections.push(section);
	const all: Piece[] = [];
	for (const s of sections) for (const piece of pieces(s)) all.push({ heading: s.path, ...piece });
	return (all.length > MAX_PASSAGES ? packed(all) : all).map((p) => ({ ...p, hash: contentHash(`${p.heading}\n${p.text}`) }));
}

interface Piece {
	readonly heading: string;
	readonly line: number;
	readonly text: string;
}

/**
 * At most MAX_PASSAGES passages of consecutive pieces, each under the first's heading and line.
 * Greedy: a passage closes when the next piece would pass `capacity`, so each closed one holds
 * more than capacity − MAX_PASSAGE_CHARS (no piece is longer); with that margin set to
 * total / (MAX_PASSAGES − 1), there are at most MAX_PASSAGES of them.
 */
function packed(all: readonly Piece[]): Piece[] {
	const total = all.reduce((n, p) => n + p.text.length + 2, 0);
	const capacity = MAX_PASSAGE_CHARS + Math.ceil(total / (MAX_PASSAGES - 1));
	const out: Piece[] = [];
	let group: Piece[] = [];
	let size = 0;
	const close = () => {
		if (group.length > 0) out.push({ heading: group[0].heading, line: group[0].line, text: group.map((p) => p.text).join("\n\n") });
		group = [];
		size = 0;
	};
	for (const piece of all) {
		if (size + piece.text.length + 2 > capacity) close();
		group.push(piece);
		size += piece.text.length + 2;
	}
	close();
	return out;
}

/** A section read back for an agent or the panel (`noteSection`). */
export interface NoteSection {
	/** The heading path of the section ("" for the text before the first heading or the whole note). */
	readonly heading: string;
	/** 1-based file lines the text spans. */
	readonly line: number;
	readonly endLine: number;
	readonly text: string;
	/** The section goes on past `maxChars`. */
	readonly truncated: boolean;
}

/**
 * One section of a note's text: the one whose heading path (or last heading) equals `heading`
 * (case and spacing ignored), else the one holding `line`, else the whole body; it runs to the next
 * heading of the same or a higher level, cut at `maxChars`. Null when the heading is not there.
 */
export function noteSection(text: string, bodyLine: number, where: { readonly heading?: string; readonly line?: number }, maxChars: number): NoteSection | null {
	const lines = text.split(/\r\n?|\n/);
	const norm = (h: string) => h.replace(/\s+/g, " ").trim().toLowerCase();
	const headings: { line: number; level: number; path: string; title: string }[] = [];
	const stack: string[] = [];
	let fence: string | null = null;
	for (let i = bodyLine - 1; i < lines.length; i++) {
		const fenceMatch = FENCE.exec(lines[i]);
		if (fenceMatch) fence = fence === null ? fenceMatch[1][0] : fenceMatch[1][0] === fence ? null : fence;
		const heading = fence === null && !fenceMatch ? HEADING.exec(lines[i]) : null;
		if (!heading) continue;
		const level = heading[1].length;
		stack.length = Math.min(stack.length, level - 1);
		while (stack.length < level - 1) stack.push("");
		stack.push(heading[2].trim());
		headings.push({ line: i + 1, level, path: stack.filter(Boolean).join(" > "), title: heading[2].trim() });
	}
	let start: (typeof headings)[number] | undefined;
	if (where.heading !== undefined && where.heading.trim() !== "") {
		const wanted = norm(where.heading);
		start = headings.find((h) => norm(h.path) === wanted) ?? headings.find((h) => norm(h.title) === wanted);
		if (!start) return null;
	} else if (where.line !== undefined) {
		start = [...headings].reverse().find((h) => h.line <= (where.line ?? 0));
	}
	const from = start ? start.line : bodyLine;
	const next = start ? headings.find((h) => h.line > start.line && h.level <= start.level) : undefined;
	const to = next ? next.line - 1 : lines.length;
	const whole = lines.slice(from - 1, to).join("\n").replace(/\s+$/, "");
	return { heading: start?.path ?? "", line: from, endLine: to, text: whole.slice(0, maxChars), truncated: whole.length > maxChars };
}
