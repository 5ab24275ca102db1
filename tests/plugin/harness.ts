// Loads the built plugin bundle (main.js) against the fake `obsidian` module, in this process, the
// way Obsidian's renderer does (see loadPlugin).
import { build } from "esbuild";
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import Module, { createRequire } from "node:module";
import vm from "node:vm";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { makeTempDir } from "../helpers/temp-dir";

export type FakeObsidian = typeof import("../fakes/obsidian");

// Under vitest __dirname exists; the benchmarks bundle this file as ESM and run from the repository root.
export const ROOT = typeof __dirname === "string" ? join(__dirname, "..", "..") : process.cwd();
const OUT = join(ROOT, ".test-out", `plugin-${process.pid}`);
const requireHere = createRequire(join(ROOT, "package.json"));

// The desktop plugin keeps its database under ~/.engrama/vaults/<vaultId>/: a home of our own per
// test process (os.homedir() follows HOME), never the real one.
export const TEST_HOME = join(OUT, "home");
mkdirSync(TEST_HOME, { recursive: true });
process.env.HOME = TEST_HOME;

export interface Bundles {
	readonly mainJs: string;
	readonly fakeCjs: string;
}

let bundles: Promise<Bundles> | undefined;

/**
 * Builds main.js exactly as `npm run build` does (esbuild.config.mjs: CJS, minified, WASM and
 * profiles inlined, `obsidian` external) into a per-process folder, and the fake as CommonJS.
 */
export function buildBundles(): Promise<Bundles> {
	bundles ??= buildNow();
	return bundles;
}

async function buildNow(): Promise<Bundles> {
	mkdirSync(OUT, { recursive: true });
	// The repository is "type": "module"; Obsidian loads main.js as CommonJS.
	writeFileSync(join(OUT, "package.json"), JSON.stringify({ type: "commonjs" }));
	const mainJs = join(OUT, "main.js");
	await buildMainJs(mainJs, true);
	const fakeCjs = join(OUT, "obsidian-fake.cjs");
	await build({
		absWorkingDir: ROOT,
		entryPoints: ["tests/fakes/obsidian.ts"],
		bundle: true,
		platform: "node",
		format: "cjs",
		target: "node20",
		packages: "external",
		outfile: fakeCjs,
		logLevel: "error",
	});
	return { mainJs, fakeCjs };
}

/** The plugin options of esbuild.config.mjs (its plugins imported at run time: they find files relative to themselves). */
async function buildMainJs(outfile: string, minify: boolean): Promise<void> {
	const version = (JSON.parse(readFileSync(join(ROOT, "manifest.json"), "utf8")) as { version: string }).version;
	const here = (path: string) => pathToFileURL(join(ROOT, path)).href;
	// eslint-disable-next-line no-unsanitized/method -- a fixed file of this repository
	const { sqliteWasmPlugin } = (await import(here("src/backends/sqlite/wasm/esbuild-wasm-plugin.mjs"))) as typeof import("../../src/backends/sqlite/wasm/esbuild-wasm-plugin.mjs");
	// eslint-disable-next-line no-unsanitized/method -- a fixed file of this repository
	const { localModelPlugin } = (await import(here("src/plugin/local-model/esbuild-local-model-plugin.mjs"))) as typeof import("../../src/plugin/local-model/esbuild-local-model-plugin.mjs");
	await build({
		absWorkingDir: ROOT,
		entryPoints: ["src/main.ts"],
		bundle: true,
		external: ["obsidian", "electron", "@codemirror/*", "@lezer/*", ...Module.builtinModules, ...Module.builtinModules.map((m) => `node:${m}`)],
		format: "cjs",
		target: "es2022",
		minify,
		treeShaking: true,
		outfile,
		plugins: [sqliteWasmPlugin(), localModelPlugin()],
		define: { ENGRAMA_VERSION: JSON.stringify(version) },
		loader: { ".yaml": "text" },
		logLevel: "error",
	});
}

/**
 * main.js built as `npm run build` does but not minified, with esbuild's lazy module wrappers
 * (`__esm`, `__commonJS`) recording each bundled module the first time it is evaluated, by path,
 * into `globalThis.__engramaEvaluated`. Minifying changes names, not when a module is evaluated.
 * esbuild renames a helper's parameters (err → err2) when a bundled module declares the same name at top level.
 */
