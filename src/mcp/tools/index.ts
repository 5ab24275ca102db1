import type { EngramaTool, ToolEnv } from "../tool-kit";
import { approveInsightTool } from "./approve-insight-tool";
import { contextTool } from "./context-tool";
import { gdprForgetTool } from "./gdpr-forget-tool";
import { ingestTool } from "./ingest-tool";
import { readNoteTool } from "./read-note-tool";
import { reflectTool } from "./reflect-tool";
import { reindexTool } from "./reindex-tool";
import { relatedTool } from "./related-tool";
import { relateTool } from "./relate-tool";
import { rememberTool } from "./remember-tool";
import { searchTool } from "./search-tool";
import { statusTool } from "./status-tool";
import { surfaceInsightsTool } from "./surface-insights-tool";
import { syncNoteTool } from "./sync-note-tool";
import { syncVaultTool } from "./sync-vault-tool";
import { writeInsightTool } from "./write-insight-tool";

/** The sixteen tools (the Python engrama's fourteen, engrama_read_note and engrama_related), in the order agents usually need them. */
export function engramaTools(env: ToolEnv): EngramaTool[] {
	return [
		statusTool(env),
		searchTool(env),
		rememberTool(env),
		relateTool(env),
		contextTool(env),
		relatedTool(env),
		readNoteTool(env),
		syncNoteTool(env),
		syncVaultTool(env),
		ingestTool(env),
		reindexTool(env),
		reflectTool(env),
		surfaceInsightsTool(env),
		approveInsightTool(env),
		writeInsightTool(env),
		gdprForgetTool(env),
	] as EngramaTool[];
}

export const TOOL_NAMES = [
	"engrama_status",
	"engrama_search",
	"engrama_remember",
	"engrama_relate",
	"engrama_context",
	"engrama_related",
	"engrama_read_note",
	"engrama_sync_note",
	"engrama_sync_vault",
	"engrama_ingest",
	"engrama_reindex",
	"engrama_reflect",
	"engrama_surface_insights",
	"engrama_approve_insight",
	"engrama_write_insight_to_vault",
	"engrama_gdpr_forget",
] as const;
