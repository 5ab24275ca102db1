import { EmbedderError } from "./embedder-error";

export interface RetryPolicy {
	/** Attempts after the first (0 = no retry). */
	readonly retries: number;
	readonly baseDelayMs: number;
	readonly maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { retries: 2, baseDelayMs: 250, maxDelayMs: 4000 };

export type Sleep = (ms: number) => Promise<void>;

// Warning kept (obsidianmd/prefer-window-timers): the engine knows no window; this default serves
// Node, and the plugin passes a window-timer sleep (createHttpEmbeddingProvider).
export const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Exponential backoff: base · 2^attempt, capped. No jitter: a single client, and tests stay exact. */
export function backoffDelay(policy: RetryPolicy, attempt: number): number {
	return Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
}

/**
 * Runs `job`, retrying retryable EmbedderErrors (timeouts, refused connections, 429/5xx) with
 * backoff. Anything else (a bad answer, a bug) is thrown at once.
 */
export async function withRetry<T>(job: (attempt: number) => Promise<T>, policy: RetryPolicy, sleep: Sleep = realSleep): Promise<T> {
	for (let attempt = 0; ; attempt++) {
		try {
			return await job(attempt);
		} catch (error) {
			const retryable = error instanceof EmbedderError && error.retryable;
			if (!retryable || attempt >= policy.retries) throw error;
			await sleep(backoffDelay(policy, attempt));
		}
	}
}
