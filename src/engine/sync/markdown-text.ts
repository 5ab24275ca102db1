/**
 * The small pieces of Obsidian markdown sync reads: wikilinks, inline tags, the first H1 and the
 * first paragraph. Code blocks, inline code and comments are blanked first so nothing inside
 * them counts as a link or a tag.
 */

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** Replaces fenced code, inline code, %% comments %% and HTML comments with spaces (offsets kept). */
export function maskCode(body: string): string {
	// Most notes have no code and no comments: nothing to blank, no line walk.
	const fenced = body.includes("```") || body.includes("~~~");
	if (!fenced && !body.includes("`") && !body.includes("%%") && !body.includes("<!--")) return body;
	const masked = fenced ? maskFences(body) : body;
	return masked
		.replace(/`[^`\n]*`/g, blank)
		.replace(/%%[\s\S]*?%%/g, blank)
		.replace(/<!--[\s\S]*?-->/g, blank);
}

function maskFences(body: string): string {
	const lines = body.split("\n");
	let fence: string | null = null;
	for (let i = 0; i < lines.length; i++) {
		const line = lines[i];
		const open = mayOpenFence(line) ? FENCE.exec(line) : null;
		if (fence !== null) {
			if (open && open[1][0] === fence[0] && open[1].length >= fence.length) fence = null;
			lines[i] = " ".repeat(line.length);
			continue;
		}
		if (open) {
			fence = open[1];
			lines[i] = " ".repeat(line.length);
		}
	}
	return lines.join("\n");
}

/** FENCE's first test without a regex: up to three spaces, then ` or ~ (most lines fail here). */
function mayOpenFence(line: string): boolean {
	let i = 0;
	while (i < 3 && line.charCodeAt(i) === 32) i++;
	const c = line.charCodeAt(i);
	return c === 96 || c === 126;
}

/** Every character but newlines as a space (a per-character regex replace was a tenth of parsing). */
function blank(text: string): string {
	return text.includes("\n") ? text.split("\n").map((line) => " ".repeat(line.length)).join("\n") : " ".repeat(text.length);
}

/** "Target#Heading|Alias" → "Target"; "#Heading" (a link inside the same note) → "". */
export function linkTarget(inner: string): string {
	let target = inner;
	const pipe = target.indexOf("|");
	if (pipe >= 0) target = target.slice(0, pipe);
	const hash = target.indexOf("#");
	if (hash >= 0) target = target.slice(0, hash);
	const caret = target.indexOf("^");
	if (caret >= 0) target = target.slice(0, caret);
	return target.replace(/\\$/, "").trim();
}

/** A frontmatter value that is a single wikilink: "[[Neo4j]]" → "Neo4j"; otherwise undefined. */
export function wholeWikilink(value: string): string | undefined {
	const match = /^!?\[\[([^\]]*)\]\]$/.exec(value.trim());
	return match ? linkTarget(match[1]) : undefined;
}

// Attachments are linked with the same syntax; only notes become LINKS_TO edges.
const NON_NOTE = /\.(?!md$)[a-z0-9]{1,8}$/i;

/** Distinct note targets of `[[T]]`, `[[T|alias]]`, `[[T#h]]` and `![[T]]` embeds, in order. */
export function bodyWikilinks(maskedBody: string): string[] {
	const seen = new Set<string>();
	const out: string[] = [];
	for (const match of maskedBody.matchAll(/!?\[\[([^\]\n]+?)\]\]/g)) {
		const target = linkTarget(match[1]);
		if (!target || NON_NOTE.test(target)) continue;
		const key = target.toLowerCase();
		if (seen.has(key)) continue;
		seen.add(key);
		out.push(target);
	}
	return out;
}

/**
 * A link target as a vault path when it is written relative to the linking note's folder
 * (`[[./Note]]`, `[[../Other/Note]]`: Obsidian's "relative path to file" link format). Other
 * targets, and relative ones that climb out of the vault, come back as they were.
 */
export function vaultLinkTarget(target: string, notePath: string): string {
	if (!target.startsWith("./") && !target.startsWith("../")) return target;
	const parts = notePath.split("/").slice(0, -1);
	for (const part of target.split("/")) {
		if (part === "." || part === "") continue;
		if (part !== "..") parts.push(part);
		else if (parts.pop() === undefined) return target;
	}
	return parts.join("/");
}

/** Inline `#tags` (letters, digits, `_`, `-`, `/`; not purely numeric), as written, without "#". */
export function inlineTags(maskedBody: string): string[] {
	const out: string[] = [];
	for (const match of maskedBody.matchAll(/(^|[\s(,;])#([\p{L}\p{N}_\-/]+)/gu)) {
		const tag = match[2].replace(/\/+$/, "");
		if (tag && !/^[\d/]+$/.test(tag)) out.push(tag);
	}
	return out;
}

/** Visible text of inline markdown: wikilinks show their alias or target, emphasis marks go. */
export function plainText(text: string): string {
	return text
		.replace(/!?\[\[([^\]|]*)\|([^\]]*)\]\]/g, "$2")
		.replace(/!?\[\[([^\]]*)\]\]/g, (_m, inner: string) => linkTarget(inner) || inner)
		.replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
		.replace(/(\*\*|__|==|~~)(.+?)\1/g, "$2")
		.replace(/(^|\W)[*_](\S(?:.*?\S)?)[*_](?=\W|$)/g, "$1$2")
		.replace(/\s+/g, " ")
		.trim();
}

