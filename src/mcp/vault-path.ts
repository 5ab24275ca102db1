import { ValidationError } from "../engine/errors";
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

/** The note checks, then the vault's own symlink check when it has one. */
export async function resolveVaultPath(vault: McpVault, input: string, field: string): Promise<string> {
	const path = checkNotePath(input, field);
	if (vault.staysInside && !(await vault.staysInside(path))) {
		throw new ValidationError(
			`${field} "${path}" leads outside the vault through a symbolic link. Only notes that really live inside the vault can be used.`,
			{ path },
		);
	}
	return path;
}

/** A folder filter for a vault scan ("" = the whole vault). */
export async function resolveVaultFolder(vault: McpVault, input: string, field: string): Promise<string> {
	if (input.trim() === "" || input.trim() === "." || input.trim() === "./") return "";
	const path = checkVaultRelativePath(input, field);
	if (vault.staysInside && !(await vault.staysInside(path))) {
		throw new ValidationError(`${field} "${path}" leads outside the vault through a symbolic link.`, { path });
	}
	return path;
}
