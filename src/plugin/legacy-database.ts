// A memory left in the plugin folder by versions up to 0.1, moved to the database's default home
// (db-location.ts). Loaded with the engine (engine-open.ts): it takes the backends' process lock.
import { EngramaError } from "../engine/errors";
import type { NodeModules } from "../platform/node-builtins";
import { acquireProcessLock, MEMORY_LOG_SUFFIXES } from "../backends";
import { DB_FILE, preparePrivateDir, PRIVATE_DIR_MODE } from "./db-location";

/** The database, then its logs (native SQLite's `-wal`, the WASM engine's `.engrama-wal`). */
const MEMORY_SUFFIXES = ["", ...MEMORY_LOG_SUFFIXES];
/** Written inside the copy before it takes its place: which legacy file it came from. */
const MIGRATED_FROM = "migrated-from.json";

export interface MigrationResult {
	/** What happened, for a notice; null when there was nothing to move. */
	readonly moved: string | null;
}

/**
 * Moves a memory from the plugin folder (where versions up to 0.1 kept it) to `targetDir`, never
 * losing it: the files are copied into a sibling folder, read back and compared byte for byte,
 * the folder is renamed into place (atomic), and only then is the old file renamed aside
 * (`engrama.db.moved-<date>`), never deleted. A crash at any step leaves either the old file in
 * place (the next start copies again) or a complete copy that names the old file it came from
 * (the next start finishes by renaming the old one aside). The old file's lock is held
 * throughout, so a running older instance is never copied mid-write.
 */
export function migrateLegacyDatabase(node: NodeModules, legacyPath: string, targetDir: string, now = new Date()): MigrationResult {
	const { fs, path } = node;
	const target = path.join(targetDir, DB_FILE);
	if (!fs.existsSync(legacyPath)) return { moved: null };
	const lock = acquireProcessLock(node, legacyPath);
	try {
		if (fs.existsSync(target)) {
			finishInterrupted(node, legacyPath, targetDir, now);
			return { moved: `${legacyPath} → ${target} (finished an interrupted move)` };
		}
		const staging = `${targetDir}.moving`;
		fs.rmSync(staging, { recursive: true, force: true });
		preparePrivateDir(node, path.dirname(targetDir));
		fs.mkdirSync(staging, { mode: PRIVATE_DIR_MODE });
		const copied: string[] = [];
		for (const suffix of MEMORY_SUFFIXES) {
			const from = legacyPath + suffix;
			if (!fs.existsSync(from)) continue;
			const to = path.join(staging, DB_FILE + suffix);
			fs.copyFileSync(from, to);
			if (!fs.readFileSync(from).equals(fs.readFileSync(to))) {
				fs.rmSync(staging, { recursive: true, force: true });
				throw new EngramaError("migration_failed", `Engrama could not copy its memory from ${from} to ${to} faithfully; the original is untouched.`);
			}
			fsyncFile(fs, to);
			copied.push(suffix);
		}
		fs.writeFileSync(path.join(staging, MIGRATED_FROM), `${JSON.stringify(fingerprint(node, legacyPath))}\n`, { mode: 0o600 });
		fsyncFile(fs, path.join(staging, MIGRATED_FROM));
		// The copy takes its place in one step: the target folder either holds all of it or does not exist.
		fs.renameSync(staging, targetDir);
		fs.chmodSync(targetDir, PRIVATE_DIR_MODE);
		renameAside(node, legacyPath, now);
		return { moved: `${legacyPath} → ${target}` };
	} finally {
		lock.release();
	}
}

/** The copy is in place but the old file was not renamed aside yet (a crash or a failed rename). */
function finishInterrupted(node: NodeModules, legacyPath: string, targetDir: string, now: Date): void {
	const { fs, path } = node;
	const marker = path.join(targetDir, MIGRATED_FROM);
	let recorded: unknown = null;
	try {
		recorded = JSON.parse(fs.readFileSync(marker, "utf8"));
	} catch {
		// No marker: the target was not made by a move, so the two files are different memories.
	}
	const current = fingerprint(node, legacyPath);
	if (JSON.stringify(recorded) !== JSON.stringify(current)) {
		throw new EngramaError(
			"two_memories",
			`Engrama found two memories for this vault: ${legacyPath} (in the plugin folder) and ${path.join(targetDir, DB_FILE)}. ` +
				"Nothing was changed. Keep the one you want: move the other aside, or choose one in Settings → Database file.",
		);
	}
	renameAside(node, legacyPath, now);
}

function renameAside(node: NodeModules, legacyPath: string, now: Date): void {
	const { fs } = node;
	const stamp = now.toISOString().replace(/[:.]/g, "-");
	// The database first: a crash before its WAL follows leaves only a stray WAL, never a
	// database whose committed tail is missing.
	for (const suffix of MEMORY_SUFFIXES) {
		if (fs.existsSync(legacyPath + suffix)) fs.renameSync(legacyPath + suffix, `${legacyPath}.moved-${stamp}${suffix}`);
	}
}

/** Size and modification time of the old file and its logs: unchanged means the copy is still the same memory. */
function fingerprint(node: NodeModules, legacyPath: string): { size: number; mtimeMs: number; wal: number; log?: number } {
	const stat = node.fs.statSync(legacyPath);
	const [wal, log] = MEMORY_LOG_SUFFIXES.map((suffix) => node.fs.statSync(`${legacyPath}${suffix}`, { throwIfNoEntry: false }));
	// `log` only when the WASM engine's log exists, so a fingerprint recorded before it existed still matches.
	return { size: stat.size, mtimeMs: Math.trunc(stat.mtimeMs), wal: wal?.size ?? -1, ...(log ? { log: log.size } : {}) };
}

function fsyncFile(fs: NodeModules["fs"], file: string): void {
	const fd = fs.openSync(file, "r+");
	try {
		fs.fsyncSync(fd);
	} finally {
		fs.closeSync(fd);
	}
}
