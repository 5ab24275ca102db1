import { EmbedderError } from "../../engine/embedding/embedder-error";
import type { HttpClient, HttpResponse } from "../../engine/embedding/http-client";

/** The network error code behind a fetch failure (undici puts it on `cause`). */
function causeCode(error: unknown): string {
	let current: unknown = error;
	for (let depth = 0; depth < 4 && current && typeof current === "object"; depth++) {
		const code = (current as { code?: unknown }).code;
		if (typeof code === "string") return code;
		current = (current as { cause?: unknown }).cause;
	}
	return "";
}

/** Node's fetch as the embedders' HttpClient: JSON POST, a hard timeout, transport errors named. */
export function createFetchHttpClient(fetchImpl: typeof fetch = fetch): HttpClient {
	return {
		async post(url, body, headers, timeoutMs): Promise<HttpResponse> {
			const controller = new AbortController();
			const timer = setTimeout(() => controller.abort(), timeoutMs);
			try {
				const response = await fetchImpl(url, { method: "POST", headers: { ...headers }, body: JSON.stringify(body), signal: controller.signal });
				const text = await response.text();
				let json: unknown;
				try {
					json = text ? JSON.parse(text) : undefined;
				} catch {
					json = undefined;
				}
				return { status: response.status, json };
			} catch (error) {
				if (controller.signal.aborted) {
					throw new EmbedderError("timeout", `The embedder at ${url} did not answer within ${timeoutMs} ms (timeout).`, { url, timeoutMs });
				}
				const code = causeCode(error);
				if (code === "ECONNREFUSED") {
					throw new EmbedderError("refused", `The embedder at ${url} refused the connection (ECONNREFUSED): is the server running?`, { url });
				}
				const detail = code || (error instanceof Error ? error.message : String(error));
				throw new EmbedderError("network", `The embedder at ${url} could not be reached (${detail}).`, { url, code });
			} finally {
				clearTimeout(timer);
			}
		},
	};
}
