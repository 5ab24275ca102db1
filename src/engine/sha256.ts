/**
 * SHA-256 of bytes as lowercase hex, through WebCrypto: the same global in Obsidian's renderer
 * (desktop and mobile), Chromium and Node, so no Node built-in is reached for it. Used to check
 * downloaded and bundled bytes (the local model's files, sqlite3.wasm against its enum JSON).
 */
export async function sha256Hex(data: ArrayBuffer | Uint8Array): Promise<string> {
	const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", data as BufferSource));
	return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}
