import { ValidationError } from "../errors";
import { STANDALONE_ID_META } from "../standalone-identity";
import type { GraphReads, HistoryEntry, MergeEdgeInput, VectorReads } from "../protocols";
import type { PropValue, Props, Scope } from "../types";
import type { StoreUpkeep } from "../write/store-upkeep";
import {
	EXPORT_FORMAT,
	IDENTITY_PROPS,
	PRODUCER,
	RECORD_SCHEMAS,
	envelopeSchema,
	type EndLine,
	type Envelope,
	type ExportLine,
	type HistoryLine,
	type NodeLine,
	type RelationLine,
	type VectorLine,
} from "./export-format";

export interface ImportOptions {
	/** Write into scopes that already hold nodes, upserting by label + key (otherwise refused). */
	readonly merge: boolean;
	/** Validate and count; write nothing. */
	readonly dryRun: boolean;
	/** Where records without org_id / user_id (older engrama-py files) go: the importer's own scope. */
	readonly callerScope: Scope;
	/** The model this memory embeds with ("" for none): vectors of another model are not imported. */
	readonly embeddingModel: string;
	readonly newId: () => string;
	readonly now: string;
	/** Labels the memory's profile knows; others are imported with a warning. */
	readonly knownLabel?: (label: string) => boolean;
	/** Which of the file's engrama_ids may be kept (`engrama migrate`: UUIDs only); the others get new ones, counted as renumbered. */
	readonly keepsId?: (id: string) => boolean;
	/** Told of every node whose engrama_id in the file was replaced (file id, id in this memory). */
	readonly onNewId?: (fileId: string, id: string) => void;
	/** Write the file's settings even into a memory that holds other scopes (`engrama migrate`); otherwise only into an empty one. */
	readonly takeSettings?: boolean;
	/**
	 * The lines are records straight from another memory's export in this process (`engrama
	 * migrate`): taken as that store holds them, not held to the file format's limits (a store may
	 * hold what a file may not, such as engrama-py's property names). References are still checked.
	 */
	readonly fromStore?: boolean;
	/** A line every `PROGRESS` nodes written and at the end of each scope's nodes (`org/user: n nodes`). */
	readonly onProgress?: (line: string) => void;
	/**
	 * Commit every this many records (nodes, relations, history entries; vectors a page a commit),
	 * each commit a write job of its own (`engrama migrate`: no transaction the size of the memory).
	 * The caller then holds no write job around the import. Without it the graph is one
	 * transaction: all or nothing.
	 */
	readonly commitEvery?: number;
}

export interface ImportReport {
	/** Who wrote the file: this program, or another (engrama-py). */
	readonly producer: string;
	readonly dryRun: boolean;
	readonly scopes: readonly string[];
	readonly nodes: { readonly created: number; readonly updated: number };
	readonly relations: number;
	readonly history: number;
	readonly vectors: { readonly stored: number; readonly skipped: number; readonly reason?: string };
	readonly meta: number;
	/** Nodes whose engrama_id was taken in this memory and got a new one. */
	readonly renumbered: number;
	readonly warnings: readonly string[];
}

/**
 * Reads the file's lines; called once per pass (validation, then writing), so nothing holds the
 * whole file. A line is text, or the record itself (`engrama migrate` streams an export straight
 * in, without JSON text between): both are checked the same way.
 */
export type LineSource = () => AsyncIterable<string | Envelope | ExportLine>;

type Planned = { id: string; exists: boolean };
type Parsed =
	| { kind: "node"; line: number; rec: NodeLine; scope: Scope }
	| { kind: "relation"; line: number; rec: RelationLine; scope: Scope }
	| { kind: "vector"; line: number; rec: VectorLine; scope: Scope }
	| { kind: "history"; line: number; rec: HistoryLine; scope: Scope }
	| { kind: "meta"; line: number; key: string; value: string }
	| { kind: "end"; line: number; rec: EndLine }
	| { kind: "skip"; line: number };

