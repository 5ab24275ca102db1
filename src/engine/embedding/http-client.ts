/**
 * The one thing the HTTP embedders need from the platform: a JSON POST with a timeout.
 * The plugin passes Obsidian's requestUrl, Node passes fetch; tests pass a real local server.
 * Implementations throw EmbedderError("timeout" | "refused" | "network") for transport
 * failures and resolve with any HTTP status (the provider decides what a status means).
 */
export interface HttpClient {
	post(url: string, body: unknown, headers: Readonly<Record<string, string>>, timeoutMs: number): Promise<HttpResponse>;
}

export interface HttpResponse {
	readonly status: number;
	/** The parsed body, or undefined when it was not JSON. */
	readonly json: unknown;
}

/** Joins a base URL and a path with exactly one slash. */
export function joinUrl(base: string, path: string): string {
	return `${base.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;
}
