import type { App } from "obsidian";
import { errorMessage } from "../engine/errors";
import type { PluginSettings } from "./settings";

/**
 * Secrets live in Obsidian's secret storage (`app.secretStorage`, Settings → Keychain, from 1.11.4):
 * per vault and per device, never in data.json, which sync tools copy and git commits. data.json
 * keeps only the name of the secret the person chose (SecretComponent); the bridge token is ours.
 */
export const MCP_TOKEN_SECRET = "engrama-mcp-token";
/** The names an earlier version's plain-text values move to. */
export const NEO4J_PASSWORD_SECRET = "engrama-neo4j-password";
export const EMBEDDING_API_KEY_SECRET = "engrama-embedding-api-key";

/** The secret values the engine needs, read from secret storage (or an earlier data.json not yet moved). */
export interface SecretValues {
	readonly neo4jPassword: string;
	readonly embeddingApiKey: string;
}

function secret(app: App, name: string): string {
	return name === "" ? "" : (app.secretStorage.getSecret(name) ?? "");
}

export function secretValues(app: App, settings: PluginSettings): SecretValues {
	return {
		neo4jPassword: secret(app, settings.neo4j.passwordSecret) || settings.neo4j.password,
		embeddingApiKey: secret(app, settings.embedding.apiKeySecret) || settings.embedding.apiKey,
	};
}

/** The settings with the secret values filled in, for the engine only (never saved). */
export function withSecrets(app: App, settings: PluginSettings): PluginSettings {
	const values = secretValues(app, settings);
	return { ...settings, neo4j: { ...settings.neo4j, password: values.neo4jPassword }, embedding: { ...settings.embedding, apiKey: values.embeddingApiKey } };
}

/** 32 random bytes, base64url (the same form as the command line's token). */
export function generateToken(): string {
	const bytes = crypto.getRandomValues(new Uint8Array(32));
	let binary = "";
	for (const b of bytes) binary += String.fromCharCode(b);
	return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The bridge token of this vault on this device: created on first use. */
export function mcpToken(app: App): string {
	let token = app.secretStorage.getSecret(MCP_TOKEN_SECRET);
	if (!token) {
		token = generateToken();
		app.secretStorage.setSecret(MCP_TOKEN_SECRET, token);
	}
	return token;
}

export function replaceMcpToken(app: App): string {
	const token = generateToken();
	app.secretStorage.setSecret(MCP_TOKEN_SECRET, token);
	return token;
}

export interface SecretMove {
	/** What moved into secret storage ("the Neo4j password", …); data.json must be saved without them. */
	readonly moved: readonly string[];
	/** What could not move (kept in data.json, used from there), with the reason. */
	readonly failed: readonly string[];
}

/**
 * Moves the plain-text secrets an earlier version kept in data.json into secret storage, once:
 * the draft loses them and names the secret instead. A secret that cannot move stays where it was.
 */
export function moveSecrets(app: App, draft: PluginSettings): SecretMove {
	const moved: string[] = [];
	const failed: string[] = [];
	const move = (what: string, value: string, name: string, done: () => void) => {
		if (value === "") return;
		try {
			// A secret of that name already on this device (set by hand, another plugin's) is kept as it is.
			const existing = app.secretStorage.getSecret(name);
			if (existing !== null && existing !== value) throw new Error(`this device already has a different secret named “${name}”; choose the right one in the Engrama settings`);
			if (existing === null) app.secretStorage.setSecret(name, value);
			done();
			moved.push(what);
		} catch (error) {
			failed.push(`${what}: ${errorMessage(error)}`);
		}
	};
	move("the Neo4j password", draft.neo4j.password, draft.neo4j.passwordSecret || NEO4J_PASSWORD_SECRET, () => {
		draft.neo4j.passwordSecret ||= NEO4J_PASSWORD_SECRET;
		draft.neo4j.password = "";
	});
	move("the embedding API key", draft.embedding.apiKey, draft.embedding.apiKeySecret || EMBEDDING_API_KEY_SECRET, () => {
		draft.embedding.apiKeySecret ||= EMBEDDING_API_KEY_SECRET;
		draft.embedding.apiKey = "";
	});
	move("the MCP bridge token", draft.mcp.token, MCP_TOKEN_SECRET, () => {
		draft.mcp.token = "";
	});
	return { moved, failed };
}

/** Secrets data.json names that this device does not have (another device chose them): what to re-enter here. */
export function missingSecrets(app: App, settings: PluginSettings): string[] {
	const out: string[] = [];
	if (settings.backend === "neo4j" && settings.neo4j.passwordSecret !== "" && secret(app, settings.neo4j.passwordSecret) === "" && settings.neo4j.password === "") {
		out.push(`the Neo4j password (secret “${settings.neo4j.passwordSecret}”)`);
	}
	if (settings.embedding.provider === "openai" && settings.embedding.apiKeySecret !== "" && secret(app, settings.embedding.apiKeySecret) === "" && settings.embedding.apiKey === "") {
		out.push(`the embedding API key (secret “${settings.embedding.apiKeySecret}”)`);
	}
	return out;
}
