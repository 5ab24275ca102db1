// Secrets of the built main.js: never in data.json (which sync tools copy and git commits), kept in
// Obsidian's keychain (app.secretStorage, per vault and device), moved there once from an earlier data.json.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, test, vi } from "vitest";
import { PLUGIN_DIR, loadPlugin, makeVault, manifest, waitFor, type LoadedPlugin, type PluginInstance, type VaultCopy } from "./harness";

let h: LoadedPlugin;
const cleanup: (() => Promise<void> | void)[] = [];

beforeAll(async () => {
	h = await loadPlugin();
});

afterEach(async () => {
	for (const step of cleanup.splice(0).reverse()) await step();
	h.fake.fakeReset();
});

const PASSWORD = "neo4j-pass-7f3a";
const API_KEY = "sk-test-key-91c2e";
const TOKEN = "old-bridge-token-0123456789abcdefghijklmnopqrstuvwxyz";

async function load(vault: VaultCopy): Promise<{ plugin: PluginInstance; app: ReturnType<LoadedPlugin["fake"]["createFakeApp"]> }> {
	const app = h.fake.createFakeApp(vault.path);
	const plugin = new h.Plugin(app, manifest());
	await plugin.fakeLoad();
	await app.workspace.fakeLayoutReady();
	cleanup.push(async () => {
		plugin.unload();
		await plugin.closed;
	});
	return { plugin, app };
}

const dataJson = (vault: VaultCopy) => readFileSync(join(vault.path, PLUGIN_DIR, "data.json"), "utf8");

// Three plugin starts in the first test: minutes at the load of a shared 2-core machine.
vi.setConfig({ testTimeout: 180_000 });

describe("secrets", () => {
	test("an earlier data.json's plain-text secrets move to the keychain once; data.json keeps none of them", async () => {
		const vault = makeVault({
			settings: {
				neo4j: { uri: "bolt://localhost:7687", username: "neo4j", password: PASSWORD, database: "neo4j" },
				embedding: { provider: "openai", model: "text-embedding-3-small", baseUrl: "http://127.0.0.1:9/v1", apiKey: API_KEY, dimensions: 8 },
				mcp: { enabled: false, token: TOKEN },
				sync: { autoSync: false },
			},
		});
		cleanup.push(() => vault.cleanup());
		const { plugin, app } = await load(vault);
		const engine = await plugin.controller!.ready();
		const text = dataJson(vault);
		for (const secret of [PASSWORD, API_KEY, TOKEN]) expect(text).not.toContain(secret);
		expect(JSON.parse(text)).toMatchObject({ neo4j: { passwordSecret: "engrama-neo4j-password" }, embedding: { apiKeySecret: "engrama-embedding-api-key" } });
		expect(app.secretStorage.getSecret("engrama-neo4j-password")).toBe(PASSWORD);
		expect(app.secretStorage.getSecret("engrama-embedding-api-key")).toBe(API_KEY);
		// The engine and the bridge still get them.
		expect(engine.config.embedding.apiKey).toBe(API_KEY);
		expect(plugin.controller!.mcpToken()).toBe(TOKEN);
		const told = h.fake.fakeNotices.find((n) => n.text.includes("into Obsidian's keychain"));
		expect(told?.text).toContain("the Neo4j password, the embedding API key, the MCP bridge token");
		expect(told?.text).toContain("other devices");

		// Once: the next start finds nothing to move and says nothing.
		plugin.unload();
		await plugin.closed;
		h.fake.fakeReset();
		const again = await load(vault);
		await again.plugin.controller!.ready();
		expect(h.fake.fakeNotices.some((n) => n.text.includes("keychain"))).toBe(false);
		expect((await again.plugin.controller!.ready()).config.embedding.apiKey).toBe(API_KEY);

		// Another device (its keychain is its own) is told which secret to enter there.
		again.plugin.unload();
		await again.plugin.closed;
		h.fake.fakeNewDevice();
		await load(vault);
		await waitFor(() => h.fake.fakeNotices.find((n) => n.text.includes("this device does not have the embedding API key")), "the missing-secret notice", 60_000);
	});

	test("a secret chosen in settings is stored by name; the engine reopens with its value; data.json never holds it", async () => {
		const vault = makeVault({ settings: { embedding: { provider: "openai", model: "text-embedding-3-small", baseUrl: "http://127.0.0.1:9/v1", dimensions: 8 }, sync: { autoSync: false } } });
		cleanup.push(() => vault.cleanup());
		const { plugin, app } = await load(vault);
		await plugin.controller!.ready();
		// The person creates a secret named "openai-work" in Obsidian's keychain, then picks it in the setting.
		app.secretStorage.setSecret("openai-work", "sk-live-abc123");
		const tab = app.settingTabs[0];
		tab.display();
		const setting = Array.from(tab.containerEl.querySelectorAll<HTMLElement>(".setting-item")).find((s) => s.querySelector(".setting-item-name")?.textContent === "API key");
		expect(setting?.textContent).toContain("never in data.json");
		const picker = setting?.querySelector<HTMLSelectElement>("select.secret-component");
		if (!picker) throw new Error("no secret picker in the API key setting");
		expect(Array.from(picker.options).map((o) => o.value)).toContain("openai-work");
		picker.value = "openai-work";
		picker.dispatchEvent(new window.Event("change"));
		await waitFor(() => (JSON.parse(dataJson(vault)) as { embedding: { apiKeySecret: string } }).embedding.apiKeySecret === "openai-work", "the saved secret name");
		await waitFor(async () => plugin.controller!.host.engine?.config.embedding.apiKey === "sk-live-abc123" && (await plugin.controller!.ready()), "the engine with the key");
		expect(dataJson(vault)).not.toContain("sk-live-abc123");

		// Regenerating the bridge token keeps it out of data.json too.
		const before = plugin.controller!.mcpToken();
		const regenerated = plugin.actions!.regenerateToken();
		const modal = await waitFor(() => h.fake.fakeOpenModals.at(-1), "the confirmation");
		Array.from(modal.contentEl.querySelectorAll("button")).find((b) => b.textContent === "Regenerate")?.click();
		await regenerated;
		expect(plugin.controller!.mcpToken()).not.toBe(before);
		expect(dataJson(vault)).not.toContain(plugin.controller!.mcpToken());
		expect(dataJson(vault)).not.toContain(before);
	});
});
