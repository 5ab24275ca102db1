import { TFile, type App, type WorkspaceLeaf } from "obsidian";
import { isNoop, safeFileName } from "../engine/plain-values";
import { EngramaController } from "./engrama-controller";
import { CancelledError } from "./work-gate";
import type { Engine } from "./engine-host";
import { approveInsight, dismissInsight, insightsWithStatus, personContext, runReflect, writeInsightToNote } from "./insight-actions";
import { clientConfigurations } from "./mcp-bridge";
import { replaceMcpToken } from "./secrets";
import { formatCount, NOT_STARTED, noticeError, noticeInfo } from "./notices";
import { TimeLeft } from "./time-left";
import { idsToWrite, vaultUnderGit } from "./first-run";
import { EngramaView, VIEW_TYPE_ENGRAMA, type PanelTab } from "./ui/engrama-view";
import { confirm, previewSync, promptText } from "./ui/modals";
import { chooseNote } from "./ui/note-suggest-modal";
import { nodeOfFile, openNodeNote, type NotePlace } from "./ui/open-note";
import type { PanelActions } from "./ui/panel-actions";
import { addRelationToFrontmatter, chooseRelation } from "./ui/relation-modal";
import { relationText } from "./ui/relation-text";
import { SearchModal } from "./ui/search-modal";
import { describeIds, GIT_HINT } from "./ui/welcome";

/**
 * Every operation a person can start (command palette, panel buttons, settings), phrased as
 * small async functions that tell the person how it went. Long work goes through the task runner.
 */
export class EngramaActions implements PanelActions {
	constructor(private readonly controller: EngramaController) {}

	private get app(): App {
		return this.controller.app;
	}

	/** The engine, or null after telling the person why it is not there. */
	private async engine(): Promise<Engine | null> {
		if (this.controller.awaitingStart) {
			await this.pointToWelcome();
			return null;
		}
		try {
			return await this.controller.ready();
		} catch (error) {
			noticeError("is not ready", error);
			return null;
		}
	}

	/** Before the welcome's Start: says so, and opens the panel that holds the welcome. */
	async pointToWelcome(): Promise<void> {
		noticeInfo(NOT_STARTED, 8000);
		await this.openPanel();
	}

	private activeNote(): TFile | null {
		const file = this.app.workspace.getActiveFile();
		if (file instanceof TFile && file.extension === "md") return file;
		noticeInfo("open a note first.");
		return null;
	}

	// --- panel ---

	async openPanel(tab?: PanelTab): Promise<EngramaView | null> {
		const workspace = this.app.workspace;
		let leaf: WorkspaceLeaf | null = workspace.getLeavesOfType(VIEW_TYPE_ENGRAMA)[0] ?? null;
		if (!leaf) {
			leaf = workspace.getRightLeaf(false);
			if (!leaf) return null;
			await leaf.setViewState({ type: VIEW_TYPE_ENGRAMA, active: true });
		}
		await workspace.revealLeaf(leaf);
		const view = leaf.view instanceof EngramaView ? leaf.view : null;
		if (view && tab && view.activeTab !== tab) await view.showTab(tab);
		return view;
	}

	refreshPanels(): void {
		for (const leaf of this.app.workspace.getLeavesOfType(VIEW_TYPE_ENGRAMA)) {
			if (leaf.view instanceof EngramaView) void leaf.view.refresh();
		}
	}

	async showInsights(): Promise<void> {
		await this.openPanel("insights");
	}

	async openNode(nodeId: string, place?: NotePlace): Promise<void> {
		const engine = await this.engine();
		if (engine) await openNodeNote(this.app, engine, nodeId, place);
	}

	askReason(title: string): Promise<string | null> {
		return promptText(this.app, "Dismiss Insight", `Why dismiss "${title}"? (optional)`, "Not relevant, already done, wrong link…", "Dismiss");
	}

	// --- sync ---

	/** Dry run first: the person sees what would change, then applies. */
	async syncVault(): Promise<void> {
		const engine = await this.engine();
		if (!engine) return;
		const preview = await this.controller.fullSync(engine, { dryRun: true });
		if (!preview) return;
		if (!(await previewSync(this.app, preview))) return;
		const report = await this.controller.fullSync(engine);
		if (report) {
			this.controller.notifySynced(report);
			this.refreshPanels();
		}
	}

