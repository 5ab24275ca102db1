import * as z from "zod";
import type { SyncSettings } from "../engine";
import { DEFAULT_INSIGHTS_FOLDER, EARLIER_DEFAULT_LOCAL_MODEL, normaliseVaultPath } from "../engine/plain-values";

/** The MCP bridge's default port (the command line's `engrama serve` uses the same). */
export const DEFAULT_MCP_PORT = 27182;

/** The name of a secret in Obsidian's secret storage (its rule for ids); empty: none chosen. */
const secretName = z
	.string()
	.trim()
	.max(100)
	.regex(/^([a-z0-9]+(-[a-z0-9]+)*)?$/, { error: "a secret name is lowercase letters, digits and dashes" });

const folderList = z.array(z.string().trim().min(1).max(500)).max(200);

const urlString = z
	.string()
	.trim()
	.refine((v) => v === "" || /^https?:\/\/[^\s/]+/i.test(v), { error: "must start with http:// or https://" });

/**
 * 1: an unset local model is named (all-MiniLM-L6-v2), so a later default cannot change it under the user.
 * 2: search values still at an earlier default take today's (rrfK 60 → 30, graphWeight 0.15 → 0.05).
 */
export const SETTINGS_VERSION = 2;

/** Search defaults of earlier versions and today's: a value equal to the old default was never chosen. */
const EARLIER_SEARCH_DEFAULTS: readonly (readonly [key: string, earlier: number, now: number])[] = [
	["rrfK", 60, 30],
	["graphWeight", 0.15, 0.05],
];

/**
 * Everything the plugin stores in data.json. Validated on load and on every change, so a
 * hand-edited or outdated file never reaches the engine: unknown keys are dropped, missing
 * ones take their defaults, and invalid values are reported and replaced by defaults.
 */
