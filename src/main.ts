import { FileSystemAdapter, Notice, Plugin } from "obsidian";
import { createBackend } from "./backends/factory";
import { parseConfig } from "./config/engrama-config";
import { resolveIdentity } from "./engine/identity";
import { Memory } from "./engine/memory";
import { errorMessage } from "./engine/errors";
import type { Scope } from "./engine/types";
import { loadBundledProfile } from "./plugin/bundled-profiles";

/** Wires the engine into Obsidian. Heavy work waits for layout ready; everything is released on unload. */
export default class EngramaPlugin extends Plugin {
	memory: Memory | null = null;
	scope: Scope | null = null;

	override async onload(): Promise<void> {
		const status = this.addStatusBarItem();
		status.setText("Engrama: starting");
		this.app.workspace.onLayoutReady(() => {
			void this.startEngine(status);
		});
	}

	private async startEngine(status: HTMLElement): Promise<void> {
		try {
			const adapter = this.app.vault.adapter;
			if (!(adapter instanceof FileSystemAdapter)) {
				status.setText("Engrama: desktop only for now");
				return;
			}
			const dir = `${adapter.getBasePath()}/${this.manifest.dir ?? `${this.app.vault.configDir}/plugins/engrama`}`;
			const config = parseConfig({ backend: "sqlite", dbPath: `${dir}/engrama.db` });
			const { graph, vectors } = await createBackend(config);
			this.memory = new Memory({ graph, vectors, profile: loadBundledProfile("base", []) });
			this.scope = await resolveIdentity(graph, config);
			const counts = await graph.counts(this.scope);
			status.setText(`Engrama: ${counts.nodes} nodes`);
		} catch (error) {
			status.setText("Engrama: error");
			new Notice(`Engrama could not open its memory: ${errorMessage(error)}`);
		}
	}

	override onunload(): void {
		const memory = this.memory;
		this.memory = null;
		void memory?.close();
	}
}
