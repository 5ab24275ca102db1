import { ScopeError } from "./errors";
import type { PartialScope, Scope } from "./types";

/** True only when both parts are non-empty strings: anything less is fail-closed. */
export function isFullScope(scope: PartialScope | null | undefined): scope is Scope {
	return (
		!!scope &&
		typeof scope.orgId === "string" &&
		scope.orgId.length > 0 &&
		typeof scope.userId === "string" &&
		scope.userId.length > 0
	);
}

export function requireScope(scope: PartialScope | null | undefined): Scope {
	if (!isFullScope(scope)) {
		throw new ScopeError(
			"Writes need a full scope (org_id and user_id). Set both X-Engrama-Org-Id and X-Engrama-User-Id, or neither to use the standalone identity.",
		);
	}
	return { orgId: scope.orgId, userId: scope.userId };
}

/** The identity of a single-person install: org "standalone", user derived once and kept in settings. */
export function standaloneScope(userId: string): Scope {
	return { orgId: "standalone", userId };
}