const FLUSH = 1000;
const PROGRESS = 500;
const scopeKey = (s: Scope) => `${s.orgId}\u0000${s.userId}`;
const nodeKey = (s: Scope, label: string, key: string) => `${scopeKey(s)}\u0000${label}\u0000${key}`;

function fail(line: number, message: string): never {
	throw new ValidationError(`line ${line}: ${message} Nothing was imported.`, { line });
}

function scopeOf(line: number, org: unknown, user: unknown, fallback: Scope): Scope {
	const o = typeof org === "string" && org !== "" ? org : undefined;
	const u = typeof user === "string" && user !== "" ? user : undefined;
	if (o && u) return { orgId: o, userId: u };
	if (!o && !u) return fallback;
	return fail(line, "a record names only one of org_id and user_id; give both or neither.");
}

function parseLine(text: string | object, line: number, fallback: Scope, fromStore: boolean): Parsed | null {
	if (typeof text === "string" && text.trim() === "") return null;
	let raw: unknown = text;
	try {
		if (typeof text === "string") raw = JSON.parse(text);
	} catch {
		return fail(line, "is not valid JSON (is the file cut short or edited by hand?).");
	}
	if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return fail(line, "is not a JSON object.");
	const type = (raw as { type?: unknown }).type;
	if (typeof type !== "string") return fail(line, 'has no "type".');
	// engrama-py skips types it does not know (a newer file); we do the same.
	if (!(type in RECORD_SCHEMAS)) return { kind: "skip", line };
	const schema = RECORD_SCHEMAS[type as keyof typeof RECORD_SCHEMAS];
	const result = fromStore && typeof text !== "string" ? { success: true as const, data: raw as ExportLine } : schema.safeParse(raw);
	if (!result.success) {
		const issue = result.error.issues[0];
		const where = issue?.path.join(".") || type;
		return fail(line, `${type} record: ${where}: ${issue?.message ?? "invalid"}.`);
	}
	const rec = result.data;
	switch (rec.type) {
		case "node":
			return { kind: "node", line, rec, scope: scopeOf(line, rec.properties.org_id, rec.properties.user_id, fallback) };
		case "relation":
			return { kind: "relation", line, rec, scope: scopeOf(line, rec.org_id, rec.user_id, fallback) };
		case "vector":
			return { kind: "vector", line, rec, scope: scopeOf(line, rec.org_id, rec.user_id, fallback) };
		case "history":
			return { kind: "history", line, rec, scope: { orgId: rec.org_id, userId: rec.user_id } };
		case "meta":
			return { kind: "meta", line, key: rec.key, value: rec.value };
		case "end":
			return { kind: "end", line, rec };
	}
}

async function* records(source: LineSource, { callerScope: fallback, fromStore = false }: ImportOptions): AsyncGenerator<Parsed | { kind: "envelope"; line: number; envelope: Envelope }> {
	let line = 0;
	let sawEnvelope = false;
	for await (const text of source()) {
		line++;
		if (!sawEnvelope) {
			if (typeof text === "string" && text.trim() === "") continue;
			let raw: unknown = text;
			try {
				if (typeof text === "string") raw = JSON.parse(text);
			} catch {
				fail(line, "is not valid JSON: this is not an engrama export (its first line is an object with \"engrama_export\").");
			}
			const env = envelopeSchema.safeParse(raw);
			if (!env.success) fail(line, 'is not an engrama export header (an object with "engrama_export": 1).');
			const e = env.data;
			if (e.engrama_export !== EXPORT_FORMAT || (e.format_version !== undefined && e.format_version !== EXPORT_FORMAT)) {
				fail(line, `export format ${String(e.engrama_export !== EXPORT_FORMAT ? e.engrama_export : e.format_version)}; this version reads format ${EXPORT_FORMAT}. Export again with a matching version.`);
			}
			sawEnvelope = true;
			yield { kind: "envelope", line, envelope: e };
			continue;
		}
		const parsed = parseLine(text, line, fallback, fromStore);
		if (parsed) yield parsed;
	}
	if (!sawEnvelope) throw new ValidationError("The file is empty: nothing was imported.");
}

