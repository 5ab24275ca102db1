import { EngramaError } from "../errors";

/** Why an embedder call failed; callers (search, reindex) report it in plain words. */
export type EmbedderFailure = "timeout" | "refused" | "network" | "http" | "bad_response" | "dimension" | "model";

const TRANSIENT: ReadonlySet<EmbedderFailure> = new Set(["timeout", "refused", "network"]);

/**
 * The embedder could not produce vectors. Never fails a write (the node is stored and picked up
 * by reindex); search answers from fulltext with the message as its `degraded` reason.
 */
export class EmbedderError extends EngramaError {
	/** Worth another try: the server may come back (a wrong answer will not change). */
	readonly retryable: boolean;

	constructor(
		readonly failure: EmbedderFailure,
		message: string,
		details: Readonly<Record<string, unknown>> = {},
		retryable: boolean = TRANSIENT.has(failure),
	) {
		super("embedder_unavailable", message, { failure, ...details });
		this.retryable = retryable;
	}
}

/** 408, 429 and 5xx may pass; other statuses are the request's fault. */
export function isRetryableStatus(status: number): boolean {
	return status === 408 || status === 429 || status >= 500;
}