	async syncCurrentNote(): Promise<void> {
		const file = this.activeNote();
		const engine = file ? await this.engine() : null;
		if (!file || !engine) return;
		if (!engine.sync.isSyncedPath(file.path) || !engine.source.isVisible(file.path)) {
			noticeInfo(`"${file.path}" is outside the synced folders. Change the folders in the Engrama settings to include it.`);
			return;
		}
		try {
			const report = await engine.sync.syncPaths([file.path]);
			const problem = report.problems.find((p) => p.path === file.path);
			if (problem) noticeInfo(`${file.basename}: ${problem.problem} ${problem.action}`, 10_000);
			else noticeInfo(isNoop(report) ? `${file.basename} is already up to date.` : `synced ${file.basename}: ${EngramaController.describe(report)}.`);
			this.controller.scheduleCounts();
			this.refreshPanels();
		} catch (error) {
			noticeError(`syncing ${file.basename} failed`, error);
		}
	}

	/** After a second-writer refusal: the person confirms the other device is done with the memory. */
	async takeOverMemory(): Promise<void> {
		const ok = await confirm(
			this.app,
			"Use this memory on this device",
			"Do this only when the other device is done with it: Obsidian is closed there and your sync tool has finished copying. If both devices keep writing one database file, it gets corrupted.",
			"Use it here",
			true,
		);
		if (!ok) return;
		await this.controller.takeOver();
		this.refreshPanels();
	}

	/** Empties this identity's graph and rebuilds it from the notes (after confirmation). */
	async rebuildGraph(): Promise<void> {
		const engine = await this.engine();
		if (!engine) return;
		const { counts = { nodes: 0, edges: 0 } } = await engine.skills.status(engine.scope, { health: false, search: false, counts: true });
		const ok = await confirm(
			this.app,
			"Rebuild the graph from the vault",
			`The graph (${formatCount(counts.nodes)} nodes, ${formatCount(counts.edges)} relations) is emptied and rebuilt from your notes.\nInsight reviews and memories that were never written to notes are lost. Notes are not changed except for missing engrama_id values.`,
			"Rebuild",
			true,
		);
		if (!ok) return;
		const report = await this.controller.tasks.run("Rebuilding the graph", async (control) => {
			control.report("emptying the graph");
			await engine.skills.gdprForget(personContext(engine), { apply: true });
			return engine.sync.fullSync();
		});
		if (report) {
			this.controller.notifySynced(report);
			await this.controller.refreshCounts();
			this.refreshPanels();
		}
	}

	// --- search and context ---

	openSearch(): void {
		new SearchModal(this.controller).open();
	}

	async showContext(): Promise<void> {
		if (!this.activeNote()) return;
		await this.openPanel("context");
	}

	async addRelation(): Promise<void> {
		const file = this.activeNote();
		const engine = file ? await this.engine() : null;
		if (!file || !engine) return;
		let node = await nodeOfFile(this.app, engine, file);
		if (!node) {
			await this.syncCurrentNote();
			node = await nodeOfFile(this.app, engine, file);
		}
		if (!node) {
			noticeInfo(`${file.basename} is not in the graph, so it cannot have relations. Check its frontmatter.`);
			return;
		}
		const choice = await chooseRelation(this.app, engine, node);
		if (!choice) return;
		try {
			let added = false;
			await this.app.fileManager.processFrontMatter(file, (fm: Record<string, unknown>) => {
				added = addRelationToFrontmatter(fm, choice.type, choice.target);
			});
			if (!added) {
				noticeInfo(`${file.basename} already ${relationText(choice.type)} ${choice.targetName}.`);
				return;
			}
			await engine.sync.syncPaths([file.path]);
			noticeInfo(`added "${relationText(choice.type)} ${choice.targetName}" to ${file.basename}.`);
			this.refreshPanels();
		} catch (error) {
			noticeError("adding the relation failed", error);
		}
	}

	// --- reflect and Insights ---

	async reflect(): Promise<void> {
		const engine = await this.engine();
		if (!engine) return;
		const report = await this.controller.tasks.run("Reflecting", () => runReflect(engine));
		if (!report) return;
		const pending = report.insights.filter((i) => i.status === "pending").length;
		noticeInfo(
			report.created + report.refreshed === 0
				? "reflect found no new patterns."
				: `reflect proposed ${formatCount(report.created)} new Insights (${formatCount(pending)} to review). Open the Engrama panel to review them.`,
		);
		this.refreshPanels();
	}

