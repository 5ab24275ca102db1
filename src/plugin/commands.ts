import type { Plugin } from "obsidian";
import type { EngramaActions } from "./actions";
import type { EngramaController } from "./engrama-controller";

/** The command palette entries (sentence case, no default hotkeys). */
export function registerCommands(plugin: Plugin, controller: EngramaController, actions: EngramaActions): void {
	// Before the welcome's Start a command would save a setting or open a memory the person has not
	// agreed to yet: each says so and opens the welcome instead (only "Open panel" runs as such).
	const started = (run: () => unknown) => () => (controller.awaitingStart ? actions.pointToWelcome() : run());
	const add = (id: string, name: string, run: () => unknown) => plugin.addCommand({ id, name, callback: () => void started(run)() });
	const when = (id: string, name: string, available: () => boolean, run: () => unknown) =>
		plugin.addCommand({
			id,
			name,
			checkCallback: (checking) => {
				if (!available()) return false;
				if (!checking) void started(run)();
				return true;
			},
		});
	const hasNote = () => controller.app.workspace.getActiveFile()?.extension === "md";
	const desktop = () => controller.bridge.available;

	add("sync-vault", "Sync vault to graph", () => actions.syncVault());
	when("sync-current-note", "Sync current note", hasNote, () => actions.syncCurrentNote());
	add("search-memory", "Search memory", () => actions.openSearch());
	add("reflect-now", "Reflect now", () => actions.reflect());
	plugin.addCommand({ id: "open-panel", name: "Open panel", callback: () => void actions.openPanel() });
	when("show-context", "Show graph context of the current note", hasNote, () => actions.showContext());
	when("add-relation", "Add a relation from the current note", hasNote, () => actions.addRelation());
	add("approve-insight", "Approve the Insight under review", () => actions.approveUnderReview());
	add("dismiss-insight", "Dismiss the Insight under review", () => actions.dismissUnderReview());
	when("take-over-memory", "Use this memory on this device", () => controller.host.state.kind === "failed", () => actions.takeOverMemory());
	add("rebuild-graph", "Rebuild the graph from the vault", () => actions.rebuildGraph());
	add("reembed-missing", "Re-embed missing vectors", () => actions.reembedMissing());
	when("write-missing-ids", "Write missing note ids into frontmatter", () => controller.settings.sync.writeEngramaIds, () => actions.writeMissingIds());
	add("run-decay", "Run decay", () => actions.runDecay());
	add("compact-memory", "Compact the memory database", () => actions.compactMemory());
	add("copy-memory-to-neo4j", "Copy memory to Neo4j", () => actions.copyMemoryToNeo4j());
	when("start-mcp-bridge", "Start the MCP bridge", () => desktop() && controller.bridge.state.kind !== "listening", () => actions.startBridge());
	when("stop-mcp-bridge", "Stop the MCP bridge", () => desktop() && controller.bridge.state.kind !== "off", () => actions.stopBridge());
	when("copy-mcp-config", "Copy MCP client configuration", desktop, () => actions.copyMcpConfig());
	when("regenerate-mcp-token", "Regenerate the MCP token", desktop, () => actions.regenerateToken());
}
