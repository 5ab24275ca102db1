// MetadataCache (each note's frontmatter) and FileManager (processFrontMatter). Part of the one fake of `obsidian`: import it through tests/fakes/obsidian.ts.
import { parse as parseYamlText, parseDocument, stringify as stringifyYamlValue } from "yaml";
import { type App } from "./app";
import { type DataWriteOptions, type TAbstractFile, type TFile, type Vault } from "./vault";

/** What the plugin reads of a note's cache: its frontmatter (links, tags and headings are sync's own parsing). */
export interface CachedMetadata {
	frontmatter?: Record<string, unknown>;
}

const FRONTMATTER = /^---\r?\n([\s\S]*?)\r?\n?---(?:\r?\n|$)/;

/** Obsidian-like parse of a note's frontmatter: invalid YAML means no frontmatter. */
function parseMarkdownMetadata(raw: string): CachedMetadata {
	const text = raw.startsWith("\uFEFF") ? raw.slice(1) : raw;
	const fm = FRONTMATTER.exec(text);
	if (!fm) return {};
	try {
		const value: unknown = parseYamlText(fm[1] ?? "");
		if (value && typeof value === "object" && !Array.isArray(value)) return { frontmatter: value as Record<string, unknown> };
	} catch {
		// Obsidian shows invalid YAML as no frontmatter.
	}
	return {};
}

/** Kept in step by the vault: a note is re-parsed right after each write, as Obsidian's indexer does. */
export class MetadataCache {
	private readonly caches = new Map<string, CachedMetadata>();

	constructor(private readonly vault: Vault) {
		vault.metadata = this;
		for (const file of vault.getMarkdownFiles()) this.index(file);
	}

	getFileCache(file: TFile): CachedMetadata | null {
		return this.caches.get(file.path) ?? null;
	}

	/** @internal Vault hook: re-parse a file's text now. */
	index(file: TFile): void {
		if (file.extension !== "md") return;
		let text = "";
		try {
			text = this.vault.fsys.read(file.path);
		} catch {
			return;
		}
		this.caches.set(file.path, parseMarkdownMetadata(text));
	}

	/** @internal */
	move(oldPath: string, file: TFile): void {
		const cache = this.caches.get(oldPath);
		this.caches.delete(oldPath);
		if (cache) this.caches.set(file.path, cache);
	}

	/** @internal */
	drop(file: TFile): void {
		this.caches.delete(file.path);
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

	/** Obsidian moves the file to .trash (hidden, not indexed): for plugins it is a delete. */
	async trashFile(file: TAbstractFile): Promise<void> {
		await this.app.vault.delete(file);
	}
}
