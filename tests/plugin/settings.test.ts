import { describe, expect, test } from "vitest";
import {
	DEFAULT_SETTINGS,
	SETTINGS_VERSION,
	activeModules,
	formatFolderLabels,
	loadSettings,
	parseFolderLabels,
	parseFolderList,
	settingsImpact,
	syncSettingsOf,
	updateSettings,
} from "../../src/plugin/settings";
import { engineConfig } from "../../src/plugin/engine-config";

describe("loading data.json", () => {
	test("missing or garbage data gives the defaults without complaint", () => {
		for (const raw of ["text", [], 42]) {
			expect(loadSettings(raw)).toEqual({ settings: DEFAULT_SETTINGS, problems: [] });
		}
		// No data.json at all: the plugin never ran in this vault, the welcome waits for the person.
		for (const raw of [null, undefined]) {
			expect(loadSettings(raw)).toEqual({ settings: { ...DEFAULT_SETTINGS, firstRun: "pending" }, problems: [] });
		}
		// A data.json of an earlier version (no firstRun key): that vault synced already, no welcome.
		expect(loadSettings({ backend: "sqlite", sync: { autoSync: true } }).settings.firstRun).toBe("done");
		expect(DEFAULT_SETTINGS.firstRun).toBe("done");
		expect(DEFAULT_SETTINGS.backend).toBe("sqlite");
		expect(DEFAULT_SETTINGS.mcp).toEqual({ enabled: false, port: 27182, token: "" });
		expect(DEFAULT_SETTINGS.sync.autoSync).toBe(true);
	});

	test("one invalid value is reported and reset; the other values are kept", () => {
		const { settings, problems } = loadSettings({
			profile: "developer",
			mcp: { enabled: true, port: 80, token: "abc" },
			embedding: { provider: "openai", baseUrl: "ftp://example.com", model: "m" },
			unknownKey: true,
		});
		expect(problems).toHaveLength(2);
		expect(problems).toContain("embedding.baseUrl: must start with http:// or https://");
		expect(problems.find((p) => p.startsWith("mcp.port: "))).toMatch(/Too small/);
		expect(settings.profile).toBe("developer");
		expect(settings.mcp).toEqual({ enabled: true, port: 27182, token: "abc" });
		expect(settings.embedding).toMatchObject({ provider: "openai", baseUrl: "", model: "m" });
		expect(settings).not.toHaveProperty("unknownKey");
	});

	test("a file from before version 1 names the local model it used (all-MiniLM-L6-v2); a newer one and a new install keep the default", () => {
		const old = loadSettings({ embedding: { provider: "local", model: "" }, profile: "developer" }).settings;
		expect(old.embedding.model).toBe("Xenova/all-MiniLM-L6-v2");
		expect(old.settingsVersion).toBe(SETTINGS_VERSION);
		expect(old.profile).toBe("developer");
		// Saved and loaded again (data.json now says its version): unchanged.
		expect(loadSettings(structuredClone(old)).settings).toEqual(old);
		// A model chosen before, or another provider, stays as it was.
		expect(loadSettings({ embedding: { provider: "local", model: "Xenova/bge-small-en-v1.5" } }).settings.embedding.model).toBe("Xenova/bge-small-en-v1.5");
		expect(loadSettings({ embedding: { provider: "openai", model: "" } }).settings.embedding.model).toBe("");
		// Written by this version with the default model (""), it stays the default.
		expect(loadSettings({ settingsVersion: SETTINGS_VERSION, embedding: { provider: "local", model: "" } }).settings.embedding.model).toBe("");
		expect(DEFAULT_SETTINGS.settingsVersion).toBe(SETTINGS_VERSION);
	});
	test("a file from before version 2 moves search values still at an earlier default to today's; values a person chose stay", () => {
		const earlier = loadSettings({ settingsVersion: 1, search: { fusionMode: "rrf", rrfK: 60, alpha: 0.6, graphWeight: 0.15, temporalWeight: 0.1, trustWeight: 0.1, halfLifeDays: 30 } }).settings;
		expect(earlier.search).toMatchObject({ rrfK: 30, graphWeight: 0.05, alpha: 0.6 });
		expect(earlier.settingsVersion).toBe(SETTINGS_VERSION);
		const chosen = loadSettings({ settingsVersion: 1, search: { fusionMode: "rrf", rrfK: 45, alpha: 0.6, graphWeight: 0.3, temporalWeight: 0.1, trustWeight: 0.1, halfLifeDays: 30 } }).settings;
		expect(chosen.search).toMatchObject({ rrfK: 45, graphWeight: 0.3 });
		// Written by this version: 60 is then a choice, and it stays.
		expect(loadSettings({ settingsVersion: SETTINGS_VERSION, search: { ...earlier.search, rrfK: 60 } }).settings.search.rrfK).toBe(60);
		// Before version 1 too: both migrations apply.
		const oldest = loadSettings({ embedding: { provider: "local", model: "" }, search: { ...earlier.search, rrfK: 60 } }).settings;
		expect(oldest.embedding.model).toBe("Xenova/all-MiniLM-L6-v2");
		expect(oldest.search.rrfK).toBe(30);
	});
});

