// Where the plugin keeps local models. Desktop: one per-user folder outside every vault
// (~/.engrama/obsidian-models), because file-sync tools would copy 40–130 MB of model files between
// devices, and the bytes are the same for every vault. Mobile has no file system outside the vault:
// the plugin folder, through Obsidian's adapter.
import { FileSystemAdapter, Platform, type DataAdapter } from "obsidian";
import { errorMessage } from "../../engine/errors";
import { sha256Hex } from "../../engine/plain-values";
import { loadNodeModules, type NodeModules } from "../../platform/node-builtins";
import { preparePrivateDir } from "../db-location";
import { noticeError, noticeInfo } from "../notices";
import { ORT_RELEASE } from "./catalogue";
import { adapterModelFiles, nodeModelFiles, type ModelFiles } from "./model-files";
import { checkedModel, checkedRuntime, MODEL_MANIFEST, ModelStore, RUNTIME_MANIFEST, STAGING, type InstalledFile } from "./model-store";

/** Not ~/.engrama/models: the command line's transformers.js cache lives there, in its own layout. */
export function defaultModelsDir(node: NodeModules): string {
	return node.path.join(node.os.homedir(), ".engrama", "obsidian-models");
}

/** Which legacy folders were handled already (one record per vault folder). */
const MOVED = ".moved-from";
/** Staging folders older than this are leftovers of a crash or a killed window. */
const STALE_MS = 24 * 60 * 60 * 1000;

const moves = new Map<string, Promise<void>>();

/**
 * The store for this vault: on desktop the shared per-user folder (moving models left in the
 * plugin folder there first, once), elsewhere the plugin folder.
 */
export function modelStoreFor(adapter: DataAdapter, pluginFolder: string): ModelStore {
	const legacy = `${pluginFolder}/models`;
	return new ModelStore(async () => {
		const node = Platform.isDesktopApp && adapter instanceof FileSystemAdapter ? await loadNodeModules() : null;
		if (!node || !(adapter instanceof FileSystemAdapter)) return adapterModelFiles(adapter, legacy);
		const root = defaultModelsDir(node);
		preparePrivateDir(node, root);
		const legacyRoot = node.path.join(adapter.getBasePath(), ...legacy.split("/"));
		// The settings tab and the engine each have a store: one move per vault folder and session.
		let move = moves.get(legacyRoot);
		if (!move) {
			move = moveAndTell(node, legacyRoot, root);
			moves.set(legacyRoot, move);
		}
		await move;
		return nodeModelFiles(node, root);
	});
}

async function moveAndTell(node: NodeModules, legacyRoot: string, root: string): Promise<void> {
	try {
		removeStaleStaging(node, root);
		const result = await moveLegacyModels(node, legacyRoot, root);
		if (result && (result.moved.length > 0 || result.damaged.length > 0)) {
			const damaged = result.damaged.length > 0 ? ` Damaged, so not kept: ${result.damaged.join(", ")} (download again).` : "";
			noticeInfo(`moved its local models out of the synced vault, to ${root}${result.moved.length > 0 ? `: ${result.moved.join(", ")}` : ""}.${damaged}`, 10_000);
		}
	} catch (error) {
		// The old folder is untouched (or only partly moved, each part complete): the next start tries again.
		noticeError(`could not move its local models from ${legacyRoot} to ${root}; they stay where they are and the next start tries again`, error);
	}
}

export interface ModelMove {
	/** Models and runtimes (owner/name, onnxruntime-web/<version>) now in the shared folder. */
	readonly moved: readonly string[];
	/** Ones whose bytes no longer matched their recorded SHA-256: unusable, removed with the old folder. */
	readonly damaged: readonly string[];
}

interface Item {
	readonly path: string;
	readonly kind: "model" | "runtime";
}

/**
 * Moves the models an earlier version downloaded into the plugin folder (`legacyRoot`) to the
 * shared folder `root`, once per legacy folder. Each model (and runtime) is read, checked against
 * the SHA-256 and size its manifest recorded (the runtime also against the pinned release), copied
 * into a staging folder, read back and checked again, and renamed into place in one step; only
 * then is its old copy removed. A crash at any point leaves every model complete in one place or
 * the other, and the next start finishes (a model already in place just loses its old copy). A
 * record under `.moved-from/` marks the legacy folder done, so models a phone later syncs into
 * the plugin folder stay there (removing them here would remove them on the phone too).
 */