export const pluginSettingsSchema = z.object({
	/** data.json's layout (migrateSettings); absent in files written before version 1. */
	settingsVersion: z.number().int().min(0).default(SETTINGS_VERSION),
	/**
	 * "pending": the welcome in the panel waits for the person to start (nothing in the vault changes
	 * until then). A vault without data.json starts pending; a data.json of an earlier version (no such
	 * key) is a vault that already synced: "done".
	 */
	firstRun: z.enum(["pending", "done"]).default("done"),
	backend: z.enum(["sqlite", "neo4j"]).default("sqlite"),
	/**
	 * Empty: on desktop `~/.engrama/vaults/<vaultId>/engrama.db` (outside the vault, so sync tools
	 * never copy it), on mobile `engrama.db` in the plugin's folder. Otherwise an absolute path
	 * (desktop) or a vault path.
	 */
	dbPath: z.string().trim().max(1000).default(""),
	/** Names this vault's folder under ~/.engrama/vaults; generated on first start, kept in data.json. */
	vaultId: z
		.string()
		.trim()
		.regex(/^[A-Za-z0-9_-]{0,80}$/, { error: "letters, digits, - and _ only" })
		.default(""),
	neo4j: z
		.object({
			uri: z
				.string()
				.trim()
				.refine((v) => /^(bolt|neo4j)(\+s|\+ssc)?:\/\/\S+$/i.test(v), { error: "must look like bolt://host:7687 or neo4j+s://host" })
				.default("bolt://localhost:7687"),
			username: z.string().trim().max(200).default("neo4j"),
			/** Earlier versions kept it here in plain text; moved to secret storage on load (secrets.ts). */
			password: z.string().max(500).default(""),
			/** The secret (Obsidian's secret storage) that holds the password. */
			passwordSecret: secretName.default(""),
			database: z.string().trim().min(1).max(200).default("neo4j"),
		})
		.default({ uri: "bolt://localhost:7687", username: "neo4j", password: "", passwordSecret: "", database: "neo4j" }),
	embedding: z
		.object({
			provider: z.enum(["none", "local", "openai", "ollama", "hash"]).default("none"),
			model: z.string().trim().max(300).default(""),
			baseUrl: urlString.default(""),
			/** Earlier versions kept it here in plain text; moved to secret storage on load (secrets.ts). */
			apiKey: z.string().trim().max(500).default(""),
			/** The secret (Obsidian's secret storage) that holds the API key. */
			apiKeySecret: secretName.default(""),
			dimensions: z.number().int().min(0).max(8192).default(0),
			/** Local model downloads: the model hub (empty: https://huggingface.co) or a mirror. */
			hubUrl: urlString.default(""),
			/** Where the ONNX Runtime binary comes from (empty: jsDelivr's copy of the npm package). */
			runtimeUrl: urlString.default(""),
		})
		.default({ provider: "none", model: "", baseUrl: "", apiKey: "", apiKeySecret: "", dimensions: 0, hubUrl: "", runtimeUrl: "" }),
	profile: z.string().trim().min(1).max(100).default("base"),
	modules: z.array(z.string().trim().min(1).max(100)).max(20).default([]),
	sync: z
		.object({
			/** Keep the graph in step on every create/modify/rename/delete. */
			autoSync: z.boolean().default(true),
			/** Empty: the whole vault. */
			includeFolders: folderList.default([]),
			excludeFolders: folderList.default(["Templates"]),
			folderLabels: z.record(z.string().trim().min(1).max(500), z.string().trim().min(1).max(100)).default({}),
			indexUntypedNotes: z.boolean().default(true),
			writeEngramaIds: z.boolean().default(true),
			writeGraphToVault: z.boolean().default(true),
			notesFolder: z.string().trim().min(1).max(500).default("Engrama"),
			insightsFolder: z.string().trim().min(1).max(500).default(DEFAULT_INSIGHTS_FOLDER),
			debounceMs: z.number().int().min(50).max(60_000).default(500),
		})
		.default({
			autoSync: true,
			includeFolders: [],
			excludeFolders: ["Templates"],
			folderLabels: {},
			indexUntypedNotes: true,
			writeEngramaIds: true,
			writeGraphToVault: true,
			notesFolder: "Engrama",
			insightsFolder: DEFAULT_INSIGHTS_FOLDER,
			debounceMs: 500,
		}),
	mcp: z
		.object({
			enabled: z.boolean().default(false),
			port: z.number().int().min(1024).max(65_535).default(DEFAULT_MCP_PORT),
			/** Earlier versions kept the bridge token here; it lives in secret storage now (secrets.ts, per device). */
			token: z.string().max(200).default(""),
		})
		.default({ enabled: false, port: DEFAULT_MCP_PORT, token: "" }),
	search: z
		.object({
			fusionMode: z.enum(["rrf", "linear"]).default("rrf"),
			rrfK: z.number().min(1).max(1000).default(30),
			alpha: z.number().min(0).max(1).default(0.6),
			graphWeight: z.number().min(0).max(1).default(0.05),
			temporalWeight: z.number().min(0).max(1).default(0.1),
			trustWeight: z.number().min(0).max(1).default(0.1),
			/** Days after which the recency term counts a note half (ENGRAMA_RECENCY_HALF_LIFE on the command line). */
			halfLifeDays: z.number().gt(0).max(36_500).default(30),
		})
		.default({ fusionMode: "rrf", rrfK: 30, alpha: 0.6, graphWeight: 0.05, temporalWeight: 0.1, trustWeight: 0.1, halfLifeDays: 30 }),
	decay: z
		.object({ rate: z.number().min(0).max(1).default(0.01), maxAgeDays: z.number().min(0).max(36_500).default(90) })
		.default({ rate: 0.01, maxAgeDays: 90 }),
});

/** What keeping the database in the plugin folder means on mobile (settings text, README). */
export const MOBILE_DB_NOTE =
	"That folder is part of the vault, so a sync tool copies it to your other devices: let one device write it. Engrama stops with a message when another device wrote it last.";

export type PluginSettings = z.infer<typeof pluginSettingsSchema>;

export const DEFAULT_SETTINGS: PluginSettings = pluginSettingsSchema.parse({});

export interface SettingsLoad {
	readonly settings: PluginSettings;
	/** What was wrong in data.json (each value fell back to its default). */
	readonly problems: readonly string[];
}

/**
 * data.json → settings. Never throws: bad values are reported and replaced by defaults. No data.json
 * at all (`raw` null: the plugin never ran in this vault) is a first run; any data.json is not.
 */