	/** The Insight under review: the one selected in the panel, else the first pending one. */
	private async insightUnderReview(engine: Engine): Promise<string | null> {
		const pending = await insightsWithStatus(engine, "pending");
		const selected = this.controller.selectedInsight;
		const title = selected && pending.some((i) => i.title === selected) ? selected : (pending[0]?.title ?? null);
		if (!title) noticeInfo("no Insight is waiting for review. Run Reflect now to look for patterns.");
		return title;
	}

	async approveUnderReview(): Promise<void> {
		const engine = await this.engine();
		const title = engine ? await this.insightUnderReview(engine) : null;
		if (!engine || !title) return;
		try {
			await approveInsight(engine, title);
			noticeInfo(`approved "${title}".`);
			this.controller.selectedInsight = null;
			this.refreshPanels();
		} catch (error) {
			noticeError("approving the Insight failed", error);
		}
	}

	async dismissUnderReview(): Promise<void> {
		const engine = await this.engine();
		const title = engine ? await this.insightUnderReview(engine) : null;
		if (!engine || !title) return;
		const reason = await this.askReason(title);
		if (reason === null) return;
		try {
			await dismissInsight(engine, title, reason || undefined);
			noticeInfo(`dismissed "${title}".`);
			this.controller.selectedInsight = null;
			this.refreshPanels();
		} catch (error) {
			noticeError("dismissing the Insight failed", error);
		}
	}

	async writeInsight(title: string): Promise<void> {
		const engine = await this.engine();
		if (!engine) return;
		const folder = this.controller.settings.sync.insightsFolder;
		const choice = await chooseNote(this.app, `${folder}/${safeFileName(title)}.md`);
		if (!choice) return;
		try {
			const result = await writeInsightToNote(engine, title, choice.kind === "create" ? { kind: "create", folder } : { kind: "append", path: choice.file.path });
			noticeInfo(
				result.written ? `wrote "${title}" into ${result.path}.` : `${result.path} already holds "${title}"; nothing was written again.`,
			);
			this.refreshPanels();
		} catch (error) {
			noticeError("writing the Insight into a note failed", error);
		}
	}

	// --- maintenance ---

	/**
	 * From paths to ids: shows how many notes would get an engrama_id (a dry run) and, in a git
	 * vault, the hint; on yes saves the choice and writes the ids paced. False when the person said no.
	 */
	async switchToIds(): Promise<boolean> {
		const engine = await this.engine();
		if (!engine) return false;
		const paths = await this.controller.tasks.run("Checking which notes lack an engrama_id", () => idsToWrite(this.app, engine.sync, { dryRun: true }));
		if (paths === null) return false;
		const git = paths.length > 0 && (await vaultUnderGit(this.app));
		const message = [describeIds({ ids: paths.length }), ...(git ? [GIT_HINT] : []), "Notes added or edited later get their id when they are synced."].join("\n");
		if (!(await confirm(this.app, "Write engrama_id into notes", message, paths.length > 0 ? "Write the ids" : "Turn on"))) return false;
		const refused = await this.controller.saveSettings((s) => (s.sync.writeEngramaIds = true), { apply: false });
		if (refused !== null) {
			noticeError("could not save the setting", new Error(refused));
			return false;
		}
		// The sync is rebuilt with ids on; the catch-up sync it starts runs before the ids are written.
		await this.controller.restart();
		if (paths.length > 0) await this.controller.writeMissingIds();
		return true;
	}

	/** Finishes a cancelled id run (or writes the ids of notes that lost theirs), paced. */
	async writeMissingIds(): Promise<void> {
		if (!this.controller.settings.sync.writeEngramaIds) {
			noticeInfo("notes are followed by their path. Turn on “Write engrama_id” in the Engrama settings first.");
			return;
		}
		await this.controller.writeMissingIds().catch((error: unknown) => noticeError("could not write the ids", error));
	}

	/** Downloads the local model chosen in settings; then embeds the nodes that have no vector yet. */
	async downloadLocalModel(): Promise<boolean> {
		const ready = await this.controller.downloadLocalModel();
		if (!ready || this.controller.settings.embedding.provider !== "local") return ready;
		// The reopened engine first catches up with the vault; embedding the rest follows it.
		await this.controller.tasks.whenIdle();
		await this.reembedMissing();
		return true;
	}

