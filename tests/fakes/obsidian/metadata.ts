// MetadataCache (frontmatter, links, tags, headings) and FileManager (processFrontMatter, renames). Part of the one fake of `obsidian`: import it through tests/fakes/obsidian.ts.
import { parse as parseYamlText, parseDocument, stringify as stringifyYamlValue } from "yaml";
import { App } from "./app";
import { Events } from "./events";
import { getLinkpath, normalizePath } from "./util";
import { type DataWriteOptions, nameOf, parentOf, TAbstractFile, TFile, TFolder, Vault } from "./vault";

export interface Loc {
	line: number;
	col: number;
	offset: number;
}

export interface Pos {
	start: Loc;
	end: Loc;
}

export interface LinkCache {
	link: string;
	original: string;
	displayText?: string;
	position: Pos;
}

export interface TagCache {
	tag: string;
	position: Pos;
}

export interface HeadingCache {
	heading: string;
	level: number;
	position: Pos;
}

export interface CachedMetadata {
	links?: LinkCache[];
	embeds?: LinkCache[];
	tags?: TagCache[];
	headings?: HeadingCache[];
	frontmatter?: Record<string, unknown>;
	frontmatterPosition?: Pos;
	frontmatterLinks?: (LinkCache & { key: string })[];
}

/** Line starts of the text last asked about: positions are computed by binary search, not a rescan. */
let lineStartsFor: { text: string; starts: number[] } | null = null;

function locAt(text: string, offset: number): Loc {
	if (lineStartsFor?.text !== text) {
		const starts = [0];
		for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
		lineStartsFor = { text, starts };
	}
	const { starts } = lineStartsFor;
	let lo = 0;
	let hi = starts.length - 1;
	while (lo < hi) {
		const mid = (lo + hi + 1) >> 1;
		if ((starts[mid] ?? 0) <= offset) lo = mid;
		else hi = mid - 1;
	}
	return { line: lo, col: offset - (starts[lo] ?? 0), offset };
}

const FRONTMATTER = /^---\r?\n([\s\S]*?)\r?\n?---(?:\r?\n|$)/;

