/**
 * The one table of the properties Engrama treats specially, and what each part does with them.
 * A new system prop is one row here; the sanitiser, history, graph → vault, both fulltext
 * backends and the plugin's context tab read their lists from it. Props not named here are a
 * person's or an agent's own: accepted from writers, tracked, written into notes, searched, listed.
 */
interface PropRole {
	/** The engine sets it: the sanitiser drops it from every writer's input. */
	readonly owned: boolean;
	/** A change of it is recorded in the node's history (off: bookkeeping, noise there). */
	readonly history: boolean;
	/** Graph → vault writes it into a note's frontmatter (off: the engine's, sync's, or the note's name). */
	readonly note: boolean;
	/** A string value is folded into the fulltext `body` when it is not a column (ids, provenance, dates, paths are not). */
	readonly search: boolean;
	/** The plugin's context tab lists it among the node's properties (off: bookkeeping, or shown in the tab's header). */
	readonly panel: boolean;
}

const o = true;
const _ = false;

const TABLE = {
	//                 owned  history note  search panel
	engrama_id:        row(o, _, _, _, _),
	org_id:            row(o, _, _, _, _),
	user_id:           row(o, _, _, _, _),
	created_at:        row(o, _, _, o, _),
	updated_at:        row(o, _, _, o, _),
	// Provenance (write/provenance.ts): who authored the node, how far it is trusted, the last agent edit.
	source:            row(o, _, _, _, _),
	source_agent:      row(o, _, _, _, _),
	source_session:    row(o, _, _, _, _),
	trust_level:       row(o, _, _, o, _),
	edited_by_source:  row(o, _, _, _, _),
	edited_by_agent:   row(o, _, _, _, _),
	edited_in_session: row(o, _, _, _, _),
	// Time expressions of the text resolved against the item's date (temporal/time-mentions.ts);
	// derived from the text and valid_from, whose own changes history records.
	mentioned_dates:   row(o, _, _, _, _),
	// Sync's bookkeeping about the note (NOTE_PROPS below).
	obsidian_path:     row(_, o, _, _, _),
	content_hash:      row(_, _, _, _, _),
	obsidian_mtime:    row(_, _, _, o, _),
	obsidian_size:     row(_, _, _, o, _),
	note_props:        row(_, _, _, o, _),
	note_provenance:   row(_, _, _, _, _),
	note_written:      row(_, _, _, _, _),
	note_pending:      row(_, _, _, _, _),
	// Lifecycle and time.
	status:            row(_, o, o, _, _),
	status_note:       row(_, o, _, o, o),
	previous_status:   row(_, o, _, _, o),
	archived_at:       row(_, o, _, _, _),
	valid_from:        row(_, o, _, _, _),
	valid_to:          row(_, o, o, _, o),
	decayed_at:        row(_, _, o, o, _),
	confidence:        row(_, o, o, o, _),
	// The key is the note's file name; these the context tab shows in its header.
	name:              row(_, o, _, o, _),
	title:             row(_, o, _, o, _),
	description:       row(_, o, o, o, _),
	summary:           row(_, o, o, o, _),
} satisfies Record<string, PropRole>;

function row(owned: boolean, history: boolean, note: boolean, search: boolean, panel: boolean): PropRole {
	return { owned, history, note, search, panel };
}

export type SpecialProp = keyof typeof TABLE;

/** The table itself, for tests and documentation. */
export const SPECIAL_PROPS: Readonly<Record<SpecialProp, PropRole>> = TABLE;

function where(test: (role: PropRole) => boolean): ReadonlySet<string> {
	return new Set(Object.entries(TABLE).filter(([, role]) => test(role)).map(([name]) => name));
}

/** Properties the engine owns; never set directly from user input. */
export const SYSTEM_PROPS: ReadonlySet<string> = where((r) => r.owned);
/** Changes the node history does not record. */
export const NOT_TRACKED: ReadonlySet<string> = where((r) => !r.history);
/** Props graph → vault never writes into a note. */
export const NEVER_WRITTEN: ReadonlySet<string> = where((r) => !r.note);
/** Props neither fulltext backend folds into `body`. */
export const NOT_SEARCHED: ReadonlySet<string> = where((r) => !r.search);
/** Props the plugin's context tab leaves out of the property list. */
export const HIDDEN_PROPS: ReadonlySet<string> = where((r) => !r.panel);

/** Props vault sync keeps on a note's node (`obsidian_path` is the spec's; the rest is bookkeeping). */
export const NOTE_PROPS = {
	path: "obsidian_path",
	hash: "content_hash",
	mtime: "obsidian_mtime",
	size: "obsidian_size",
	/** Names of the props the note itself stated, so a key deleted from the frontmatter is unset. */
	stated: "note_props",
	/** The provenance the note stated (engrama_* keys) at the last sync: only a change of the keys changes the node's. */
	provenance: "note_provenance",
	/**
	 * The last note graph → vault wrote for the node: [path, hash of the text, stamp of the node it
	 * was rendered from], recorded before the write where the text is known (a new note), else just
	 * after, so a note Engrama wrote is never read back over a newer state, even after a crash.
	 */
	written: "note_written",
	/**
	 * Writes made outside the vault that the note could not take yet (not UTF-8, broken YAML): a
	 * JSON list of `OwedEdit`s (sync/graph-to-vault.ts), written in by the first sync that can.
	 */
	pending: "note_pending",
} as const;