	async downloadAndUseLocalModel(model: string): Promise<boolean> {
		// The provider turns "local" only once the model is on this device: a failed or cancelled
		// download leaves search by words, as it was, instead of an embedder that cannot load.
		if (!(await this.controller.downloadLocalModel(model))) return false;
		await this.controller.saveSettings((s) => {
			s.embedding.provider = "local";
			s.embedding.model = model;
		}, { apply: false });
		await this.controller.restart();
		await this.controller.tasks.whenIdle();
		await this.reembedMissing();
		return true;
	}

	async reembedMissing(): Promise<void> {
		const engine = await this.engine();
		if (!engine) return;
		if (!engine.embedder) {
			noticeInfo(`embeddings are off (${engine.embedderNote}). Choose an embedding provider in the Engrama settings first.`);
			return;
		}
		if (!engine.embedderReady) {
			noticeInfo(engine.embedderNote);
			return;
		}
		const left = new TimeLeft();
		const report = await this.controller.tasks.run("Embedding missing vectors", (control) =>
			// 64 texts per call: on the main thread (~30 ms a text) Cancel and the progress answer within about two seconds.
			engine.skills.reindex(engine.scope, { apply: true, batchSize: 64, onProgress: (p) => control.report(left.progress(p.done, p.total, Date.now())) }),
		);
		if (report) {
			noticeInfo(
				report.to_embed === 0
					? "every node already has a vector."
					: `embedded ${formatCount(report.embedded)} nodes${report.failed > 0 ? `, ${formatCount(report.failed)} failed (${report.errors[0] ?? ""})` : ""}.`,
			);
		}
	}

	/**
	 * VACUUM of the memory file (free pages back to the disk), alone in the write queue: sync and the
	 * MCP bridge's writes wait, and Obsidian may pause while SQLite rewrites the file (about a second
	 * per 10 MB). On Neo4j it says there is nothing to do.
	 */
	async compactMemory(): Promise<void> {
		const engine = await this.engine();
		if (!engine) return;
		// The face, evaluated with the engine when it opened; imported here so main.js's load does not evaluate it.
		const { describeCompact } = await import("../engine");
		if (!engine.skills.compacts) {
			noticeInfo(lowerFirst(describeCompact({ backend: engine.skills.backendName, compacted: false, bytes_before: null, bytes_after: null })));
			return;
		}
		noticeInfo("compacting the memory database; Obsidian may pause for a few seconds.");
		const view = await this.controller.tasks.run("Compacting the memory database", () => engine.skills.compact());
		if (view) noticeInfo(lowerFirst(describeCompact(view)));
	}

	/** Copies the open SQLite memory into the Neo4j database of the settings and verifies the copy. */
	async copyMemoryToNeo4j(): Promise<void> {
		const engine = await this.engine();
		if (!engine) return;
		if (engine.config.backend !== "sqlite") {
			noticeInfo("the open memory is already on Neo4j. Choose SQLite as the backend to copy a SQLite memory.");
			return;
		}
		// The connection settings as they are now (changing them does not reopen a SQLite engine).
		const config = { ...engine.config, backend: "neo4j" as const, neo4j: { ...this.controller.settings.neo4j } };
		const uri = config.neo4j.uri;
		// Loaded on demand: the driver stays unevaluated unless Neo4j is used.
		const { closeBackend, createNeo4jBackend, migrateMemory, scopeCounts, testConnection } = await import("../backends");
		const problem = await testConnection(config);
		if (problem !== null) {
			noticeInfo(`Neo4j did not answer: ${problem}`);
			return;
		}
		const target = await createNeo4jBackend(config);
		try {
			const there = await scopeCounts(target, engine.scope);
			const replace = there.nodes > 0;
			const message = replace
				? `Neo4j at ${uri} already holds ${formatCount(there.nodes)} nodes of this memory. They will be replaced by a copy of the ${formatCount((await scopeCounts(engine.backend, engine.scope)).nodes)} nodes in ${engine.location}. The SQLite file is not changed.`
				: `Copies every node, relation, vector, history entry and Insight of ${engine.location} into Neo4j at ${uri}, then checks that both hold the same. The SQLite file is not changed.`;
			if (!(await confirm(this.controller.app, "Copy memory to Neo4j", message, replace ? "Replace and copy" : "Copy", replace))) return;
			const report = await this.controller.tasks.run("Copying the memory to Neo4j", async (control) => {
				// Vault events wait: a note synced halfway through would make the two memories differ.
				await engine.sync.stop();
				try {
					return await migrateMemory(engine.backend, target, {
						replace,
						onProgress: (line) => {
							if (control.signal.aborted) throw new CancelledError("Copying the memory to Neo4j");
							control.report(line);
						},
					});
				} finally {
					if (this.controller.settings.sync.autoSync) engine.sync.start();
				}
			});
			if (!report) return;
			const nodes = report.scopes.reduce((n, s) => n + s.target.nodes, 0);
			const edges = report.scopes.reduce((n, s) => n + s.target.edges, 0);
			if (report.verified) noticeInfo(`copied ${formatCount(nodes)} nodes and ${formatCount(edges)} relations to Neo4j and verified them. Choose Neo4j as the backend in settings to use the copy.`);
			else noticeInfo(`the copy to Neo4j differs from this memory: ${report.scopes.flatMap((s) => s.differences).slice(0, 3).join("; ") || "counts differ"}. Run it again to replace it.`);
		} finally {
			await closeBackend(target);
		}
	}