function timeOf(value: PropValue | undefined, fallback: string): string {
	return typeof value === "string" && Number.isFinite(Date.parse(value)) ? value : fallback;
}

/** The node's own props, without what identifies it or what the store sets (times, scope, id). */
function ownProps(props: Readonly<Record<string, unknown>>): Props {
	const out: Record<string, PropValue> = {};
	for (const [k, v] of Object.entries(props)) if (!(IDENTITY_PROPS as readonly string[]).includes(k)) out[k] = v as PropValue;
	return out;
}

/**
 * Reads an export (ours or engrama-py's) into a memory. Pass 1 reads the whole file and checks
 * every line and every reference (labels, relation ends, vector sizes, the end record) and what
 * the memory already holds; only then pass 2 writes the graph in one transaction, and pass 3 the
 * vectors. Bad input changes nothing.
 */
/** What an import needs of a memory (`Memory` is one): its reads and the write door. */
export interface ImportTarget {
	readonly graph: GraphReads;
	readonly vectors: VectorReads | null;
	readonly pipeline: StoreUpkeep;
	/** Runs a job as one commit, queued with the memory's other writes (`Memory.write`): `commitEvery`'s commits. */
	write<T>(job: () => Promise<T>): Promise<T>;
}

export async function importMemory(memory: ImportTarget, source: LineSource, options: ImportOptions): Promise<ImportReport> {
	const { graph, vectors } = memory;
	const read = await readWholeFile(source, options);
	const held = await checkAgainstMemory(graph, read, options);
	const vectorSkip = await vectorSkipReason(vectors, read, options);
	const { seen, scopes } = read;
	const takesSettings = held.targetWasEmpty || !!options.takeSettings;
	const report: ImportReport = {
		producer: read.envelope.producer ?? "engrama-py",
		dryRun: options.dryRun,
		scopes: [...scopes.values()].map((s) => `${s.orgId}/${s.userId}`),
		nodes: { created: seen.nodes - held.updated, updated: held.updated },
		relations: seen.relations,
		history: seen.history,
		vectors: { stored: vectorSkip ? 0 : seen.vectors, skipped: vectorSkip ? seen.vectors : 0, ...(vectorSkip ? { reason: vectorSkip } : {}) },
		meta: takesSettings ? seen.meta : 0,
		renumbered: held.renumbered,
		warnings: importWarnings(read, held.targetWasEmpty, vectorSkip, options),
	};
	if (options.dryRun) return report;

	const idOf = (scope: Scope, label: string, key: string): string => {
		const p = read.plan.get(nodeKey(scope, label, key));
		if (!p) throw new ValidationError(`${label} "${key}" vanished between the two reads of the file: was it changed during the import?`);
		return p.id;
	};
	await writeGraph(memory, source, read, idOf, takesSettings, options);
	if (!vectorSkip && seen.vectors > 0 && vectors) await writeVectors(memory, source, idOf, options);
	return report;
}

/**
 * How a pass writes: each write at once, inside the pass's one transaction (import: all or
 * nothing), or queued and committed every `commitEvery` records as a write job of its own
 * (migrate). Queued writes run in the order they were added, so a write added after another is
 * written after it: an edge after its ends.
 */
interface PassWrites {
	/** Writes `op` (of `records` records), or queues it and commits the queue once it holds `commitEvery` records. */
	add(records: number, op: () => Promise<void>): Promise<void>;
	/** Runs the pass: in one transaction (`transaction`) or none; then commits what is still queued. */
	pass(body: () => Promise<void>): Promise<void>;
}

