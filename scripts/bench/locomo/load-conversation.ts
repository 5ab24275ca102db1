import * as chrono from "chrono-node";
import { parseConfig, configFromEnv } from "../../../src/config/engrama-config";
import { nodeToText } from "../../../src/engine/node-text";
import type { Profile } from "../../../src/engine/profile";
import type { EmbeddingProvider } from "../../../src/engine/protocols";
import type { WriteContext } from "../../../src/engine/write/write-pipeline";
import { openMemory, type OpenedMemory } from "../../../src/node/open-memory";
import { turnText, type LocomoConversation, type LocomoTurn } from "./dataset";
import type { CachedEmbeddingProvider } from "./vector-cache";

const speakerText = (name: string) => `${name}, a participant of the conversation`;

/** What a turn node holds besides its own words: nothing, or the turn it answers (`context`). */
export type TurnContext = "none" | "previous";

/** Stored props of a turn; with "previous" the turn it answers is kept as its context. */
function turnProps(turn: LocomoTurn, before: LocomoTurn | undefined, date: string, context: TurnContext, full: boolean): Record<string, string> {
	const props: Record<string, string> = { description: turnText(turn) };
	if (context === "previous" && before) props.context = turnText(before);
	// The session's date as a note would carry it (frontmatter valid_from): the write pipeline
	// resolves "yesterday", "last week" in the turn against it.
	if (full) Object.assign(props, { speaker: turn.speaker, valid_from: date });
	return props;
}
const sessionText = (n: number, date: string) => `Session ${n} on ${date}`;

/** "1:56 pm on 8 May, 2023" → "2023-05-08T13:56:00.000Z" (the dataset gives no time zone: UTC). */
export function sessionInstant(date: string): string {
	const parsed = chrono.parseDate(date, { instant: new Date(0), timezone: 0 });
	if (!parsed) throw new Error(`LoCoMo session date "${date}" is not a date.`);
	return parsed.toISOString();
}

/** Embeds up front, in batches, every node text the loader writes (passages) and every question (queries). */
export async function warmEmbedder(embedder: CachedEmbeddingProvider, conv: LocomoConversation, context: TurnContext): Promise<void> {
	const { passages, queries } = textsToEmbed(conv, context);
	await embedder.embedBatch(passages);
	await embedder.embedQueries(queries);
}

/** Texts of every node the loader writes and of every question of categories 1-4. */
export function textsToEmbed(conv: LocomoConversation, context: TurnContext): { passages: string[]; queries: string[] } {
	const texts: string[] = [];
	for (const s of conv.sessions) {
		texts.push(nodeToText({ label: "Session", key: `Session ${s.number}`, props: { description: sessionText(s.number, s.date) } }));
		s.turns.forEach((t, i) => texts.push(nodeToText({ label: "Turn", key: t.diaId, props: turnProps(t, s.turns[i - 1], s.date, context, false) })));
	}
	for (const sp of conv.speakers) texts.push(nodeToText({ label: "Speaker", key: sp, props: { description: speakerText(sp) } }));
	const queries = conv.questions.filter((q) => q.category >= 1 && q.category <= 4).map((q) => q.question);
	return { passages: texts, queries };
}

export interface LoadedConversation {
	readonly opened: OpenedMemory;
	/** node id → dia_id of every turn. */
	readonly turnIds: ReadonlyMap<string, string>;
}

/**
 * One conversation as one memory (SQLite in memory) written through the real write pipeline:
 * Speaker and Session nodes, every turn a Turn node (its speaker's words, the session date, and
 * with context "previous" the turn it answers) IN_SESSION its session, SPOKEN_BY its speaker,
 * and NEXT to the following turn; sessions are WITH both speakers.
 */
export async function loadConversation(conv: LocomoConversation, profile: Profile, embedder: EmbeddingProvider | null, context: TurnContext): Promise<LoadedConversation> {
	const env = configFromEnv(process.env, { dbPath: ":memory:" });
	const config = parseConfig({ ...env, backend: "sqlite", dbPath: ":memory:", orgId: "locomo", userId: conv.id, embedding: { provider: "none" } });
	const opened = await openMemory(config, { profile, embedder });
	const { memory, scope } = opened;
	const ctx: WriteContext = { scope, source: "sync" };
	const turnIds = new Map<string, string>();
	await memory.graph.transaction(async () => {
		for (const sp of conv.speakers) await memory.remember(ctx, { label: "Speaker", key: sp, props: { description: speakerText(sp) } });
		for (const s of conv.sessions) {
			const session = { label: "Session", key: `Session ${s.number}` };
			await memory.remember(ctx, { ...session, props: { description: sessionText(s.number, s.date), valid_from: sessionInstant(s.date) } });
			for (const sp of conv.speakers) await memory.relate(ctx, session, "WITH", { label: "Speaker", key: sp });
			let previous: { label: string; key: string } | undefined;
			for (const [i, t] of s.turns.entries()) {
				const turn = { label: "Turn", key: t.diaId };
				const { node } = await memory.remember(ctx, { ...turn, props: turnProps(t, s.turns[i - 1], sessionInstant(s.date), context, true) });
				turnIds.set(node.id, t.diaId);
				await memory.relate(ctx, turn, "IN_SESSION", session);
				if (conv.speakers.includes(t.speaker)) await memory.relate(ctx, turn, "SPOKEN_BY", { label: "Speaker", key: t.speaker });
				if (previous) await memory.relate(ctx, previous, "NEXT", turn);
				previous = turn;
			}
		}
	});
	return { opened, turnIds };
}
