import { createHash, timingSafeEqual } from "node:crypto";

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]", "::1"]);

export interface GuardFailure {
	readonly status: 401 | 403;
	readonly message: string;
}

type Headers = Readonly<Record<string, string | string[] | undefined>>;

function one(value: string | string[] | undefined): string | undefined {
	return Array.isArray(value) ? value[0] : value;
}

/** "127.0.0.1:27182" → "127.0.0.1"; "[::1]:80" → "[::1]". */
function hostnameOf(host: string): string {
	const trimmed = host.trim().toLowerCase();
	if (trimmed.startsWith("[")) {
		const end = trimmed.indexOf("]");
		return end < 0 ? trimmed : trimmed.slice(0, end + 1);
	}
	const colon = trimmed.indexOf(":");
	return colon < 0 ? trimmed : trimmed.slice(0, colon);
}

export function isLoopbackHost(host: string): boolean {
	return LOOPBACK_HOSTS.has(hostnameOf(host));
}

function isLoopbackOrigin(origin: string): boolean {
	try {
		const url = new URL(origin);
		return (url.protocol === "http:" || url.protocol === "https:") && LOOPBACK_HOSTS.has(url.hostname.toLowerCase());
	} catch {
		return false;
	}
}

/** An allow-list entry: an exact origin, or "scheme://host:*" for any port (engrama-py's syntax). */
function originListed(origin: string, allowed: readonly string[]): boolean {
	const clean = origin.trim().toLowerCase();
	return allowed.some((entry) => {
		const e = entry.trim().toLowerCase();
		if (!e.endsWith(":*")) return e === clean;
		const base = e.slice(0, -2);
		return clean === base || (clean.startsWith(`${base}:`) && /^\d+$/.test(clean.slice(base.length + 1)));
	});
}

function digest(text: string): Buffer {
	return createHash("sha256").update(text, "utf8").digest();
}

/** The last expected value's digest: the bearer token is the same on every request. */
let lastExpected: { readonly text: string; readonly digest: Buffer } | undefined;

function expectedDigest(expected: string): Buffer {
	if (lastExpected?.text !== expected) lastExpected = { text: expected, digest: digest(expected) };
	return lastExpected.digest;
}

/** Compares in constant time (over fixed-length digests, so the length leaks nothing either). */
export function tokenMatches(presented: string, expected: string): boolean {
	return timingSafeEqual(digest(presented), expectedDigest(expected));
}

/**
 * DNS-rebinding protection and bearer auth for the local bridge. A page on another site that
 * resolves its name to 127.0.0.1 still sends its own Host and Origin: both must be loopback.
 * Then the Authorization header must carry the token. Returns null when the request may pass.
 */
export function checkRequest(headers: Headers, token: string, allowedOrigins: readonly string[] = []): GuardFailure | null {
	const host = one(headers.host);
	if (!host || !isLoopbackHost(host)) {
		return { status: 403, message: `Forbidden: Host "${(host ?? "").slice(0, 100)}" is not this machine. Connect to http://127.0.0.1:<port>/mcp.` };
	}
	const origin = one(headers.origin);
	if (origin !== undefined && !isLoopbackOrigin(origin) && !originListed(origin, allowedOrigins)) {
		return { status: 403, message: `Forbidden: requests from the web origin "${origin.slice(0, 100)}" are refused. Only local MCP clients may connect (or list the origin in ENGRAMA_ALLOWED_ORIGINS).` };
	}
	const auth = one(headers.authorization);
	if (!auth) {
		return { status: 401, message: "Unauthorized: send the header Authorization: Bearer <token> (engrama serve prints it; in Obsidian it is in the Engrama settings)." };
	}
	const match = /^Bearer\s+(\S+)\s*$/i.exec(auth);
	if (!match || !tokenMatches(match[1], token)) {
		return { status: 401, message: "Unauthorized: the bearer token is wrong. Copy it again from engrama serve's output or the Engrama settings (it changes when regenerated)." };
	}
	return null;
}