function passWrites(target: ImportTarget, every: number | undefined, transaction: boolean): PassWrites {
	const { pipeline } = target;
	if (!every) return { add: (_records, op) => op(), pass: (body) => (transaction ? pipeline.transaction(body) : body()) };
	let queued: (() => Promise<void>)[] = [];
	let records = 0;
	const commit = async () => {
		if (queued.length === 0) return;
		const ops = queued;
		queued = [];
		records = 0;
		const job = async () => {
			for (const op of ops) await op();
		};
		// On a store whose write jobs hold no transaction of their own (Neo4j), the commit opens one.
		await target.write(() => (transaction ? pipeline.transaction(job) : job()));
	};
	const add = async (n: number, op: () => Promise<void>) => {
		queued.push(op);
		records += n;
		if (records >= every) await commit();
	};
	return { add, pass: async (body) => (await body(), await commit()) };
}

/** ---- pass 3: vectors, after the graph committed (Neo4j writes them in their own transactions), a page per call ---- */
async function writeVectors(target: ImportTarget, source: LineSource, idOf: (scope: Scope, label: string, key: string) => string, options: ImportOptions): Promise<void> {
	const writes = passWrites(target, options.commitEvery, false);
	let scope = options.callerScope;
	let page: (readonly [string, Float32Array])[] = [];
	const flush = async () => {
		const [full, at] = [page, scope];
		if (full.length > 0) await writes.add(full.length, () => target.pipeline.upsertVectors(at, full));
		page = [];
	};
	await writes.pass(async () => {
		for await (const r of records(source, options)) {
			if (r.kind !== "vector") continue;
			if (scopeKey(r.scope) !== scopeKey(scope) || page.length >= FLUSH) await flush();
			scope = r.scope;
			page.push([idOf(r.scope, r.rec.label, r.rec.key_value), Float32Array.from(r.rec.vector)]);
		}
		await flush();
	});
}

/** What pass 1 learnt from the file. */
interface FileReading {
	readonly envelope: Envelope;
	readonly seen: { nodes: number; relations: number; vectors: number; history: number; meta: number };
	/** Node key → the id it will have and whether the memory holds it already. */
	readonly plan: Map<string, Planned>;
	readonly fileIds: Map<string, { scope: Scope; key: string }>;
	readonly scopes: Map<string, Scope>;
	/** Ends of relations, vectors and history: each must be in the file or (with --merge) in the memory. */
	readonly pendingEnds: { line: number; scope: Scope; label: string; key: string }[];
	readonly unknownLabels: Set<string>;
	readonly vectorDims: number;
	readonly fileStandalone: string | undefined;
}

