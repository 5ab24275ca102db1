// The check stamp of a mobile snapshot (check-stamp.ts is the file one): the snapshot's size and
// SHA-256, kept by the storage beside it, written after each snapshot this engine exported from a
// session that met no damaged page. An open whose bytes hash the same skips `PRAGMA quick_check`
// (545-587 ms of main-thread CPU on the 33 MB snapshot, docs/benchmarks-plugin.md). Unlike a file's
// stamp it hashes every byte, so a page changed anywhere (a sync tool's copy, the storage) shows;
// WebCrypto hashes off the main thread.
import { sha256Hex } from "../../../engine/backend-kit";
import { checkStillFresh } from "./check-stamp";
import type { SnapshotStorage } from "./snapshot-storage";

const STAMP_VERSION = 1;
/** WebCrypto exists in Obsidian's renderer (desktop and mobile), Chromium and Node; without it every open checks fully. */
const canHash = () => typeof crypto !== "undefined" && crypto.subtle !== undefined;

interface SnapshotStamp {
	readonly version: number;
	/** When quick_check last passed on these bytes (ms since the epoch). */
	readonly checkedAt: number;
	readonly size: number;
	readonly sha256: string;
}

/** When the full check these bytes' stamp vouches for ran, or undefined when the open must check fully. */
export async function vouchedSnapshotCheck(storage: SnapshotStorage, bytes: Uint8Array, now = Date.now()): Promise<number | undefined> {
	if (!storage.readStamp || !canHash()) return undefined;
	const stamp = parse(await storage.readStamp());
	if (!stamp || stamp.size !== bytes.length) return undefined;
	if (!checkStillFresh(stamp.checkedAt, now)) return undefined;
	return (await sha256Hex(bytes)) === stamp.sha256 ? stamp.checkedAt : undefined;
}

/** The stamp of `bytes`, just written by the storage, as checked at `checkedAt`. */
export async function snapshotStamp(bytes: Uint8Array, checkedAt: number): Promise<string | undefined> {
	if (!canHash()) return undefined;
	const stamp: SnapshotStamp = { version: STAMP_VERSION, checkedAt, size: bytes.length, sha256: await sha256Hex(bytes) };
	return JSON.stringify(stamp);
}

function parse(text: string | null): SnapshotStamp | undefined {
	if (text === null) return undefined;
	try {
		const stamp = JSON.parse(text) as Partial<SnapshotStamp>;
		if (stamp.version !== STAMP_VERSION || typeof stamp.checkedAt !== "number" || typeof stamp.size !== "number" || typeof stamp.sha256 !== "string") {
			return undefined;
		}
		return stamp as SnapshotStamp;
	} catch {
		// A stamp cut short vouches for nothing: the open checks fully.
		return undefined;
	}
}
