import type { EngramaController } from "../engrama-controller";
import type { DownloadProgress } from "../local-model/model-downloader";
import { formatCount } from "../notices";

/** " 42% (file 4 of 5)" while a file's size is known. */
function downloadPercent(p: DownloadProgress | null): string {
	if (!p) return "…";
	return p.total > 0 ? ` ${Math.floor((100 * p.loaded) / p.total)}% (file ${p.fileIndex} of ${p.fileCount})` : ` (file ${p.fileIndex} of ${p.fileCount})`;
}

/** Node count, sync state, embedder state and MCP state; a click opens the panel. */
export class StatusBar {
	private readonly nodesEl: HTMLElement;
	private readonly syncEl: HTMLElement;
	private readonly embedEl: HTMLElement;
	private readonly mcpEl: HTMLElement;

	constructor(
		private readonly el: HTMLElement,
		private readonly controller: EngramaController,
		onClick: () => void,
	) {
		el.addClass("engrama-status", "mod-clickable");
		this.nodesEl = el.createSpan({ cls: "engrama-status-nodes" });
		this.syncEl = el.createSpan({ cls: "engrama-status-sync" });
		this.embedEl = el.createSpan({ cls: "engrama-status-embed" });
		this.mcpEl = el.createSpan({ cls: "engrama-status-mcp" });
		el.addEventListener("click", onClick);
		this.render();
	}

	/** The whole status line as text (tests and the tooltip). */
	get text(): string {
		return [this.nodesEl, this.syncEl, this.embedEl, this.mcpEl]
			.map((e) => e.getText())
			.filter(Boolean)
			.join(" · ");
	}

	render(): void {
		const { host, tasks, bridge, counts } = this.controller;
		const state = host.state;
		this.el.toggleClass("is-error", state.kind === "failed");
		if (state.kind === "failed") {
			this.nodesEl.setText("Engrama: error");
			this.el.setAttr("aria-label", `Engrama could not open its memory: ${state.error}`);
		} else if (this.controller.awaitingStart) {
			this.nodesEl.setText("Engrama: not started");
			this.el.setAttr("aria-label", "Open the Engrama panel to see what it would do, and start it");
		} else if (state.kind !== "ready") {
			this.nodesEl.setText("Engrama: starting…");
			this.el.setAttr("aria-label", "Engrama is opening its memory");
		} else {
			this.nodesEl.setText(counts ? `Engrama: ${formatCount(counts.nodes)} nodes` : "Engrama");
			this.el.setAttr("aria-label", `${state.engine.location}\n${counts ? `${formatCount(counts.edges)} relations` : ""}`.trim());
		}
		const task = tasks.current;
		const lastError = this.controller.activity.lastError;
		this.syncEl.setText(task ? `${task.title.toLowerCase()}${task.detail ? ` ${task.detail}` : "…"}` : lastError ? "sync error" : "");
		this.syncEl.toggleClass("is-error", !task && !!lastError);
		const engine = host.engine;
		const download = this.controller.models.state;
		const vectors = engine
			? engine.embedder
				? `vectors: ${engine.embedder.model || engine.embedder.name}${engine.embedderReady ? "" : " (not downloaded)"}`
				: "vectors off"
			: "";
		this.embedEl.setText(download.kind === "downloading" ? `downloading model${downloadPercent(download.progress)}` : vectors);
		const mcp = bridge.state;
		this.mcpEl.setText(
			!bridge.available ? "" : mcp.kind === "listening" ? `MCP :${mcp.port}` : mcp.kind === "failed" ? "MCP error" : mcp.kind === "starting" ? "MCP starting" : "MCP off",
		);
		this.mcpEl.toggleClass("is-error", mcp.kind === "failed");
	}
}