/** ---- pass 1: validate ---- every line, the counts of the end record. */
async function readWholeFile(source: LineSource, options: ImportOptions): Promise<FileReading> {
	let envelope: Envelope | undefined;
	let end: { line: number; rec: EndLine } | undefined;
	const seen = { nodes: 0, relations: 0, vectors: 0, history: 0, meta: 0 };
	const plan = new Map<string, Planned>();
	const fileIds = new Map<string, { scope: Scope; key: string }>();
	const scopes = new Map<string, Scope>();
	const pendingEnds: { line: number; scope: Scope; label: string; key: string }[] = [];
	const unknownLabels = new Set<string>();
	let vectorDims = 0;
	let fileStandalone: string | undefined;
	for await (const r of records(source, options)) {
		if (end && r.kind !== "skip") fail(r.line, `comes after the end record (line ${end.line}).`);
		switch (r.kind) {
			case "envelope":
				envelope = r.envelope;
				vectorDims = r.envelope.embedding_dimensions ?? 0;
				break;
			case "node": {
				const k = nodeKey(r.scope, r.rec.label, r.rec.key_value);
				if (plan.has(k)) fail(r.line, `${r.rec.label} "${r.rec.key_value}" appears twice in ${r.scope.orgId}/${r.scope.userId}.`);
				const id = r.rec.properties.engrama_id;
				if (id !== undefined && (typeof id !== "string" || id === "" || id.length > 100)) fail(r.line, "engrama_id must be a non-empty string.");
				if (typeof id === "string") {
					if (fileIds.has(id)) fail(r.line, `engrama_id ${id} is used by two nodes.`);
					fileIds.set(id, { scope: r.scope, key: k });
				}
				plan.set(k, { id: typeof id === "string" ? id : "", exists: false });
				scopes.set(scopeKey(r.scope), r.scope);
				if (options.knownLabel && !options.knownLabel(r.rec.label)) unknownLabels.add(r.rec.label);
				seen.nodes++;
				break;
			}
			case "relation":
				pendingEnds.push({ line: r.line, scope: r.scope, label: r.rec.from_label, key: r.rec.from_value });
				pendingEnds.push({ line: r.line, scope: r.scope, label: r.rec.to_label, key: r.rec.to_value });
				seen.relations++;
				break;
			case "vector":
				if (vectorDims === 0) vectorDims = r.rec.vector.length;
				if (r.rec.vector.length !== vectorDims) fail(r.line, `a vector of ${r.rec.vector.length} numbers where the file's vectors have ${vectorDims}.`);
				pendingEnds.push({ line: r.line, scope: r.scope, label: r.rec.label, key: r.rec.key_value });
				seen.vectors++;
				break;
			case "history":
				pendingEnds.push({ line: r.line, scope: r.scope, label: r.rec.label, key: r.rec.key_value });
				seen.history++;
				break;
			case "meta":
				if (r.key === STANDALONE_ID_META) fileStandalone = r.value;
				seen.meta++;
				break;
			case "end":
				end = { line: r.line, rec: r.rec };
				break;
			case "skip":
				break;
		}
	}
	if (!envelope) throw new ValidationError("The file is empty: nothing was imported.");
	if (envelope.producer === PRODUCER && !end) {
		throw new ValidationError("The file ends before its end record: it was cut short (an interrupted export or copy). Export again. Nothing was imported.");
	}
	if (end) {
		for (const k of ["nodes", "relations", "vectors", "history", "meta"] as const) {
			if (end.rec[k] !== seen[k]) {
				fail(end.line, `the end record counts ${end.rec[k]} ${k} but the file holds ${seen[k]}: it was changed or cut. Export again.`);
			}
		}
	}
	return { envelope, seen, plan, fileIds, scopes, pendingEnds, unknownLabels, vectorDims, fileStandalone };
}

/** ---- pass 1b: against what the memory holds ---- refusals, ids kept or renumbered, ends found. */
async function checkAgainstMemory(graph: GraphReads, read: FileReading, options: ImportOptions) {
	const { plan, fileIds, scopes, pendingEnds } = read;
	const targetWasEmpty = graph.listScopes ? (await graph.listScopes()).length === 0 : false;
	for (const scope of scopes.values()) {
		const { nodes } = await graph.counts(scope);
		if (nodes > 0 && !options.merge) {
			throw new ValidationError(
				`This memory already holds ${nodes} nodes of ${scope.orgId}/${scope.userId}. Import into an empty memory, or add --merge to update nodes with the same label and name and add the rest. Nothing was imported.`,
				{ scope },
			);
		}
	}
	let renumbered = 0;
	let updated = 0;
	const taken = new Set<string>();
	for (const scope of scopes.values()) {
		const ids = [...fileIds].filter(([, v]) => scopeKey(v.scope) === scopeKey(scope)).map(([id]) => id);
		for (let i = 0; i < ids.length; i += FLUSH) for (const id of await graph.idsOutsideScope(scope, ids.slice(i, i + FLUSH))) taken.add(id);
	}
	for (const [k, p] of plan) {
		const [orgId, userId, label, ...rest] = k.split("\u0000");
		const scope = { orgId, userId };
		const key = rest.join("\u0000");
		if (options.merge) {
			const existing = await graph.getNode(scope, label, key);
			if (existing) {
				p.id = existing.id;
				p.exists = true;
				updated++;
				continue;
			}
			if (p.id) {
				const holder = await graph.getNodeById(scope, p.id);
				if (holder) taken.add(p.id);
			}
		}
		if (!p.id || taken.has(p.id) || !(options.keepsId?.(p.id) ?? true)) {
			const fileId = p.id;
			p.id = options.newId();
			if (fileId) {
				renumbered++;
				options.onNewId?.(fileId, p.id);
			}
		}
	}
	for (const ref of pendingEnds) {
		if (plan.has(nodeKey(ref.scope, ref.label, ref.key))) continue;
		const existing = options.merge ? await graph.getNode(ref.scope, ref.label, ref.key) : null;
		if (!existing) fail(ref.line, `refers to ${ref.label} "${ref.key}" in ${ref.scope.orgId}/${ref.scope.userId}, which is neither in the file nor in this memory.`);
		plan.set(nodeKey(ref.scope, ref.label, ref.key), { id: existing.id, exists: true });
	}
	return { targetWasEmpty, renumbered, updated };
}