	async runDecay(): Promise<void> {
		const engine = await this.engine();
		if (!engine) return;
		const { rate, maxAgeDays } = this.controller.settings.decay;
		const report = await this.controller.tasks.run("Running decay", () => engine.skills.decay(personContext(engine), { rate, maxAgeDays }));
		// Read-only since engrama-py 0.18.1's behaviour: say so, and what age does to ranking.
		if (report) {
			noticeInfo(
				`Decay no longer changes stored confidence; search weighs age when ranking (half-life ${report.halfLifeDays} days). ` +
					`${formatCount(report.aged)} of ${formatCount(report.examined)} nodes not updated for ${maxAgeDays} days.`,
			);
		}
	}

	// --- MCP bridge ---

	async startBridge(): Promise<void> {
		if (!this.controller.bridge.available) {
			noticeInfo("the MCP bridge needs the desktop app.");
			return;
		}
		try {
			if (!this.controller.settings.mcp.enabled) await this.controller.saveSettings((s) => (s.mcp.enabled = true), { apply: false });
			await this.controller.startBridge();
			const state = this.controller.bridge.state;
			if (state.kind === "listening") noticeInfo(`the MCP bridge is listening on ${state.url}.`);
		} catch (error) {
			noticeError("the MCP bridge did not start", error);
		}
	}

	async stopBridge(): Promise<void> {
		await this.controller.saveSettings((s) => (s.mcp.enabled = false), { apply: false });
		await this.controller.bridge.stop();
		noticeInfo("the MCP bridge is stopped.");
	}

	async copyMcpConfig(): Promise<void> {
		const configs = clientConfigurations(this.controller.settings.mcp.port, this.controller.mcpToken(), this.controller.tokenFile());
		const text = `// Streamable HTTP (Claude Desktop, Cursor, any MCP client)\n${configs.http}\n\n// stdio-only clients: the proxy forwards to the running bridge\n${configs.stdio}\n\n// Claude Code\n${configs.claudeCode}\n`;
		try {
			await navigator.clipboard.writeText(text);
			noticeInfo("copied the MCP client configuration (HTTP with the token, and the stdio proxy variant).");
		} catch (error) {
			noticeError("could not copy to the clipboard", error);
		}
	}

	async regenerateToken(): Promise<void> {
		const ok = await confirm(
			this.app,
			"Regenerate the MCP token",
			"Every agent configured with the current token loses access until you give it the new one.",
			"Regenerate",
			true,
		);
		if (!ok) return;
		replaceMcpToken(this.app);
		if (this.controller.bridge.state.kind === "listening") {
			await this.controller.startBridge().catch((error: unknown) => noticeError("the MCP bridge did not restart", error));
		}
		noticeInfo("a new MCP token is in place. Copy the client configuration again.");
	}
}

/** A sentence of the command line's as the rest of a notice ("Engrama: …"). */
function lowerFirst(text: string): string {
	return text.charAt(0).toLowerCase() + text.slice(1);
}
