import { describe, expect, it } from "vitest";
import { NoteIndex, type NoteEntry } from "../../../src/engine/sync/note-index";

const entry = (id: string, path: string): NoteEntry => ({ id, path, label: "Note", key: id, hash: "", mtime: 0, size: 0, archived: false, pending: false });

describe("NoteIndex.resolve", () => {
	it("follows Obsidian's rules and stays right as notes are added, moved and deleted", () => {
		const index = new NoteIndex();
		index.set(entry("deep", "Projects/Archive/Plan.md"));
		expect(index.resolve("Plan")?.id).toBe("deep");
		expect(index.resolve("plan.md")?.id).toBe("deep");
		// A shorter path with the same file name wins from now on (answers are not kept past a change).
		index.set(entry("top", "Plan.md"));
		expect(index.resolve("Plan")?.id).toBe("top");
		expect(index.resolve("Archive/Plan")?.id).toBe("deep");
		// A move: the same node under a new path.
		index.set(entry("top", "Later/Plan B.md"));
		expect(index.resolve("Plan")?.id).toBe("deep");
		expect(index.resolve("Plan B")?.id).toBe("top");
		index.delete("Projects/Archive/Plan.md");
		expect(index.resolve("Plan")).toBeUndefined();
		expect(index.resolve("  /Later/Plan B ")?.id).toBe("top");
	});

	it("compares names case- and NFC/NFD-insensitively", () => {
		const index = new NoteIndex();
		index.set(entry("r", "Re\u0301sume\u0301.md"));
		expect(index.resolve("RÉSUMÉ")?.id).toBe("r");
	});
});
