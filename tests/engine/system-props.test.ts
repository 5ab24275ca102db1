import { describe, expect, it } from "vitest";
import { EDIT_PROPS } from "../../src/engine/write/provenance";
import { NOTE_PROPS } from "../../src/engine/sync/note-index";
import { HIDDEN_PROPS, NEVER_WRITTEN, NOT_SEARCHED, NOT_TRACKED, SPECIAL_PROPS, SYSTEM_PROPS } from "../../src/engine/system-props";
import { reservedPropNames } from "../../src/engine/write/sanitise";
import { fulltextProperties } from "../../src/backends/neo4j/fts-query";

const sorted = (set: ReadonlySet<string>) => [...set].sort();

describe("the one table of system properties", () => {
	// The five lists as they were kept by hand before the table (types.ts, temporal/history.ts,
	// graph-to-vault.ts, the SQLite store and neo4j/fts-query.ts, context-tab.ts): same answers.
	it("gives each part the list it kept by hand", () => {
		const edit = ["edited_by_source", "edited_by_agent", "edited_in_session"];
		const provenance = ["source", "source_agent", "source_session"];
		// Added with the table: the engine's resolved time words (temporal/time-mentions.ts).
		const dates = ["mentioned_dates"];
		expect(sorted(SYSTEM_PROPS)).toEqual(["engrama_id", "org_id", "user_id", "created_at", "updated_at", ...provenance, "trust_level", ...edit, ...dates].sort());
		expect(sorted(NOT_TRACKED)).toEqual(
			["created_at", "updated_at", ...provenance, "trust_level", ...edit, "org_id", "user_id", "engrama_id", "content_hash", "decayed_at", "obsidian_mtime", "obsidian_size", "note_props", "note_provenance", "note_written", "note_pending", ...dates].sort(),
		);
		expect(sorted(NEVER_WRITTEN)).toEqual(
			["engrama_id", "org_id", "user_id", "created_at", "updated_at", ...provenance, "trust_level", ...edit, "valid_from", "archived_at", "previous_status", "status_note", "name", "title", ...Object.values(NOTE_PROPS), ...dates].sort(),
		);
		expect(sorted(NOT_SEARCHED)).toEqual(
			["engrama_id", "org_id", "user_id", ...provenance, ...edit, "status", "obsidian_path", "valid_from", "valid_to", "archived_at", "previous_status", "content_hash", "note_provenance", "note_written", "note_pending", ...dates].sort(),
		);
		expect(sorted(HIDDEN_PROPS)).toEqual(
			["engrama_id", "org_id", "user_id", "obsidian_path", "content_hash", "obsidian_mtime", "obsidian_size", "note_props", ...provenance, "trust_level", ...edit, "note_provenance", "note_written", "note_pending", "created_at", "updated_at", "status", "confidence", "name", "title", "description", "summary", "valid_from", "archived_at", "decayed_at", ...dates].sort(),
		);
	});

	it("has a row for every provenance and sync bookkeeping name", () => {
		for (const name of [...Object.values(EDIT_PROPS), ...Object.values(NOTE_PROPS)]) expect(Object.keys(SPECIAL_PROPS)).toContain(name);
	});

	it("is what the sanitiser and Neo4j's fulltext read", () => {
		expect(reservedPropNames({ trust_level: 1, edited_by_agent: "x", summary: "kept" }).sort()).toEqual(["edited_by_agent", "trust_level"]);
		const props = Object.fromEntries(Object.keys(SPECIAL_PROPS).map((name) => [name, `zz${name.replace(/_/g, "")}zz`]));
		const body = String(fulltextProperties({ ...props, summary: null, description: null, name: null, title: null }).__ft_body ?? "");
		for (const name of NOT_SEARCHED) expect(body, name).not.toContain(`zz${name.replace(/_/g, "")}zz`);
		expect(body).toContain("zzstatusnotezz");
	});
});
