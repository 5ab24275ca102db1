import { requestUrl, type RequestUrlParam, type RequestUrlResponse } from "obsidian";
import { EmbedderError, type HttpClient, type HttpResponse } from "../engine/host";

type RequestFn = (request: RequestUrlParam) => Promise<RequestUrlResponse>;

/**
 * Obsidian's requestUrl as the embedders' HttpClient (no CORS limits, works on mobile).
 * requestUrl has no timeout, so the call races a window timer; transport failures are named.
 */
/** Backoff between embedder retries on the window's timer (Obsidian's review rule). */
export const windowSleep = (ms: number): Promise<void> => new Promise<void>((resolve) => window.setTimeout(resolve, ms));

export function createRequestUrlHttpClient(request: RequestFn = requestUrl): HttpClient {
	return {
		async post(url, body, headers, timeoutMs): Promise<HttpResponse> {
			let timer: number | undefined;
			const timeout = new Promise<never>((_resolve, reject) => {
				timer = window.setTimeout(
					() => reject(new EmbedderError("timeout", `The embedder at ${url} did not answer within ${timeoutMs} ms (timeout).`, { url, timeoutMs })),
					timeoutMs,
				);
			});
			try {
				const call = request({ url, method: "POST", contentType: "application/json", body: JSON.stringify(body), headers: { ...headers }, throw: false });
				const response = await Promise.race([call, timeout]);
				return { status: response.status, json: jsonOf(response) };
			} catch (error) {
				if (error instanceof EmbedderError) throw error;
				const message = error instanceof Error ? error.message : String(error);
				if (/ECONNREFUSED|refused/i.test(message)) {
					throw new EmbedderError("refused", `The embedder at ${url} refused the connection: is the server running?`, { url });
				}
				throw new EmbedderError("network", `The embedder at ${url} could not be reached (${message}).`, { url });
			} finally {
				if (timer !== undefined) window.clearTimeout(timer);
			}
		},
	};
}

function jsonOf(response: RequestUrlResponse): unknown {
	try {
		return response.json as unknown;
	} catch {
		// requestUrl's json getter throws when the body is not JSON.
		return undefined;
	}
}