export function loadSettings(raw: unknown): SettingsLoad {
	if (raw === null || raw === undefined) return { settings: { ...DEFAULT_SETTINGS, firstRun: "pending" }, problems: [] };
	const input = migrateSettings(raw && typeof raw === "object" && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {});
	const whole = pluginSettingsSchema.safeParse(input);
	if (whole.success) return { settings: whole.data, problems: [] };
	// Drop each offending value (deepest path) and try again, so one bad field keeps the rest.
	const problems = whole.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
	const copy = structuredClone(input);
	for (const issue of whole.error.issues) removePath(copy, issue.path);
	const retry = pluginSettingsSchema.safeParse(copy);
	return { settings: retry.success ? retry.data : DEFAULT_SETTINGS, problems };
}

/**
 * Brings an older data.json to SETTINGS_VERSION, one step per version; a new install (no file)
 * gets the current defaults and a file of this version is taken as it is.
 */
function migrateSettings(input: Record<string, unknown>): Record<string, unknown> {
	if (Object.keys(input).length === 0) return input;
	const version = typeof input.settingsVersion === "number" ? input.settingsVersion : 0;
	if (version >= SETTINGS_VERSION) return input;
	let output: Record<string, unknown> = { ...input, settingsVersion: SETTINGS_VERSION };
	if (version < 1) output = nameEarlierLocalModel(output);
	if (version < 2) output = takeNewSearchDefaults(output);
	return output;
}

/**
 * Before version 1 a local provider with no model named meant all-MiniLM-L6-v2, whose files the
 * user downloaded and whose vectors the memory holds, so it is named now (the settings then show
 * the model in use; choosing another re-embeds).
 */
function nameEarlierLocalModel(input: Record<string, unknown>): Record<string, unknown> {
	const embedding = input.embedding && typeof input.embedding === "object" ? (input.embedding as Record<string, unknown>) : undefined;
	const unset = embedding?.provider === "local" && (typeof embedding.model !== "string" || embedding.model.trim() === "");
	return unset ? { ...input, embedding: { ...embedding, model: EARLIER_DEFAULT_LOCAL_MODEL } } : input;
}

/** data.json stores every value, defaults included: one still at an earlier default moves with the default (the gym chose it). */
function takeNewSearchDefaults(input: Record<string, unknown>): Record<string, unknown> {
	if (!input.search || typeof input.search !== "object") return input;
	const search = { ...(input.search as Record<string, unknown>) };
	for (const [key, earlier, now] of EARLIER_SEARCH_DEFAULTS) if (search[key] === earlier) search[key] = now;
	return { ...input, search };
}

function removePath(target: Record<string, unknown>, path: readonly PropertyKey[]): void {
	if (path.length === 0) return;
	let node: unknown = target;
	for (const key of path.slice(0, -1)) {
		if (!node || typeof node !== "object") return;
		node = (node as Record<PropertyKey, unknown>)[key];
	}
	if (node && typeof node === "object") delete (node as Record<PropertyKey, unknown>)[path[path.length - 1]];
}

/**
 * Applies a change and validates the result; the error message names the field and the rule,
 * for the settings tab to show next to the input. The old settings are untouched on failure.
 */
export function updateSettings(current: PluginSettings, change: (draft: PluginSettings) => void): { ok: true; settings: PluginSettings } | { ok: false; error: string } {
	const draft = structuredClone(current);
	change(draft);
	const result = pluginSettingsSchema.safeParse(draft);
	if (result.success) return { ok: true, settings: result.data };
	const issue = result.error.issues[0];
	return { ok: false, error: issue ? `${describePath(issue.path)} ${issue.message}` : "Invalid value" };
}

function describePath(path: readonly PropertyKey[]): string {
	return path.map(String).join(" › ");
}

/** Where the plugin keeps its own files (data.json, the database snapshot): vault-relative. */
export function pluginFolder(manifestDir: string | undefined, configDir: string, id: string): string {
	return normaliseVaultPath(manifestDir ?? `${configDir}/plugins/${id}`);
}

/** Modules compose with the base profile only; a standalone profile (developer) takes none. */
export function activeModules(settings: PluginSettings): string[] {
	return settings.profile === "base" ? settings.modules : [];
}