describe("changing settings", () => {
	test("invalid values are refused with a message naming the field; the old settings stay", () => {
		const refused = updateSettings(DEFAULT_SETTINGS, (s) => (s.neo4j.uri = "localhost:7687"));
		expect(refused).toEqual({ ok: false, error: "neo4j › uri must look like bolt://host:7687 or neo4j+s://host" });
		expect(DEFAULT_SETTINGS.neo4j.uri).toBe("bolt://localhost:7687");
		expect(updateSettings(DEFAULT_SETTINGS, (s) => (s.mcp.port = 70_000))).toMatchObject({ ok: false });
		expect(updateSettings(DEFAULT_SETTINGS, (s) => (s.search.graphWeight = -1))).toMatchObject({ ok: false });
		const ok = updateSettings(DEFAULT_SETTINGS, (s) => (s.neo4j.uri = "neo4j+s://abc.databases.neo4j.io"));
		expect(ok).toMatchObject({ ok: true, settings: { neo4j: { uri: "neo4j+s://abc.databases.neo4j.io" } } });
	});

	test("the impact of a change decides what restarts", () => {
		const change = (f: (s: typeof DEFAULT_SETTINGS) => void) => {
			const r = updateSettings(DEFAULT_SETTINGS, f);
			if (!r.ok) throw new Error(r.error);
			return settingsImpact(DEFAULT_SETTINGS, r.settings);
		};
		expect(change((s) => (s.embedding.provider = "ollama"))).toEqual({ engine: true, sync: true, mcp: true });
		expect(change((s) => (s.sync.autoSync = false))).toEqual({ engine: false, sync: true, mcp: false });
		expect(change((s) => (s.mcp.port = 30_000))).toEqual({ engine: false, sync: false, mcp: true });
		expect(change((s) => (s.decay.rate = 0.5))).toEqual({ engine: false, sync: false, mcp: false });
	});
});

describe("recency half-life", () => {
	test("defaults to 30 days (also for data.json saved before the setting), must be above 0, reaches the engine and reopens it", () => {
		expect(DEFAULT_SETTINGS.search.halfLifeDays).toBe(30);
		expect(loadSettings({ search: { rrfK: 40 } }).settings.search).toMatchObject({ rrfK: 40, halfLifeDays: 30 });
		const bad = loadSettings({ search: { rrfK: 40, halfLifeDays: -5 } });
		expect(bad.settings.search).toMatchObject({ rrfK: 40, halfLifeDays: 30 });
		expect(bad.problems.some((p) => p.startsWith("search.halfLifeDays: "))).toBe(true);
		expect(updateSettings(DEFAULT_SETTINGS, (s) => (s.search.halfLifeDays = 0))).toMatchObject({ ok: false });
		const r = updateSettings(DEFAULT_SETTINGS, (s) => (s.search.halfLifeDays = 180));
		if (!r.ok) throw new Error(r.error);
		expect(engineConfig(r.settings, ":memory:").search.halfLifeDays).toBe(180);
		expect(settingsImpact(DEFAULT_SETTINGS, r.settings).engine).toBe(true);
	});
});

describe("mapping onto the engine", () => {
	test("engineConfig carries backend, profile, embeddings and search weights", () => {
		const r = updateSettings(DEFAULT_SETTINGS, (s) => {
			s.modules = ["teaching"];
			s.embedding = { provider: "openai", model: "text-embedding-3-small", baseUrl: "http://localhost:1234/v1", apiKey: "k", apiKeySecret: "", dimensions: 256, hubUrl: "", runtimeUrl: "" };
			s.search.graphWeight = 0.3;
		});
		if (!r.ok) throw new Error(r.error);
		const config = engineConfig(r.settings, "/vault/.obsidian/plugins/engrama/engrama.db");
		expect(config).toMatchObject({
			backend: "sqlite",
			dbPath: "/vault/.obsidian/plugins/engrama/engrama.db",
			modules: ["teaching"],
			embedding: { provider: "openai", model: "text-embedding-3-small", baseUrl: "http://localhost:1234/v1", apiKey: "k", dimensions: 256 },
			search: { graphWeight: 0.3, fusionMode: "rrf" },
		});
	});

	test("modules only apply to the base profile", () => {
		const r = updateSettings(DEFAULT_SETTINGS, (s) => {
			s.profile = "developer";
			s.modules = ["teaching"];
		});
		if (!r.ok) throw new Error(r.error);
		expect(engineConfig(r.settings, ":memory:").modules).toEqual([]);
		expect(activeModules({ ...r.settings, profile: "base" })).toEqual(["teaching"]);
	});

	test("sync never touches the config folder or the plugin's own folder, and uses small transactions", () => {
		const sync = syncSettingsOf(DEFAULT_SETTINGS, ".config", ".config/plugins/engrama");
		expect(sync.configFolder).toBe(".config");
		expect(sync.excludedFolders).toEqual(["Templates", ".config/plugins/engrama", ".trash"]);
		expect(sync.batchSize).toBe(25);
	});

	test("folder lists and the folder → label map parse what people type", () => {
		expect(parseFolderList("Projects\n ./Areas/Work/ ,Projects,,")).toEqual(["Projects", "Areas/Work"]);
		expect(parseFolderLabels("Projects: Project\n\nPeople/Team : Person")).toEqual({ ok: true, value: { Projects: "Project", "People/Team": "Person" } });
		expect(parseFolderLabels("Projects: Project\nPeople")).toEqual({ ok: false, error: 'Line 2: write it as "Folder: Label".' });
		expect(formatFolderLabels({ Projects: "Project", People: "Person" })).toBe("Projects: Project\nPeople: Person");
	});
});
