import type { GraphReads } from "../protocols";
import type { NodeRecord, Scope } from "../types";
import { NOTE_PROPS } from "../system-props";
import { isMarkdownPath, noteBasename } from "./vault-source";

/** What sync remembers about a note-backed node, read from its props. */
export interface NoteEntry {
	readonly id: string;
	readonly path: string;
	readonly label: string;
	readonly key: string;
	readonly hash: string;
	readonly mtime: number;
	readonly size: number;
	readonly archived: boolean;
	/** Writes made outside the vault wait to be written into the note (`NOTE_PROPS.pending`). */
	readonly pending: boolean;
}

export { NOTE_PROPS };

export function noteEntryOf(node: NodeRecord): NoteEntry | undefined {
	return entryFrom(node.id, node.label, node.key, node.props);
}

function entryFrom(id: string, label: string, key: string, props: Readonly<Record<string, unknown>>): NoteEntry | undefined {
	const path = props[NOTE_PROPS.path];
	if (typeof path !== "string" || path === "") return undefined;
	const num = (value: unknown) => (typeof value === "number" ? value : -1);
	const hash = props[NOTE_PROPS.hash];
	return {
		id,
		path,
		label,
		key,
		hash: typeof hash === "string" ? hash : "",
		mtime: num(props[NOTE_PROPS.mtime]),
		size: num(props[NOTE_PROPS.size]),
		archived: props.status === "archived",
		pending: typeof props[NOTE_PROPS.pending] === "string",
	};
}

const PAGE = 5000;

/**
 * The vault as the graph last saw it: path → node, plus Obsidian-style link resolution
 * (exact path first, else the file name; several files with one name → the shortest path).
 * Built from one scan of the graph, then kept in step by sync itself.
 */
export class NoteIndex {
	private readonly byPath = new Map<string, NoteEntry>();
	private readonly byBasename = new Map<string, Set<string>>();
	private readonly pathById = new Map<string, string>();
	/** resolve() answers since the last change: a vault's links name the same notes again and again. */
	private readonly resolved = new Map<string, NoteEntry | undefined>();
	/** Live, non-stub nodes without a note when the index was loaded (graph → vault export candidates). */
	readonly unnoted: string[] = [];
	/** Nodes in the scope when the index was loaded (0: a fresh memory, nothing to reconcile against). */
	nodeCount = 0;

	static async load(graph: GraphReads, scope: Scope): Promise<NoteIndex> {
		const index = new NoteIndex();
		const add = (id: string, label: string, key: string, props: Readonly<Record<string, unknown>>) => {
			index.nodeCount++;
			const entry = entryFrom(id, label, key, props);
			if (entry) index.set(entry);
			else if (props.status !== "stub" && props.status !== "archived") index.unnoted.push(id);
		};
		// Only the bookkeeping props: decoding 10k whole nodes cost more than reading the vault's mtimes.
		const fields = [NOTE_PROPS.path, NOTE_PROPS.hash, NOTE_PROPS.mtime, NOTE_PROPS.size, NOTE_PROPS.pending, "status"];
		if (graph.listNodeFields) {
			// One call: the rows are small (a 50k-note vault is a few MB).
			for (const row of await graph.listNodeFields(scope, { includeArchived: true, fields })) add(row.id, row.label, row.key, row.fields);
			return index;
		}
		for (let offset = 0; ; offset += PAGE) {
			const page = await graph.listNodes(scope, { includeArchived: true, limit: PAGE, offset });
			for (const node of page) add(node.id, node.label, node.key, node.props);
			if (page.length < PAGE) break;
		}
		return index;
	}

	get size(): number {
		return this.byPath.size;
	}

	entries(): IterableIterator<NoteEntry> {
		return this.byPath.values();
	}

	get(path: string): NoteEntry | undefined {
		return this.byPath.get(path);
	}

	set(entry: NoteEntry): void {
		this.resolved.clear();
		// One node has one note: a node seen at a new path has moved.
		const oldPath = this.pathById.get(entry.id);
		if (oldPath !== undefined && oldPath !== entry.path) this.delete(oldPath);
		this.delete(entry.path);
		this.byPath.set(entry.path, entry);
		this.pathById.set(entry.id, entry.path);
		const base = linkForm(noteBasename(entry.path));
		let paths = this.byBasename.get(base);
		if (!paths) {
			paths = new Set();
			this.byBasename.set(base, paths);
		}
		paths.add(entry.path);
	}

	byId(id: string): NoteEntry | undefined {
		const path = this.pathById.get(id);
		return path === undefined ? undefined : this.byPath.get(path);
	}

	delete(path: string): void {
		const entry = this.byPath.get(path);
		if (!entry) return;
		this.resolved.clear();
		this.byPath.delete(path);
		if (this.pathById.get(entry.id) === path) this.pathById.delete(entry.id);
		this.deleteBasename(path);
	}

	private deleteBasename(path: string): void {
		const base = linkForm(noteBasename(path));
		const paths = this.byBasename.get(base);
		paths?.delete(path);
		if (paths && paths.size === 0) this.byBasename.delete(base);
	}

	/** The note a link or name points at: "Folder/Note", "Note", "Note.md" (case- and NFC/NFD-insensitive). */
	resolve(target: string): NoteEntry | undefined {
		if (this.resolved.has(target)) return this.resolved.get(target);
		const found = this.resolveNow(target);
		this.resolved.set(target, found);
		return found;
	}

	private resolveNow(target: string): NoteEntry | undefined {
		const clean = target.trim().replace(/^\/+/, "");
		if (!clean) return undefined;
		const withExt = isMarkdownPath(clean) ? clean : `${clean}.md`;
		const exact = this.byPath.get(withExt);
		if (exact) return exact;
		const wanted = linkForm(withExt);
		const paths = this.byBasename.get(linkForm(noteBasename(withExt)));
		if (!paths || paths.size === 0) return undefined;
		const candidates = [...paths].filter((p) => {
			if (!clean.includes("/")) return true;
			const form = linkForm(p);
			return form === wanted || form.endsWith(`/${wanted}`);
		});
		if (candidates.length === 0) return undefined;
		candidates.sort((a, b) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0));
		return this.byPath.get(candidates[0]);
	}
}

/** How links compare names: NFC (macOS writes NFD file names) and case-insensitive. */
function linkForm(text: string): string {
	return text.normalize("NFC").toLowerCase();
}
