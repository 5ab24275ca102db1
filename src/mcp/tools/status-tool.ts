import * as z from "zod";
import { errorMessage } from "../../engine/errors";
import { READ_ONLY, defineTool, type ToolEnv } from "../tool-kit";

/** Tools a multi-tenant gateway may want to gate (the seed's list, verbatim names). */
export const ADMIN_TOOLS = [
	{ name: "engrama_status", reason: "deployment-wide counts; no tenant isolation" },
	{ name: "engrama_reindex", reason: "data scoped to the caller's tenant, but a bulk re-embed is admin-flavoured" },
] as const;

/**
 * engrama_status: the architecture seed's stable JSON. Fields are absent (never null) when a
 * subsystem is off, so an agent can test `"path" in payload.vault`.
 */
export function statusTool(env: ToolEnv) {
	return defineTool({
		name: "engrama_status",
		title: "Engrama status",
		description:
			"Version, backend, this server's vault (path, note count), embedder, and the mode the next search runs in. Call it first, to know which vault 'the vault' means.",
		inputSchema: {},
		outputSchema: {
			version: z.string(),
			backend: z.looseObject({ name: z.string().optional(), ok: z.boolean(), node_count: z.number().optional() }),
			vault: z.looseObject({ configured: z.boolean(), path: z.string().optional(), note_count: z.number().optional() }),
			embedder: z.looseObject({ configured: z.boolean() }),
			search: z.looseObject({ mode: z.string(), degraded: z.boolean(), reason: z.string() }),
			admin_tools: z.array(z.looseObject({ name: z.string(), reason: z.string() })),
		},
		annotations: { ...READ_ONLY, title: "Engrama status" },
		async run() {
			const { services } = env;
			// The same snapshot as `engrama status` and the plugin's (Skills.status); counts are deployment-wide.
			const view = await env.skills.status({});
			const backend: Record<string, unknown> = { name: view.backend.reported?.replace(/-async$/, "") || view.backend.name, ok: view.backend.ok ?? false };
			if (typeof view.backend.nodes === "number") backend.node_count = view.backend.nodes;
			if (view.backend.error) backend.error = view.backend.error;
			else if (!view.backend.ok && view.backend.detail) backend.error = view.backend.detail;

			const vault: Record<string, unknown> = { configured: !!services.vault };
			if (services.vault) {
				vault.path = services.vault.path;
				try {
					vault.note_count = (await services.vault.source.list()).length;
				} catch (error) {
					vault.error = `vault listing failed: ${errorMessage(error)}`;
				}
			}

			const embedderInfo: Record<string, unknown> = { ...view.embedder };
			// What the next engrama_search will say (mode, degraded, reason), from the same face.
			const ready = view.search!;
			const search = {
				mode: ready.fusion,
				degraded: ready.degraded,
				reason: ready.reason ?? "",
				...(ready.cause ? { degraded_cause: ready.cause } : {}),
				channels: ready.degraded ? "fulltext_only" : "hybrid",
			};
			const structured = {
				version: services.version,
				backend,
				vault,
				embedder: embedderInfo,
				search,
				admin_tools: ADMIN_TOOLS.map((t) => ({ ...t })),
			};
			const summary = `Engrama ${services.version} on ${String(backend.name)} (${backend.ok ? "ok" : "not ok"}${typeof backend.node_count === "number" ? `, ${backend.node_count} nodes` : ""}); vault ${services.vault ? services.vault.path : "not configured"}; search ${search.mode}${search.degraded ? ` degraded (fulltext only: ${search.reason})` : ""}.`;
			return { structured, summary };
		},
	});
}