/** Obsidian-like parse of a note: frontmatter (YAML), links, embeds, tags, headings. */
export function parseMarkdownMetadata(raw: string): CachedMetadata {
	const text = raw.startsWith("\uFEFF") ? raw.slice(1) : raw;
	const cache: CachedMetadata = {};
	let bodyStart = 0;
	const fm = FRONTMATTER.exec(text);
	if (fm) {
		bodyStart = fm[0].length;
		cache.frontmatterPosition = { start: locAt(text, 0), end: locAt(text, fm[0].trimEnd().length) };
		try {
			const value: unknown = parseYamlText(fm[1] ?? "");
			if (value && typeof value === "object" && !Array.isArray(value)) cache.frontmatter = value as Record<string, unknown>;
		} catch {
			// Obsidian shows invalid YAML as no frontmatter.
		}
		if (cache.frontmatter) {
			const links: (LinkCache & { key: string })[] = [];
			const visit = (key: string, v: unknown) => {
				if (typeof v === "string") {
					const m = /^\[\[([^\]|#]*)(?:#[^\]|]*)?(?:\|([^\]]*))?\]\]$/.exec(v.trim());
					if (m) links.push({ key, link: m[1] ?? "", original: v, displayText: m[2] ?? m[1], position: cache.frontmatterPosition! });
				} else if (Array.isArray(v)) v.forEach((item, i) => visit(`${key}.${i}`, item));
				else if (v && typeof v === "object") for (const [k, item] of Object.entries(v)) visit(`${key}.${k}`, item);
			};
			for (const [k, v] of Object.entries(cache.frontmatter)) visit(k, v);
			if (links.length > 0) cache.frontmatterLinks = links;
		}
	}
	const body = text.slice(bodyStart).replace(/```[\s\S]*?```|`[^`\n]*`/g, (m) => " ".repeat(m.length));
	const links: LinkCache[] = [];
	const embeds: LinkCache[] = [];
	for (const m of body.matchAll(/(!?)\[\[([^\]\n]+?)\]\]/g)) {
		const inner = m[2] ?? "";
		const bar = inner.indexOf("|");
		const target = bar < 0 ? inner : inner.slice(0, bar);
		const offset = bodyStart + (m.index ?? 0);
		const entry: LinkCache = {
			link: target.trim(),
			original: m[0],
			displayText: bar < 0 ? target.trim() : inner.slice(bar + 1),
			position: { start: locAt(text, offset), end: locAt(text, offset + m[0].length) },
		};
		(m[1] ? embeds : links).push(entry);
	}
	if (links.length > 0) cache.links = links;
	if (embeds.length > 0) cache.embeds = embeds;
	const tags: TagCache[] = [];
	for (const m of body.matchAll(/(^|\s)(#[\p{L}\p{N}_/-]*[\p{L}_/-][\p{L}\p{N}_/-]*)/gu)) {
		const offset = bodyStart + (m.index ?? 0) + (m[1]?.length ?? 0);
		tags.push({ tag: m[2] ?? "", position: { start: locAt(text, offset), end: locAt(text, offset + (m[2]?.length ?? 0)) } });
	}
	if (tags.length > 0) cache.tags = tags;
	const headings: HeadingCache[] = [];
	for (const m of body.matchAll(/^(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$/gm)) {
		const offset = bodyStart + (m.index ?? 0);
		headings.push({ heading: m[2] ?? "", level: m[1]?.length ?? 1, position: { start: locAt(text, offset), end: locAt(text, offset + m[0].length) } });
	}
	if (headings.length > 0) cache.headings = headings;
	return cache;
}

export class MetadataCache extends Events {
	private readonly caches = new Map<string, CachedMetadata>();
	resolvedLinks: Record<string, Record<string, number>> = {};
	unresolvedLinks: Record<string, Record<string, number>> = {};

	constructor(private readonly vault: Vault) {
		super();
		vault.metadata = this;
		for (const file of vault.getMarkdownFiles()) this.index(file);
		this.resolveAll();
	}

	getFileCache(file: TFile): CachedMetadata | null {
		return this.caches.get(file.path) ?? null;
	}

	getCache(path: string): CachedMetadata | null {
		return this.caches.get(normalizePath(path)) ?? null;
	}

	getFirstLinkpathDest(linkpath: string, sourcePath: string): TFile | null {
		const target = getLinkpath(linkpath).trim();
		if (target === "") return this.vault.getFileByPath(sourcePath);
		const withExt = /\.[a-z0-9]+$/i.test(target) ? target : `${target}.md`;
		const exact = this.vault.getFileByPath(withExt);
		if (exact) return exact;
		const candidates = this.vault.filesNamed(nameOf(withExt)).filter((f) => !target.includes("/") || f.path.toLowerCase().endsWith(withExt.toLowerCase()));
		if (candidates.length === 0) return null;
		// Obsidian prefers the file closest to the source note.
		const sourceFolder = parentOf(sourcePath);
		return candidates.find((f) => parentOf(f.path) === sourceFolder) ?? candidates.sort((a, b) => a.path.length - b.path.length)[0] ?? null;
	}

	fileToLinktext(file: TFile, _sourcePath: string, omitMdExtension = true): string {
		const unique = this.vault.filesNamed(file.name).length === 1;
		const base = unique ? file.name : file.path;
		return omitMdExtension && base.endsWith(".md") ? base.slice(0, -3) : base;
	}

	/** @internal Vault hook: re-parse a file's text now (Obsidian does it right after a write). */
	index(file: TFile): void {
		if (file.extension !== "md") return;
		let text = "";
		try {
			text = this.vault.fsys.read(file.path);
		} catch {
			return;
		}
		this.caches.set(file.path, parseMarkdownMetadata(text));
		this.resolveOne(file.path);
	}

	/** @internal fires "changed" after the vault event, like Obsidian's asynchronous indexer. */
	announce(file: TFile): void {
		const cache = this.caches.get(file.path);
		if (!cache) return;
		queueMicrotask(() => {
			const text = (() => {
				try {
					return this.vault.fsys.read(file.path);
				} catch {
					return "";
				}
			})();
			this.trigger("changed", file, text, cache);
			this.trigger("resolved");
		});
	}

	/** @internal */
	move(oldPath: string, file: TFile): void {
		const cache = this.caches.get(oldPath);
		this.caches.delete(oldPath);
		delete this.resolvedLinks[oldPath];
		delete this.unresolvedLinks[oldPath];
		if (cache) this.caches.set(file.path, cache);
		this.resolveAll();
	}

	/** @internal */
	drop(file: TFile): void {
		const cache = this.caches.get(file.path);
		this.caches.delete(file.path);
		delete this.resolvedLinks[file.path];
		delete this.unresolvedLinks[file.path];
		if (cache) queueMicrotask(() => this.trigger("deleted", file, cache));
	}

	private resolveAll(): void {
		for (const path of this.caches.keys()) this.resolveOne(path);
	}

	private resolveOne(path: string): void {
		const cache = this.caches.get(path);
		const resolved: Record<string, number> = {};
		const unresolved: Record<string, number> = {};
		for (const link of [...(cache?.links ?? []), ...(cache?.embeds ?? [])]) {
			const dest = this.getFirstLinkpathDest(link.link, path);
			if (dest) resolved[dest.path] = (resolved[dest.path] ?? 0) + 1;
			else unresolved[link.link] = (unresolved[link.link] ?? 0) + 1;
		}
		this.resolvedLinks[path] = resolved;
		this.unresolvedLinks[path] = unresolved;
	}
}



export class FileManager {
	constructor(private readonly app: App) {}

	/**
	 * Obsidian's processFrontMatter: parse the YAML block, let `fn` mutate it, write it back
	 * (keys keep their order), keep the body as it was. Invalid YAML throws, as in Obsidian.
	 */
	async processFrontMatter(file: TFile, fn: (frontmatter: Record<string, unknown>) => void, options?: DataWriteOptions): Promise<void> {
		await this.app.vault.process(
			file,
			(raw) => {
				const bom = raw.startsWith("\uFEFF") ? "\uFEFF" : "";
				const text = raw.slice(bom.length);
				const eol = text.includes("\r\n") ? "\r\n" : "\n";
				const m = FRONTMATTER.exec(text);
				const doc = parseDocument(m ? (m[1] ?? "") : "");
				if (doc.errors.length > 0) throw new Error(`Invalid YAML frontmatter in ${file.path}: ${doc.errors[0]?.message ?? ""}`);
				const value: unknown = doc.toJS();
				const data: Record<string, unknown> = value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
				fn(data);
				const body = m ? text.slice(m[0].length) : text;
				if (Object.keys(data).length === 0 && !m) return raw;
				const yamlText = Object.keys(data).length === 0 ? "" : stringifyYamlValue(data, { lineWidth: 0 }).replace(/\n$/, "");
				const block = ["---", ...(yamlText === "" ? [] : yamlText.split("\n")), "---"].join(eol);
				return `${bom}${block}${eol}${body}`;
			},
			options,
		);
	}

	async renameFile(file: TAbstractFile, newPath: string): Promise<void> {
		await this.app.vault.rename(file, newPath);
	}

	async trashFile(file: TAbstractFile): Promise<void> {
		await this.app.vault.trash(file, true);
	}

	generateMarkdownLink(file: TFile, sourcePath: string, subpath = "", alias = ""): string {
		const text = this.app.metadataCache.fileToLinktext(file, sourcePath, true);
		return `[[${text}${subpath}${alias ? `|${alias}` : ""}]]`;
	}

	getNewFileParent(_sourcePath: string, _newFilePath?: string): TFolder {
		return this.app.vault.getRoot();
	}
}
