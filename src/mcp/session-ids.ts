import { createHash, createHmac, randomBytes } from "node:crypto";
import { tokenMatches } from "./http-guard";

/** What a session needs to be rebuilt after the bridge restarts: what its client sent at initialize. */
export interface SessionSeed {
	readonly protocolVersion: string;
	readonly clientName: string;
	readonly clientVersion: string;
}

/**
 * Session ids the bridge can take back after a restart: the client's initialize answer (protocol,
 * name, version) and a nonce, signed with a key derived from the bearer token. A restarted bridge
 * with the same token rebuilds the session from its id, so clients that connect directly never
 * meet "Session not found"; a new token makes old ids unknown (404), as it should.
 */
export class SessionIds {
	private readonly key: Buffer;

	constructor(token: string) {
		this.key = createHash("sha256").update(`engrama mcp session ids\0${token}`, "utf8").digest();
	}

	mint(seed: SessionSeed): string {
		const payload = Buffer.from(JSON.stringify([seed.protocolVersion, seed.clientName, seed.clientVersion, randomBytes(9).toString("base64url")]), "utf8").toString("base64url");
		return `${payload}.${this.sign(payload)}`;
	}

	/** The seed inside an id this bridge's token signed, or undefined. */
	read(id: string): SessionSeed | undefined {
		const dot = id.indexOf(".");
		if (dot <= 0 || id.length > 1024) return undefined;
		const payload = id.slice(0, dot);
		if (!tokenMatches(id.slice(dot + 1), this.sign(payload))) return undefined;
		try {
			const [protocolVersion, clientName, clientVersion] = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as unknown[];
			if (typeof protocolVersion !== "string" || typeof clientName !== "string" || typeof clientVersion !== "string") return undefined;
			return { protocolVersion, clientName, clientVersion };
		} catch {
			return undefined;
		}
	}

	private sign(payload: string): string {
		return createHmac("sha256", this.key).update(payload, "utf8").digest("base64url").slice(0, 32);
	}
}
