/**
 * Expected failures, each named and phrased so the caller knows what to change.
 * `code` is stable for machine use (CLI exit payloads, MCP isError results).
 */
export class EngramaError extends Error {
	constructor(
		readonly code: string,
		message: string,
		readonly details: Readonly<Record<string, unknown>> = {},
	) {
		super(message);
		this.name = new.target.name;
	}
}

/** Input that breaks the profile or the limits: unknown label, bad relation, oversize value. */
export class ValidationError extends EngramaError {
	constructor(message: string, details: Readonly<Record<string, unknown>> = {}) {
		super("invalid_input", message, details);
	}
}

export class NotFoundError extends EngramaError {
	constructor(message: string, details: Readonly<Record<string, unknown>> = {}) {
		super("not_found", message, details);
	}
}

/** A write without a full (org_id, user_id) scope. */
export class ScopeError extends EngramaError {
	constructor(message: string) {
		super("scope_required", message);
	}
}

/** The backend cannot be reached or refused the operation; nothing was written. */
export class BackendError extends EngramaError {
	constructor(message: string, details: Readonly<Record<string, unknown>> = {}) {
		super("backend_unavailable", message, details);
	}
}

export function errorMessage(error: unknown): string {
	return error instanceof Error ? error.message : String(error);
}
