import { randomBytes } from "node:crypto";
import { chmod, mkdir, readFile, rename, stat, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { ValidationError } from "../engine/errors";

/** 32 random bytes, base64url (43 characters): the bridge's bearer token. */
export function generateMcpToken(): string {
	return randomBytes(32).toString("base64url");
}

/** Where the command line keeps the token: beside the database, `<db>.mcp-token`. */
export function defaultTokenFile(dbPath: string): string {
	return `${dbPath}.mcp-token`;
}

export interface TokenFileResult {
	readonly token: string;
	readonly file: string;
	readonly created: boolean;
}

async function writePrivate(file: string, token: string): Promise<void> {
	await mkdir(dirname(file), { recursive: true, mode: 0o700 });
	const tmp = `${file}.${process.pid}.tmp`;
	await writeFile(tmp, `${token}\n`, { mode: 0o600 });
	await chmod(tmp, 0o600);
	await rename(tmp, file);
}

/** Writes the Obsidian bridge's token for the stdio proxy (mode 0600, replaced atomically). */
export function writeTokenFile(file: string, token: string): Promise<void> {
	return writePrivate(file, token);
}

/**
 * Reads the token file, or creates it (mode 0600) on first start; `regenerate` replaces it, so
 * every client configured with the old token is locked out. A file readable by others is
 * tightened to 0600.
 */
export async function loadOrCreateToken(file: string, options: { regenerate?: boolean } = {}): Promise<TokenFileResult> {
	if (!options.regenerate) {
		const existing = await readToken(file).catch((error: unknown) => {
			if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
			throw error;
		});
		if (existing) {
			const info = await stat(file);
			if (process.platform !== "win32" && (info.mode & 0o077) !== 0) await chmod(file, 0o600);
			return { token: existing, file, created: false };
		}
	}
	const token = generateMcpToken();
	await writePrivate(file, token);
	return { token, file, created: true };
}

/** The token in a file written by `engrama serve` (or copied from the Obsidian settings). */
export async function readToken(file: string): Promise<string> {
	const token = (await readFile(file, "utf8")).trim();
	if (!/^[A-Za-z0-9._~+/=-]{16,512}$/.test(token)) {
		throw new ValidationError(`The token file ${file} does not hold a valid token. Run engrama serve --regenerate-token, or paste the token from the Engrama settings.`);
	}
	return token;
}
