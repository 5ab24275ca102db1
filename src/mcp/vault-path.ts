import { ValidationError } from "../engine/errors";
import type { VaultContainment } from "../nodejs/vault-containment";
import type { McpVault } from "./mcp-services";

/**
 * A vault-relative path from an agent, checked before anything reads or writes it: no absolute
 * paths (`/x`, `C:\x`, `\\server`), no `..`, no NUL, no `~`. Returns it with forward slashes.
 */
export function checkVaultRelativePath(input: string, field: string): string {
	const raw = input.trim();
	const refuse = (why: string) =>
		new ValidationError(`${field} "${raw.slice(0, 120)}" ${why}. Give a path inside the vault, relative to its root, e.g. "Projects/Billing.md".`, {
			path: raw.slice(0, 500),
		});
	if (raw === "") throw refuse("is empty");
	if (raw.includes("\0")) throw refuse("contains a NUL character");
	if (/^[/\\]/.test(raw) || /^[A-Za-z]:/.test(raw)) throw refuse("is absolute");
	if (raw.startsWith("~")) throw refuse("points at a home folder");
	const parts = raw.replace(/\\/g, "/").split("/");
	if (parts.some((p) => p === "..")) throw refuse('leaves the vault (it contains "..")');
	const clean = parts.filter((p) => p !== "" && p !== ".").join("/");
	if (clean === "") throw refuse("names the vault root, not a note");
	return clean;
}

/**
 * A note path: a markdown file outside hidden folders, so no tool can reach the config folder
 * (where the plugin keeps its settings, the bridge token among them) or other non-note files.
 */
export function checkNotePath(input: string, field: string): string {
	const path = checkVaultRelativePath(input, field);
	if (!path.toLowerCase().endsWith(".md")) {
		throw new ValidationError(`${field} "${path.slice(0, 120)}" is not a note: give the path of a markdown file (ending in .md).`, { path });
	}
	if (path.split("/").some((part) => part.startsWith("."))) {
		throw new ValidationError(`${field} "${path.slice(0, 120)}" is inside a hidden folder (such as the config folder); only notes can be used.`, { path });
	}
	return path;
}

/**
 * Why a path whose symbolic links lead out of the vault, or round in a loop, is refused: the words
 * the MCP tools and the CLI share. `name` is how the caller gave it (`path "A.md"`, `A.md`).
 */
export function containmentRefusal(name: string, where: Exclude<VaultContainment, "inside">, kind: "note" | "folder"): string {
	return where === "symlink-loop"
		? `${name} is a symbolic link loop: following it leads back to itself and never reaches a ${kind}. Point the link at a real ${kind} or remove it.`
		: `${name} leads outside the vault through a symbolic link; only ${kind}s that really live inside the vault can be used.`;
}

/** The vault's own symlink check, when it has one. */
async function checkContainment(vault: McpVault, path: string, field: string, kind: "note" | "folder"): Promise<void> {
	const where = vault.containment ? await vault.containment(path) : "inside";
	if (where !== "inside") throw new ValidationError(containmentRefusal(`${field} "${path}"`, where, kind), { path });
}

/** The note checks, then the vault's own symlink check when it has one. */
export async function resolveVaultPath(vault: McpVault, input: string, field: string): Promise<string> {
	const path = checkNotePath(input, field);
	await checkContainment(vault, path, field, "note");
	return path;
}

/** A folder filter for a vault scan ("" = the whole vault). */
export async function resolveVaultFolder(vault: McpVault, input: string, field: string): Promise<string> {
	if (input.trim() === "" || input.trim() === "." || input.trim() === "./") return "";
	const path = checkVaultRelativePath(input, field);
	await checkContainment(vault, path, field, "folder");
	return path;
}
