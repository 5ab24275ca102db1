import * as chrono from "chrono-node";
import { parseConfig, configFromEnv } from "../../../src/config/engrama-config";
import { nodeToText } from "../../../src/engine/node-text";
import type { Clock } from "../../../src/engine/clock";
import type { Profile } from "../../../src/engine/profile";
import type { EmbeddingProvider } from "../../../src/engine/protocols";
import type { WriteContext } from "../../../src/engine/write/write-pipeline";
import { openMemory, type OpenedMemory } from "../../../src/nodejs/open-memory";
import { turnText, type LocomoConversation, type LocomoTurn } from "./dataset";
import type { CachedEmbeddingProvider } from "./vector-cache";

const speakerText = (name: string) => `${name}, a participant of the conversation`;

/**
 * What a turn node holds besides its own words (`context`): nothing, the turn it answers, or its
 * ±k neighbours of the same session ("window1" … "window9": k turns before and k after, in order).
 */
export type TurnContext = "none" | "previous" | `window${number}`;

export function isTurnContext(value: string): value is TurnContext {
	return value === "none" || value === "previous" || /^window[1-9]$/.test(value);
}

function contextTurns(turns: readonly LocomoTurn[], i: number, context: TurnContext): LocomoTurn[] {
	if (context === "none") return [];
	if (context === "previous") return turns.slice(Math.max(0, i - 1), i);
	const k = Number(context.slice("window".length));
	return [...turns.slice(Math.max(0, i - k), i), ...turns.slice(i + 1, i + 1 + k)];
}

/** dia_id → the embedded text of its Turn node under this context (for a second vector per turn). */
export function turnTexts(conv: LocomoConversation, context: TurnContext): Map<string, string> {
	const out = new Map<string, string>();
	for (const s of conv.sessions) {
		s.turns.forEach((t, i) => out.set(t.diaId, nodeToText({ label: "Turn", key: t.diaId, props: turnProps(s.turns, i, sessionInstant(s.date), context, false) })));
	}
	return out;
}

/**
 * Stored props of a turn: its words, its context turns (contextTurns) as `context`, and the
 * session's date as `valid_from` (the engine indexes and embeds its day as words, and resolves
 * "yesterday", "last week" in the turn against it); `full` adds what the text leaves out.
 */
function turnProps(turns: readonly LocomoTurn[], i: number, instant: string, context: TurnContext, full: boolean): Record<string, string> {
	const turn = turns[i];
	const props: Record<string, string> = { description: turnText(turn) };
	const around = contextTurns(turns, i, context);
	if (around.length > 0) props.context = around.map(turnText).join("\n");
	props.valid_from = instant;
	if (full) props.speaker = turn.speaker;
	return props;
}
const sessionProps = (n: number, date: string) => ({ description: `Session ${n} on ${date}`, valid_from: sessionInstant(date) });
// A speaker's date is the first session's, not the day the benchmark runs (its day is in its text).
const speakerProps = (name: string, conv: LocomoConversation) => ({ description: speakerText(name), valid_from: sessionInstant(conv.sessions[0].date) });

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
		texts.push(nodeToText({ label: "Session", key: `Session ${s.number}`, props: sessionProps(s.number, s.date) }));
		s.turns.forEach((t, i) => texts.push(nodeToText({ label: "Turn", key: t.diaId, props: turnProps(s.turns, i, sessionInstant(s.date), context, false) })));
	}
	for (const sp of conv.speakers) texts.push(nodeToText({ label: "Speaker", key: sp, props: speakerProps(sp, conv) }));
	const queries = conv.questions.filter((q) => q.category >= 1 && q.category <= 4).map((q) => q.question);
	return { passages: texts, queries };
}

/** The questions are asked the day after the last session: "in June" then means the conversation's June. */
export function askedAt(conv: LocomoConversation): Clock {
	const last = Math.max(...conv.sessions.map((s) => Date.parse(sessionInstant(s.date))));
	const at = new Date(last + 86_400_000);
	return { now: () => at };
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
	await memory.pipeline.transaction(async () => {
		for (const sp of conv.speakers) await memory.remember(ctx, { label: "Speaker", key: sp, props: speakerProps(sp, conv) });
		for (const s of conv.sessions) {
			const session = { label: "Session", key: `Session ${s.number}` };
			await memory.remember(ctx, { ...session, props: sessionProps(s.number, s.date) });
			for (const sp of conv.speakers) await memory.relate(ctx, session, "WITH", { label: "Speaker", key: sp });
			let previous: { label: string; key: string } | undefined;
			for (const [i, t] of s.turns.entries()) {
				const turn = { label: "Turn", key: t.diaId };
				const { node } = await memory.remember(ctx, { ...turn, props: turnProps(s.turns, i, sessionInstant(s.date), context, true) });
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
