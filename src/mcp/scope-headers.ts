import type { PartialScope, Scope } from "../engine/types";

export const ORG_HEADER = "x-engrama-org-id";
export const USER_HEADER = "x-engrama-user-id";

/** Header values a gateway may send: printable, no spaces inside, bounded. */
const ID_PATTERN = /^[A-Za-z0-9._:@|+=/-]{1,200}$/;

export type HeaderBag = Readonly<Record<string, string | readonly string[] | undefined>>;

/** The scope of one call, and why it is not a full one (used in refusal messages). */
export interface CallScope {
	readonly scope: PartialScope;
	/** Set when the headers were partial or malformed: reads then return nothing, writes are refused. */
	readonly problem?: string;
	readonly standalone: boolean;
}

function headerValue(headers: HeaderBag, name: string): string | undefined {
	const raw = headers[name] ?? headers[name.toLowerCase()];
	const value = Array.isArray(raw) ? raw.join(",") : (raw as string | undefined);
	const trimmed = value?.trim();
	return trimmed ? trimmed : undefined;
}

/**
 * `X-Engrama-Org-Id` / `X-Engrama-User-Id` → the call's scope. Neither → the standalone identity;
 * both (well-formed) → that scope; exactly one, or a malformed value → a partial scope, so the
 * engine's fail-closed rules apply (reads match nothing, writes are refused).
 */
export function scopeFromHeaders(headers: HeaderBag | undefined, standalone: Scope): CallScope {
	if (!headers) return { scope: standalone, standalone: true };
	const org = headerValue(headers, ORG_HEADER);
	const user = headerValue(headers, USER_HEADER);
	if (org === undefined && user === undefined) return { scope: standalone, standalone: true };
	if (org === undefined || user === undefined) {
		return {
			scope: { orgId: org ?? null, userId: user ?? null },
			standalone: false,
			problem: `Only ${org === undefined ? "X-Engrama-User-Id" : "X-Engrama-Org-Id"} was sent. Send both X-Engrama-Org-Id and X-Engrama-User-Id, or neither to use the standalone identity.`,
		};
	}
	if (!ID_PATTERN.test(org) || !ID_PATTERN.test(user)) {
		return {
			scope: { orgId: null, userId: null },
			standalone: false,
			problem: "X-Engrama-Org-Id and X-Engrama-User-Id must be 1-200 characters of letters, digits and . _ : @ | + = / -.",
		};
	}
	return { scope: { orgId: org, userId: user }, standalone: false };
}

/**
 * Without gateway mode the bridge serves its own identity only: tenant headers are accepted when
 * absent or when both name that identity; anything else gets this refusal (sent as HTTP 403).
 */
export function foreignTenantRefusal(headers: HeaderBag, own: Scope): string | undefined {
	const org = headerValue(headers, ORG_HEADER);
	const user = headerValue(headers, USER_HEADER);
	if (org === undefined && user === undefined) return undefined;
	if (org === own.orgId && user === own.userId) return undefined;
	return (
		"Refused: this Engrama bridge serves one memory identity, and the X-Engrama-Org-Id / X-Engrama-User-Id headers name another. " +
		"Send the request without them. Behind a gateway that sets them per tenant, start the bridge with engrama serve --allow-tenant-headers (or ENGRAMA_ALLOW_TENANT_HEADERS=true)."
	);
}
