// The engine's configuration from the plugin's settings. Apart from settings.ts because the
// configuration's schema (zod, built when its module is evaluated) is needed only when an engine
// opens or a connection is tested, not when Obsidian evaluates main.js.
import { parseConfig, type EngramaConfig } from "../config/engrama-config";
import { activeModules, type PluginSettings } from "./settings";

/**
 * The engine configuration the settings describe. `dbPath` is resolved by the caller (absolute on
 * desktop, vault-relative for the mobile snapshot).
 */
export function engineConfig(settings: PluginSettings, dbPath: string): EngramaConfig {
	return parseConfig({
		backend: settings.backend,
		dbPath,
		profile: settings.profile,
		modules: activeModules(settings),
		neo4j: { uri: settings.neo4j.uri, username: settings.neo4j.username, password: settings.neo4j.password, database: settings.neo4j.database },
		embedding: {
			provider: settings.embedding.provider,
			model: settings.embedding.model,
			baseUrl: settings.embedding.baseUrl,
			apiKey: settings.embedding.apiKey,
			dimensions: settings.embedding.dimensions,
		},
		search: {
			fusionMode: settings.search.fusionMode,
			rrfK: settings.search.rrfK,
			alpha: settings.search.alpha,
			graphWeight: settings.search.graphWeight,
			temporalWeight: settings.search.temporalWeight,
			trustWeight: settings.search.trustWeight,
			halfLifeDays: settings.search.halfLifeDays,
		},
		decay: { ...settings.decay },
	});
}