/**
 * Neo4j's driver needs Node (its `buffer`, sockets), which only the desktop app has. A data.json
 * synced from a desktop that chose Neo4j opens SQLite on a phone instead; the file is left as it
 * is so that the desktop keeps its choice.
 */
export const NEO4J_DESKTOP_ONLY = "Neo4j is desktop only: its driver needs parts of Node.js that the mobile app does not have.";

export function settingsForDevice(settings: PluginSettings, canUseNeo4j: boolean): { settings: PluginSettings; neo4jFallback: boolean } {
	if (canUseNeo4j || settings.backend !== "neo4j") return { settings, neo4jFallback: false };
	return { settings: { ...settings, backend: "sqlite" }, neo4jFallback: true };
}

/** The sync engine's settings; the plugin's own folder and Obsidian's config folder are never synced. */
export function syncSettingsOf(settings: PluginSettings, configDir: string, ownFolder: string): Partial<SyncSettings> {
	const excluded = [...settings.sync.excludeFolders, ownFolder, ".trash"].map(normaliseVaultPath).filter(Boolean);
	return {
		configFolder: configDir,
		excludedFolders: [...new Set(excluded)],
		folderLabels: settings.sync.folderLabels,
		indexUntypedNotes: settings.sync.indexUntypedNotes,
		writeEngramaIds: settings.sync.writeEngramaIds,
		writeGraphToVault: settings.sync.writeGraphToVault,
		notesFolder: normaliseVaultPath(settings.sync.notesFolder),
		debounceMs: settings.sync.debounceMs,
		// Small graph transactions keep the main thread free between them: preparing a chunk's
		// entities (date mentions, profile checks) is one step without a gate pass: 50-60 ms CPU for
		// 100 notes, and a 10k first sync still had single 51-57 ms tasks at 50 (chrono-node's parsing).
		batchSize: 25,
	};
}

/** Which parts of the running plugin a settings change touches. */
export interface SettingsImpact {
	/** Backend, database, profile, embeddings or search: the engine is reopened. */
	readonly engine: boolean;
	/** Only sync options: the vault sync is rebuilt over the same engine. */
	readonly sync: boolean;
	readonly mcp: boolean;
}

export function settingsImpact(before: PluginSettings, after: PluginSettings): SettingsImpact {
	const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
	const engine =
		before.backend !== after.backend ||
		before.dbPath !== after.dbPath ||
		before.vaultId !== after.vaultId ||
		!same(before.neo4j, after.neo4j) ||
		!same(engineEmbedding(before), engineEmbedding(after)) ||
		before.profile !== after.profile ||
		!same(before.modules, after.modules) ||
		!same(before.search, after.search);
	return { engine, sync: engine || !same(before.sync, after.sync), mcp: engine || !same(before.mcp, after.mcp) };
}

/** Download sources only matter when downloading: changing them does not reopen the engine. */
function engineEmbedding(settings: PluginSettings): Omit<PluginSettings["embedding"], "hubUrl" | "runtimeUrl"> {
	const { hubUrl: _hub, runtimeUrl: _runtime, ...rest } = settings.embedding;
	return rest;
}

/** A folder → label map typed as lines of `Folder: Label`; errors name the line. */
export function parseFolderLabels(text: string): { ok: true; value: Record<string, string> } | { ok: false; error: string } {
	const out: Record<string, string> = {};
	const lines = text.split("\n");
	for (let i = 0; i < lines.length; i++) {
		const line = (lines[i] ?? "").trim();
		if (line === "") continue;
		const colon = line.lastIndexOf(":");
		if (colon <= 0 || colon === line.length - 1) return { ok: false, error: `Line ${i + 1}: write it as "Folder: Label".` };
		out[normaliseVaultPath(line.slice(0, colon).trim())] = line.slice(colon + 1).trim();
	}
	return { ok: true, value: out };
}

export function formatFolderLabels(map: Readonly<Record<string, string>>): string {
	return Object.entries(map)
		.map(([folder, label]) => `${folder}: ${label}`)
		.join("\n");
}

/** Comma- or newline-separated folder names → a clean list. */
export function parseFolderList(text: string): string[] {
	return [
		...new Set(
			text
				.split(/[\n,]/)
				.map((s) => normaliseVaultPath(s.trim()))
				.filter(Boolean),
		),
	];
}