export async function moveLegacyModels(node: NodeModules, legacyRoot: string, root: string): Promise<ModelMove | null> {
	const { fs } = node;
	const to = nodeModelFiles(node, root);
	const record = `${MOVED}/${(await sha256Hex(new TextEncoder().encode(legacyRoot))).slice(0, 24)}.json`;
	if (await to.stat(record)) return null;
	const moved: string[] = [];
	const damaged: string[] = [];
	if (fs.existsSync(legacyRoot)) {
		const from = nodeModelFiles(node, legacyRoot);
		for (const item of legacyItems(node, legacyRoot)) {
			const outcome = await moveItem(node, from, to, item);
			if (outcome === "moved") moved.push(item.path);
			if (outcome === "damaged") damaged.push(item.path);
		}
		// What is left is unusable: half-made installs, partial downloads, damaged copies.
		await fs.promises.rm(legacyRoot, { recursive: true, force: true });
	}
	await to.write(record, `${JSON.stringify({ from: legacyRoot, at: new Date().toISOString(), moved, damaged })}\n`);
	return { moved, damaged };
}

function legacyItems(node: NodeModules, legacyRoot: string): Item[] {
	const { fs, path } = node;
	const folders = (dir: string) =>
		fs
			.readdirSync(dir, { withFileTypes: true })
			.filter((e) => e.isDirectory() && !e.name.startsWith("."))
			.map((e) => e.name);
	const items: Item[] = [];
	for (const first of folders(legacyRoot)) {
		for (const second of folders(path.join(legacyRoot, first))) {
			items.push({ path: `${first}/${second}`, kind: first === "onnxruntime-web" ? "runtime" : "model" });
		}
	}
	return items;
}

async function moveItem(node: NodeModules, from: ModelFiles, to: ModelFiles, item: Item): Promise<"moved" | "there" | "unusable" | "damaged"> {
	const check = (fs: ModelFiles) => (item.kind === "model" ? checkedModel(fs, item.path) : checkedRuntime(fs, item.path));
	if (await check(to)) {
		// Moved by an earlier, interrupted start (or the same model from another vault).
		await from.removeFolder(item.path);
		return "there";
	}
	const model = item.kind === "model" ? await checkedModel(from, item.path) : null;
	const runtime = item.kind === "runtime" ? await checkedRuntime(from, item.path) : null;
	const manifest = model ?? runtime;
	if (!manifest) return "unusable";
	const files: readonly InstalledFile[] = model ? model.files : runtime ? [runtime.file] : [];
	const staging = `${STAGING}/move-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
	try {
		for (const file of files) {
			const bytes = await from.readBinary(`${item.path}/${file.path}`);
			const sha256 = await sha256Hex(bytes);
			const pinned = runtime && runtime.version === ORT_RELEASE.version ? sha256 === ORT_RELEASE.wasmSha256 : true;
			if (sha256 !== file.sha256 || bytes.byteLength !== file.size || !pinned) return "damaged";
			const copy = `${staging}/${file.path}`;
			await to.writeBinary(copy, bytes);
			if ((await sha256Hex(await to.readBinary(copy))) !== sha256) {
				throw new Error(`the copy of ${item.path}/${file.path} in ${to.location} does not read back the same; the original is untouched`);
			}
			await fsync(node, to.location, copy);
		}
		await to.write(`${staging}/${model ? MODEL_MANIFEST : RUNTIME_MANIFEST}`, JSON.stringify(manifest, null, "\t"));
		await fsync(node, to.location, `${staging}/${model ? MODEL_MANIFEST : RUNTIME_MANIFEST}`);
		// A folder without a complete manifest there is an interrupted install: nothing to keep.
		await to.removeFolder(item.path);
		try {
			// The whole model takes its place in one step.
			await to.rename(staging, item.path);
		} catch (error) {
			// Another vault's window moved the same model there first.
			if (!(await check(to))) throw new Error(`could not put ${item.path} in place in ${to.location} (${errorMessage(error)})`);
		}
		await from.removeFolder(item.path);
		return "moved";
	} finally {
		await to.removeFolder(staging);
	}
}

async function fsync(node: NodeModules, root: string, file: string): Promise<void> {
	const handle = await node.fs.promises.open(node.path.join(root, ...file.split("/")), "r+");
	try {
		await handle.sync();
	} finally {
		await handle.close();
	}
}

/** Leftovers of downloads or moves that a crash or a closed window interrupted. */
export function removeStaleStaging(node: NodeModules, root: string): void {
	const { fs, path } = node;
	const staging = path.join(root, STAGING);
	if (!fs.existsSync(staging)) return;
	for (const name of fs.readdirSync(staging)) {
		const at = path.join(staging, name);
		const stat = fs.statSync(at, { throwIfNoEntry: false });
		if (stat && Date.now() - stat.mtimeMs > STALE_MS) fs.rmSync(at, { recursive: true, force: true });
	}
}