/** Why the file's vectors are not imported, or undefined. Vectors only make sense under the model that embeds the memory's queries. */
async function vectorSkipReason(vectors: VectorReads | null, read: FileReading, options: ImportOptions): Promise<string | undefined> {
	const { seen, vectorDims } = read;
	const fileModel = read.envelope.embedding_model ?? "";
	const targetDims = vectors ? await vectors.dimensions() : 0;
	let vectorSkip: string | undefined;
	if (seen.vectors > 0) {
		if (!vectors) vectorSkip = "this memory has no vector store";
		else if (!fileModel || fileModel !== options.embeddingModel)
			vectorSkip = `the vectors were made by ${fileModel ? `"${fileModel}"` : "an unnamed model"} and this memory embeds with ${options.embeddingModel ? `"${options.embeddingModel}"` : "no model"}; run engrama reindex --apply to embed the imported nodes`;
		else if (targetDims !== 0 && targetDims !== vectorDims) vectorSkip = `this memory holds ${targetDims}-dimensional vectors and the file ${vectorDims}-dimensional ones`;
	}
	return vectorSkip;
}

function importWarnings(read: FileReading, targetWasEmpty: boolean, vectorSkip: string | undefined, options: ImportOptions): string[] {
	const { unknownLabels, seen, scopes, fileStandalone } = read;
	const warnings: string[] = [];
	if (unknownLabels.size > 0) warnings.push(`Labels this memory's profile does not define (imported as they are): ${[...unknownLabels].sort().join(", ")}.`);
	if (vectorSkip) warnings.push(`${seen.vectors} vectors not imported: ${vectorSkip}.`);
	const foreign = [...scopes.values()].filter((s) => scopeKey(s) !== scopeKey(options.callerScope));
	// An empty memory takes the file's settings, its standalone identity included: those nodes are then the caller's.
	const adopted = targetWasEmpty && fileStandalone !== undefined ? fileStandalone : undefined;
	if (adopted) warnings.push(`This memory now uses the file's standalone identity (${adopted}), so its nodes are yours.`);
	const stillForeign = foreign.filter((s) => !(adopted && s.userId === adopted));
	if (stillForeign.length > 0) {
		warnings.push(
			`Nodes were imported into ${stillForeign.map((s) => `${s.orgId}/${s.userId}`).join(", ")}, not your scope ${options.callerScope.orgId}/${options.callerScope.userId}: set ENGRAMA_ORG_ID / ENGRAMA_USER_ID to see them.`,
		);
	}
	return warnings;
}

