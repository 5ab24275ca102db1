import { newEngramaId } from "../clock";
import { EngramaError, ValidationError, errorMessage } from "../errors";
import { Memory } from "../memory";
import { Profile } from "../profile";
import type { GraphReads, GraphStore, VectorReads, VectorStore } from "../protocols";
import type { Scope } from "../types";
import type { Envelope, ExportLine } from "./export-format";
import { exportMemory } from "./memory-export";
import { importMemory } from "./memory-import";

/** The memory a copy reads: its stores, read only. */
export interface CopySource {
	readonly graph: GraphReads;
	readonly vectors: VectorReads | null;
}

/** The memory a copy writes: its stores, written only through a `Memory`'s write door. */
export interface CopyTarget {
	readonly graph: GraphStore;
	readonly vectors: VectorStore | null;
}

export interface CopyOptions {
	/** Forget the source's scopes in the target first (otherwise a target scope must be empty). */
	readonly replace?: boolean;
	/** Nodes the export reads per page. */
	readonly pageSize?: number;
	/** Records (nodes, relations, history entries) per commit of the target; vectors a page a commit. Default 500. */
	readonly commitEvery?: number;
	/** Which engrama_ids may be kept; the others get new ones. */
	readonly keepsId?: (id: string) => boolean;
	readonly onProgress?: (line: string) => void;
}

export interface CopyReport {
	/** The scopes copied, in the source's order. */
	readonly scopes: readonly Scope[];
	/** The settings copied (keys), in the source's order. */
	readonly meta: readonly string[];
	/** Node ids that changed on the way: source id → target id. */
	readonly newIds: ReadonlyMap<string, string>;
}

/** The envelope's model for both halves: vectors move as they are, whatever made them. */
const SAME_MODEL = "the source memory's model";

/** No labels or relations of its own: a copy writes what the source holds, verbatim. */
const COPY_PROFILE = new Profile("copy", [], []);

/**
 * Records per commit of the target, as the migrate before the export/import one committed. Larger
 * commits save little: docs/benchmarks-migrate.md.
 */
const COMMIT_EVERY = 500;

/**
 * Copies every scope of `source` into `target` (`engrama migrate`): the source's export, the same
 * records `engrama export` writes read page by page, streamed into the target's import through
 * its write door (a `Memory.write` job every `commitEvery` records: a memory of a million nodes is
 * no one transaction), without JSON text or a file between. Nodes keep their
 * engrama_id (unless `keepsId` refuses it or another scope of the target holds it), props,
 * provenance and times; edges, history, vectors and the memory's settings follow.
 */
export async function copyMemory(source: CopySource, target: CopyTarget, options: CopyOptions = {}): Promise<CopyReport> {
	if (!source.graph.listScopes) throw new ValidationError(`Cannot migrate from the ${source.graph.name} backend: it cannot list its scopes.`);
	if (!target.graph.listScopes) throw new ValidationError(`Cannot migrate to the ${target.graph.name} backend: a copy there could not be verified.`);
	const scopes = [...(await source.graph.listScopes())];
	await refuseHeldScopes(target.graph, scopes, !!options.replace);
	const memory = new Memory({ graph: target.graph, vectors: target.vectors, profile: COPY_PROFILE });
	if (options.replace) await forgetScopes(memory, scopes, options.pageSize ?? 500);

	const meta: string[] = [];
	const withVectors = !!source.vectors?.vectorsOf && !!target.vectors && (await source.vectors.dimensions()) > 0;
	const now = memory.clock.now().toISOString();
	const exported = { vectors: withVectors, embeddingModel: SAME_MODEL, version: "migrate", now, pageSize: options.pageSize };
	let pass = 0;
	async function* records(): AsyncGenerator<Envelope | ExportLine> {
		const first = pass++ === 0;
		for await (const line of exportMemory(source.graph, source.vectors, exported)) {
			if (first && !("engrama_export" in line) && line.type === "meta") meta.push(line.key);
			yield line;
		}
	}
	const newIds = new Map<string, string>();
	const report = await importMemory(memory, records, {
			merge: false,
			dryRun: false,
			callerScope: scopes[0] ?? { orgId: "", userId: "" },
			embeddingModel: SAME_MODEL,
			newId: newEngramaId,
			now,
			keepsId: options.keepsId,
			onNewId: (from, to) => newIds.set(from, to),
			takeSettings: true,
			fromStore: true,
			onProgress: options.onProgress,
			commitEvery: options.commitEvery ?? COMMIT_EVERY,
		}).catch(async (error: unknown) => Promise.reject(await stoppedPartway(target.graph, scopes, error)));
	if (report.vectors.reason) options.onProgress?.(`${report.vectors.skipped} vectors not copied: ${report.vectors.reason}`);
	return { scopes, meta, newIds };
}

/**
 * The error of a copy that failed after some of its commits: what they wrote stays in the target,
 * which the next run refuses until --replace forgets it. A copy that wrote nothing fails as it did.
 */
async function stoppedPartway(graph: GraphReads, scopes: readonly Scope[], error: unknown): Promise<Error> {
	let held: number | undefined;
	try {
		held = 0;
		for (const scope of scopes) held += (await graph.counts(scope)).nodes;
	} catch {
		held = undefined; // The target cannot be read (the connection that failed the copy).
	}
	if (held === 0) return error instanceof Error ? error : new Error(errorMessage(error));
	const code = error instanceof EngramaError ? error.code : "migration_incomplete";
	const holds = held === undefined ? "may hold part of it" : `holds ${held} nodes of it`;
	return new EngramaError(code, `${errorMessage(error)} The copy stopped partway: the target ${holds}. Run the migration again with --replace to start over.`, { heldNodes: held });
}

/** A copy never mixes with what a target scope holds: refused, or (replace) forgotten first. */
async function refuseHeldScopes(graph: GraphReads, scopes: readonly Scope[], replace: boolean): Promise<void> {
	if (replace) return;
	for (const scope of scopes) {
		const existing = await graph.counts(scope);
		if (existing.nodes > 0) {
			throw new ValidationError(
				`The ${graph.name} memory already holds ${existing.nodes} nodes of ${scope.orgId}/${scope.userId}. Add --replace to forget them there first, or migrate into an empty memory.`,
				{ scope },
			);
		}
	}
}

/** Forgets the scopes in the target, vectors first (on SQLite they are keyed by the rows about to go). */
async function forgetScopes(memory: Memory, scopes: readonly Scope[], page: number): Promise<void> {
	await memory.write(async () => {
		for (const scope of scopes) {
			for (let offset = 0; ; offset += page) {
				const nodes = await memory.graph.listNodes(scope, { includeArchived: true, limit: page, offset });
				await memory.pipeline.deleteVectors(scope, nodes.map((n) => n.id));
				if (nodes.length < page) break;
			}
			await memory.pipeline.forgetScope(scope);
		}
	});
}
