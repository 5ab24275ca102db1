import { FileSystemAdapter, Platform, type App } from "obsidian";
import { ValidationError, errorMessage } from "../engine/errors";
import type { McpHttpHandle } from "../mcp";
import type { Engine } from "./engine-host";
import { noticeInfo } from "./notices";

export const MCP_PATH = "/mcp";

export type McpState =
	| { readonly kind: "off" }
	| { readonly kind: "starting"; readonly port: number }
	| { readonly kind: "listening"; readonly port: number; readonly url: string }
	| { readonly kind: "failed"; readonly port: number; readonly error: string };


export function mcpUrl(port: number): string {
	return `http://127.0.0.1:${port}${MCP_PATH}`;
}

/**
 * The localhost MCP bridge inside Obsidian. Desktop only: the server needs Node's http, which
 * the mobile apps do not have, so the MCP code is only loaded (dynamic import) when it starts.
 */
export class McpBridge {
	private handle: McpHttpHandle | null = null;
	private current: McpState = { kind: "off" };
	private queue: Promise<unknown> = Promise.resolve();
	private readonly listeners = new Set<() => void>();

	constructor(
		private readonly app: App,
		private readonly version: string,
		/** Waits between binding attempts while the port is in use (~6 s in all). */
		private readonly portRetryMs: readonly number[] = [250, 500, 1000, 1500, 2500],
	) {}

	get state(): McpState {
		return this.current;
	}

	get available(): boolean {
		return Platform.isDesktopApp;
	}

	onChange(listener: () => void): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	private set(state: McpState): void {
		this.current = state;
		for (const listener of this.listeners) listener();
	}

	/** Starts (or restarts) the bridge over this engine; failures are kept in the state and thrown. */
	start(engine: Engine, port: number, token: string, tokenFile: string | null): Promise<void> {
		return this.serial(async () => {
			await this.closeHandle();
			if (!this.available) throw new ValidationError("The MCP bridge needs the desktop app: phones and tablets cannot run a local server.");
			if (token.length < 16) throw new ValidationError("The MCP token is missing. Regenerate it in the Engrama settings.");
			this.set({ kind: "starting", port });
			try {
				// Bundled into main.js (esbuild turns this import() into a lazy require of bundled code);
				// src/mcp reaches Node's http and fs through require, which the desktop renderer has.
				const mcp = await import("../mcp");
				const adapter = this.app.vault.adapter;
				const root = adapter instanceof FileSystemAdapter ? adapter.getBasePath() : "";
				if (tokenFile) await mcp.writeTokenFile(tokenFile, token);
				// An older plugin version (without the instance handover) may still be closing its bridge on
				// this port during an update: retry a few times before reporting the port as taken.
				this.handle = await retryWhilePortBusy(() => mcp.startMcpHttpServer({
					// Agents' calls go through the engine's "others" lane: cancelling a task never fails them.
					memory: engine.forAgents.memory,
					services: {
						identity: engine.scope,
						version: this.version,
						skills: engine.forAgents.skills,
						sync: engine.sync,
						vault: { path: root, source: engine.forAgents.source, ...(root ? { containment: mcp.createNodeVaultGuard(root) } : {}) },
						log: (line) => console.warn(line),
					},
					token,
					port,
				}), this.portRetryMs, () => noticeInfo(`the MCP bridge is waiting for port ${port}, still held by the plugin's previous copy or another program…`));
				this.set({ kind: "listening", port: this.handle.port, url: this.handle.url });
			} catch (error) {
				this.set({ kind: "failed", port, error: portMessage(error, port) });
				throw new ValidationError(portMessage(error, port));
			}
		});
	}

	stop(): Promise<void> {
		return this.serial(async () => {
			await this.closeHandle();
			this.set({ kind: "off" });
		});
	}

	/** Open client sessions (0 when off). */
	sessions(): number {
		return this.handle?.sessionCount() ?? 0;
	}

	private async closeHandle(): Promise<void> {
		const handle = this.handle;
		this.handle = null;
		if (!handle) return;
		try {
			await handle.close();
		} catch (error) {
			console.error("Engrama: closing the MCP bridge failed", error);
		}
	}

	private serial<T>(job: () => Promise<T>): Promise<T> {
		const next = this.queue.then(job, job);
		this.queue = next.catch(() => undefined);
		return next;
	}
}

async function retryWhilePortBusy<T>(bind: () => Promise<T>, delays: readonly number[], onFirstWait: () => void): Promise<T> {
	for (let attempt = 0; ; attempt++) {
		try {
			return await bind();
		} catch (error) {
			if (!/EADDRINUSE|already in use/.test(errorMessage(error)) || attempt >= delays.length) throw error;
			if (attempt === 0) onFirstWait();
			await new Promise((resolve) => window.setTimeout(resolve, delays[attempt]));
		}
	}
}

function portMessage(error: unknown, port: number): string {
	const message = errorMessage(error);
	if (/EADDRINUSE|already in use/.test(message)) return `Port ${port} is still in use after waiting a few seconds. Choose another port in the Engrama settings, or stop the other program (after a plugin update, reloading Obsidian frees it).`;
	return message;
}

/** Ready-to-paste client configurations: HTTP with the bearer token, and the stdio proxy. */
export function clientConfigurations(port: number, token: string, tokenFile: string | null): { http: string; stdio: string; claudeCode: string } {
	const url = mcpUrl(port);
	const http = { mcpServers: { engrama: { type: "http", url, headers: { Authorization: `Bearer ${token}` } } } };
	const stdio = {
		mcpServers: { engrama: { command: "npx", args: ["engrama", "mcp-proxy", "--url", url, "--token-file", tokenFile ?? "<token file>"] } },
	};
	return {
		http: JSON.stringify(http, null, 2),
		stdio: JSON.stringify(stdio, null, 2),
		claudeCode: `claude mcp add --transport http engrama ${url} --header "Authorization: Bearer ${token}"`,
	};
}
