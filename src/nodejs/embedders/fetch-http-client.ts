import { EmbedderError, type HttpClient, type HttpResponse } from "../../engine/host";

/** The network error code behind a fetch failure (undici puts it on `cause`, or on an AggregateError's `errors`). */
function causeCode(error: unknown, depth = 0): string {
	if (!error || typeof error !== "object" || depth > 4) return "";
	const { code, cause, errors } = error as { code?: unknown; cause?: unknown; errors?: unknown };
	if (typeof code === "string") return code;
	for (const inner of Array.isArray(errors) ? errors : []) {
		const found = causeCode(inner, depth + 1);
		if (found) return found;
	}
	return causeCode(cause, depth + 1);
}

/** "fetch failed: bad port": the outer message with the innermost cause's words. */
function causeMessage(error: unknown): string {
	const parts: string[] = [];
	let current: unknown = error;
	for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
		if (!parts.includes(current.message)) parts.push(current.message);
		current = current.cause;
	}
	return parts.join(": ") || String(error);
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
				const detail = code ? `${code}, ${causeMessage(error)}` : causeMessage(error);
				throw new EmbedderError("network", `The embedder at ${url} could not be reached (${detail}).`, { url, code });
			} finally {
				clearTimeout(timer);
			}
		},
	};
}