export async function buildTracedMainJs(): Promise<string> {
	await buildBundles();
	const file = join(OUT, "main-traced.js");
	await buildMainJs(file, false);
	const record = (key: string) => `globalThis.__engramaEvaluated?.add(__getOwnPropNames(${key})[0]);`;
	let patched = 0;
	const text = readFileSync(file, "utf8")
		.replace(/^var __esm = \((\w+), res\d*, err\d*\) => function __init\(\) \{$/m, (line: string, fn: string) => (patched++, `${line} if (${fn}) ${record(fn)}`))
		.replace(/^var __commonJS = \((\w+), (mod\d*)\) => function __require\(\) \{$/m, (line: string, cb: string, mod: string) => (patched++, `${line} if (!${mod}) ${record(cb)}`));
	if (patched !== 2) throw new Error("esbuild's __esm/__commonJS helpers changed shape: update buildTracedMainJs");
	writeFileSync(file, text);
	return file;
}

export interface LoadedPlugin {
	readonly fake: FakeObsidian;
	readonly Plugin: new (app: unknown, manifest: unknown) => PluginInstance;
	readonly bundles: Bundles;
	/** How long evaluating main.js took (what Obsidian does before onload). */
	readonly mainRequireMs: number;
	/** Every module main.js asked `require` for that the platform does not have (mobile: all but obsidian). */
	readonly refusedRequires: readonly string[];
}

/**
 * How main.js sees its host. "desktop" is Obsidian's Electron renderer: `require` serves
 * `obsidian` and Node's built-ins (nothing from node_modules: a plugin has none). "mobile": `require`
 * knows only `obsidian`. In both, a dynamic import() of a bare specifier rejects as Chromium's
 * module loader does.
 */
export type RendererMode = "desktop" | "mobile";

const BUILTINS = new Set(Module.builtinModules);

/**
 * Builds both bundles and evaluates main.js as Obsidian does: the file's text wrapped in a
 * function of (require, module, exports), with our renderer `require`. Each call evaluates main.js
 * afresh (a plugin update does too); the test shares the fake instance with the plugin.
 */
export async function loadPlugin(options: { mode?: RendererMode; mainJs?: string } = {}): Promise<LoadedPlugin> {
	const mode = options.mode ?? "desktop";
	const built = await buildBundles();
	const mainJs = options.mainJs ?? built.mainJs;
	const fake = requireHere(built.fakeCjs) as FakeObsidian;
	const refused: string[] = [];
	const rendererRequire = (request: string): unknown => {
		if (request === "obsidian") return fake;
		if (mode === "desktop" && BUILTINS.has(request.replace(/^node:/, ""))) return requireHere(request);
		refused.push(request);
		throw Object.assign(new Error(`Cannot find module '${request}'`), { code: "MODULE_NOT_FOUND" });
	};
	const started = performance.now();
	const script = new vm.Script(`(function (require, module, exports) {${readFileSync(mainJs, "utf8")}\n})`, {
		filename: mainJs,
		importModuleDynamically: chromiumDynamicImport as unknown as vm.ScriptOptions["importModuleDynamically"],
	});
	const module = { exports: {} as { default?: new (app: unknown, manifest: unknown) => PluginInstance } };
	(script.runInThisContext() as (r: unknown, m: unknown, e: unknown) => void)(rendererRequire, module, module.exports);
	const Plugin = module.exports.default;
	if (!Plugin) throw new Error("main.js exported no default plugin class");
	return { fake, Plugin, bundles: built, mainRequireMs: performance.now() - started, refusedRequires: refused };
}

/**
 * Chromium resolves import() against the page (app://obsidian.md/): a bare specifier has no import
 * map to resolve it and rejects with this TypeError; URLs load. Node honours this callback only with
 * --experimental-vm-modules (vitest.config.ts passes it); without the flag every import() from main.js
 * rejects, which is stricter still.
 */
function chromiumDynamicImport(specifier: string): Promise<unknown> {
	if (specifier.startsWith("node:") || !/^(\.{0,2}\/|[a-z][a-z0-9+.-]*:)/i.test(specifier)) {
		return Promise.reject(
			new TypeError(`Failed to resolve module specifier "${specifier}". Relative references must start with either "/", "./", or "../".`),
		);
	}
	// eslint-disable-next-line no-unsanitized/method -- a URL main.js itself names, as the renderer would load it
	return import(specifier);
}

/** The plugin class exported by the built main.js. */
export interface PluginInstance {
	load(): void;
	unload(): void;
	fakeLoad(): Promise<void>;
	onExternalSettingsChange(): Promise<void>;
	closed: Promise<void>;
	controller: import("../../src/plugin/engrama-controller").EngramaController | null;
	actions: import("../../src/plugin/actions").EngramaActions | null;
	manifest: { dir?: string };
}

export const PLUGIN_DIR = ".obsidian/plugins/engrama";

export interface VaultCopy {
	readonly path: string;
	cleanup(): void;
}

/** A fresh copy of examples/vault (or an empty vault) with optional plugin settings in data.json. */
export function makeVault(options: { example?: boolean; settings?: unknown } = {}): VaultCopy {
	const dir = makeTempDir("engrama-plugin-");
	if (options.example !== false) cpSync(join(ROOT, "examples", "vault"), dir.path, { recursive: true });
	if (options.settings !== undefined) {
		mkdirSync(join(dir.path, PLUGIN_DIR), { recursive: true });
		writeFileSync(join(dir.path, PLUGIN_DIR, "data.json"), JSON.stringify(options.settings));
	}
	return dir;
}

export function manifest(): Record<string, unknown> {
	return { ...(JSON.parse(readFileSync(join(ROOT, "manifest.json"), "utf8")) as Record<string, unknown>), dir: PLUGIN_DIR };
}

/** Polls until `check` returns a truthy value (the plugin's work is asynchronous). */
export async function waitFor<T>(check: () => T | Promise<T>, what: string, timeoutMs = 20_000): Promise<NonNullable<T>> {
	const started = Date.now();
	let last: unknown;
	for (;;) {
		try {
			const value = await check();
			if (value) return value;
		} catch (error) {
			last = error;
		}
		if (Date.now() - started > timeoutMs) throw new Error(`Timed out waiting for ${what}${last instanceof Error ? `: ${last.message}` : ""}`);
		await new Promise((resolve) => setTimeout(resolve, 20));
	}
}

/** The vault's id in data.json (the plugin writes one on first start). */
export function vaultIdOf(vault: string): string {
	const data = JSON.parse(readFileSync(join(vault, PLUGIN_DIR, "data.json"), "utf8")) as { vaultId?: string };
	if (!data.vaultId) throw new Error(`no vaultId in ${vault}'s data.json yet`);
	return data.vaultId;
}

/** Where the desktop plugin keeps this vault's database by default (outside the vault). */
export function desktopDbPath(vault: string): string {
	return join(TEST_HOME, ".engrama", "vaults", vaultIdOf(vault), "engrama.db");
}

export function fileExists(vault: string, path: string): boolean {
	return existsSync(join(vault, path));
}
