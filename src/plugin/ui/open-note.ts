import { TFile, type App } from "obsidian";
import type { NodeRecord } from "../../engine/types";
import type { Engine } from "../engine-host";
import { noticeInfo } from "../notices";

/** The vault path of the note that documents a node, if it has one. */
export function notePathOf(node: Pick<NodeRecord, "props">): string | null {
	const path = node.props.obsidian_path;
	return typeof path === "string" && path !== "" ? path : null;
}

/** Where in a note to open it: a search passage's file line (1-based). */
export interface NotePlace {
	readonly line: number;
}

/** Opens the node's note in the main area (at `place` when given); says so when the node has no note yet. */
export async function openNodeNote(app: App, engine: Engine, nodeId: string, place?: NotePlace): Promise<boolean> {
	const node = await engine.skills.nodeById(engine.scope, nodeId);
	if (!node) {
		noticeInfo("that node is no longer in the graph. Sync the vault to refresh.");
		return false;
	}
	const path = notePathOf(node);
	const file = path ? app.vault.getAbstractFileByPath(path) : null;
	if (!(file instanceof TFile)) {
		noticeInfo(`${node.label} "${node.key}" has no note yet.`);
		return false;
	}
	// The editor scrolls to eState.line (0-based) and puts the cursor there.
	await app.workspace.getLeaf(false).openFile(file, place ? { eState: { line: Math.max(0, place.line - 1) } } : undefined);
	return true;
}

/** The node documented by a note: by its engrama_id, else by its path. */
export async function nodeOfFile(app: App, engine: Engine, file: TFile): Promise<NodeRecord | null> {
	const id: unknown = app.metadataCache.getFileCache(file)?.frontmatter?.engrama_id;
	return engine.skills.nodeOfNote(engine.scope, file.path, typeof id === "string" && id !== "" ? id : undefined);
}