/** ---- pass 2: the graph, one transaction (or a commit every `commitEvery` records) ---- */
async function writeGraph(
	target: ImportTarget,
	source: LineSource,
	read: FileReading,
	idOf: (scope: Scope, label: string, key: string) => string,
	takesSettings: boolean,
	options: ImportOptions,
): Promise<void> {
	const { plan, scopes } = read;
	const { pipeline } = target;
	// Nodes written (or queued, so written before anything queued later), with those already in
	// this memory that the file's relations, vectors or history name (--merge).
	const written = new Set<string>([...plan.values()].filter((p) => p.exists).map((p) => p.id));
	const progress = nodeProgress(options.onProgress);
	const writes = passWrites(target, options.commitEvery, true);
	await writes.pass(async () => {
		const edges = new Map<string, MergeEdgeInput[]>();
		const history = new Map<string, HistoryEntry[]>();
		// A buffer is written when it is full and every node it names is already written (files list
		// nodes first; a hand-made one that does not is written at the end, still in the transaction).
		const ready = (list: readonly (MergeEdgeInput | HistoryEntry)[]) =>
			list.every((e) => ("fromId" in e ? written.has(e.fromId) && written.has(e.toId) : written.has(e.nodeId)));
		const flush = async (all: boolean) => {
			for (const [sk, list] of edges) {
				if (list.length === 0 || (!all && (list.length % FLUSH !== 0 || !ready(list)))) continue;
				const scope = scopes.get(sk) ?? options.callerScope;
				await writes.add(list.length, () => pipeline.mergeStampedEdges(scope, list));
				edges.set(sk, []);
			}
			for (const [sk, list] of history) {
				if (list.length === 0 || (!all && (list.length % FLUSH !== 0 || !ready(list)))) continue;
				const scope = scopes.get(sk) ?? options.callerScope;
				await writes.add(list.length, () => pipeline.importHistory(scope, list));
				history.set(sk, []);
			}
		};
		for await (const r of records(source, options)) {
			if (r.kind === "node") {
				const props = r.rec.properties;
				const id = idOf(r.scope, r.rec.label, r.rec.key_value);
				const created = timeOf(props.created_at as PropValue | undefined, options.now);
				const updatedAt = timeOf(props.updated_at as PropValue | undefined, created);
				const input = { label: r.rec.label, keyField: r.rec.key_field, key: r.rec.key_value, set: ownProps(props), setOnCreate: { engrama_id: id }, now: created };
				// The node's id is the planned one: its own in the file, or the one already here (--merge).
				await writes.add(1, async () => void (await pipeline.importNode(r.scope, input, updatedAt)));
				written.add(id);
				progress.node(r.scope);
				continue;
			}
			progress.end();
			if (r.kind === "relation") {
				const sk = scopeKey(r.scope);
				scopes.set(sk, r.scope);
				const list = edges.get(sk) ?? [];
				list.push({
					fromId: idOf(r.scope, r.rec.from_label, r.rec.from_value),
					type: r.rec.rel_type,
					toId: idOf(r.scope, r.rec.to_label, r.rec.to_value),
					props: (r.rec.properties ?? {}) as Props,
					now: r.rec.created_at ?? options.now,
				});
				edges.set(sk, list);
			} else if (r.kind === "history") {
				// A node that was already here keeps its own history: --merge twice must not record it twice.
				if (plan.get(nodeKey(r.scope, r.rec.label, r.rec.key_value))?.exists) continue;
				const sk = scopeKey(r.scope);
				scopes.set(sk, r.scope);
				const list = history.get(sk) ?? [];
				list.push({ nodeId: idOf(r.scope, r.rec.label, r.rec.key_value), at: r.rec.at, prop: r.rec.prop, before: r.rec.before as PropValue, after: r.rec.after as PropValue, source: r.rec.source });
				history.set(sk, list);
			} else if (r.kind === "meta" && takesSettings && r.key !== "embedding_dimensions") {
				const { key, value } = r;
				await writes.add(0, () => pipeline.setMeta(key, value));
			}
			if (r.kind === "relation" || r.kind === "history") await flush(false);
		}
		progress.end();
		await flush(true);
	});
}

/** `org/user: n nodes`: every PROGRESS nodes written, and once more where a scope's nodes end. */
function nodeProgress(report: ((line: string) => void) | undefined) {
	let scope: Scope | null = null;
	let count = 0;
	const say = () => scope && report?.(`${scope.orgId}/${scope.userId}: ${count} nodes`);
	const end = () => {
		if (count % PROGRESS !== 0) say();
		scope = null;
		count = 0;
	};
	const node = (next: Scope) => {
		if (scope && scopeKey(scope) !== scopeKey(next)) end();
		scope = next;
		if (++count % PROGRESS === 0) say();
	};
	return { node, end };
}