/** The first `# H1` of the body, as plain text. */
export function firstHeading(maskedBody: string): string | undefined {
	const match = /^ {0,3}#[ \t]+(.+?)[ \t#]*$/m.exec(maskedBody);
	if (!match) return undefined;
	const text = plainText(match[1]);
	return text || undefined;
}

const SKIP_BLOCK = /^ {0,3}(#{1,6}(\s|$)|[-*+]\s|\d+[.)]\s|\||<|!\[\[|---+\s*$|\*\*\*+\s*$|___+\s*$)/;

/**
 * The first paragraph or blockquote (callout titles dropped), as plain text and at most
 * `maxLength` characters. Headings, lists, tables, embeds and code are not descriptions.
 */
export function firstParagraph(maskedBody: string, maxLength = 1000): string | undefined {
	// Blocks one at a time: the first paragraph is usually near the top of a long note.
	const separator = /\n[ \t]*\n/g;
	for (let start = 0; start <= maskedBody.length; ) {
		const match = separator.exec(maskedBody);
		const block = maskedBody.slice(start, match ? match.index : maskedBody.length);
		start = match ? match.index + match[0].length : maskedBody.length + 1;
		const lines = block.split("\n").filter((line) => line.trim() !== "");
		if (lines.length === 0) continue;
		const first = lines[0];
		let text: string;
		if (/^ {0,3}>/.test(first)) {
			const quoted = lines.filter((line) => /^ {0,3}>/.test(line)).map((line) => line.replace(/^ {0,3}>\s?/, ""));
			if (quoted.length > 0 && /^\[![^\]]*\][+-]?/.test(quoted[0])) quoted[0] = quoted[0].replace(/^\[![^\]]*\][+-]?\s*/, "");
			text = plainText(quoted.join(" "));
		} else {
			if (SKIP_BLOCK.test(first)) continue;
			text = plainText(lines.join(" "));
		}
		if (!text) continue;
		return text.length > maxLength ? `${text.slice(0, maxLength - 3)}...` : text;
	}
	return undefined;
}

/**
 * Characters that make a file name lie about itself: bidirectional controls (U+202E shows
 * "Invoice \u202Edm.exe" as "Invoice exe.md"), C0/C1 controls, and invisible zero-width
 * characters. Zero-width joiners (U+200C/U+200D) are left alone: emoji sequences and several
 * scripts need them.
 */
// eslint-disable-next-line no-control-regex -- control characters are what this matches
const DECEPTIVE = /[\u0000-\u001f\u007f-\u009f\u061c\u200b\u200e\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]/g;
/** Characters Windows (and Obsidian, on every platform) refuse in file names. */
const NOT_ON_WINDOWS = /[:*?"<>|]/g;

/**
 * A file name Obsidian and every OS accept, from an entity name: NFC; bidirectional, control and
 * zero-width characters removed; characters that break links or paths
 * (`\ / : * ? " < > | # ^ [ ]`) become spaces; leading dots go; length is bounded.
 */
export function safeFileName(name: string, maxLength = 120): string {
	let safe = name.normalize("NFC").replace(DECEPTIVE, "").replace(/[\\/:*?"<>|#^[\]]/g, " ").replace(/\s+/g, " ").trim();
	safe = safe.replace(/^[.\s]+/, "").replace(/[.\s]+$/, "");
	if (safe.length > maxLength) safe = safe.slice(0, maxLength).trim();
	if (/^(con|prn|aux|nul|com\d|lpt\d)$/i.test(safe)) safe = `${safe} note`;
	return safe || "Untitled";
}

/**
 * What is wrong with an existing note's path as a file name, or undefined: characters that hide
 * or disguise the real name, or that Windows refuses (the vault would not open or sync there).
 */
export function fileNameProblem(path: string): { problem: string; action: string } | undefined {
	const hidden = [...new Set(path.match(DECEPTIVE) ?? [])];
	if (hidden.length > 0) {
		const codes = hidden.map((c) => `U+${c.codePointAt(0)?.toString(16).toUpperCase().padStart(4, "0")}`).join(", ");
		return {
			problem: `Its path contains invisible or text-direction characters (${codes}), so its name may not read as it really is (e.g. "exe.md" shown for "\u202Edm.exe.md").`,
			action: "Rename the note without them if you did not put them there on purpose; it is synced either way.",
		};
	}
	const refused = [...new Set(path.match(NOT_ON_WINDOWS) ?? [])];
	if (refused.length > 0) {
		return {
			problem: `Its path contains ${refused.map((c) => `"${c}"`).join(" ")}, which Windows and Obsidian do not allow in file names.`,
			action: "Rename it if the vault is used on Windows or in Obsidian (links to it may not work there); it is synced either way.",
		};
	}
	return undefined;
}
