/** Reading a LoCoMo file (snap-research/LoCoMo format; any number of conversations). */

export interface LocomoTurn {
	readonly speaker: string;
	readonly diaId: string;
	readonly text: string;
	readonly caption?: string;
}

export interface LocomoSession {
	readonly number: number;
	readonly date: string;
	readonly turns: readonly LocomoTurn[];
}

export interface LocomoQuestion {
	readonly question: string;
	readonly category: number;
	/** Normalised evidence turn ids ("D3:12"); malformed ids are repaired or dropped. */
	readonly evidence: readonly string[];
}

export interface LocomoConversation {
	readonly id: string;
	readonly speakers: readonly string[];
	readonly sessions: readonly LocomoSession[];
	readonly questions: readonly LocomoQuestion[];
}

export const CATEGORY_NAMES: Readonly<Record<number, string>> = {
	1: "multi-hop",
	2: "temporal",
	3: "open-domain",
	4: "single-hop",
	5: "adversarial",
};

/** "D8:6; D9:17", "D:11:26", "D9:1 D4:4" → ["D8:6", "D9:17"], ["D11:26"], ["D9:1", "D4:4"]. */
export function parseEvidence(raw: unknown): string[] {
	const items = Array.isArray(raw) ? raw : [];
	const out: string[] = [];
	for (const item of items) {
		for (const m of String(item).matchAll(/D:?(\d+):(\d+)/g)) {
			const id = `D${Number(m[1])}:${Number(m[2])}`;
			if (!out.includes(id)) out.push(id);
		}
	}
	return out;
}

function str(value: unknown, fallback = ""): string {
	return typeof value === "string" ? value : typeof value === "number" ? String(value) : fallback;
}

function record(value: unknown): Record<string, unknown> {
	return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

export function parseLocomo(json: unknown): LocomoConversation[] {
	if (!Array.isArray(json)) throw new Error("A LoCoMo file is a JSON array of conversations.");
	return json.map((raw, index) => {
		const item = record(raw);
		const conv = record(item.conversation);
		const sessions: LocomoSession[] = [];
		for (const key of Object.keys(conv)) {
			const m = /^session_(\d+)$/.exec(key);
			if (!m || !Array.isArray(conv[key])) continue;
			const number = Number(m[1]);
			const turns = (conv[key] as unknown[]).map((t) => {
				const turn = record(t);
				const caption = typeof turn.blip_caption === "string" && turn.blip_caption ? turn.blip_caption : undefined;
				return { speaker: str(turn.speaker), diaId: str(turn.dia_id), text: str(turn.text), caption };
			});
			sessions.push({ number, date: str(conv[`session_${number}_date_time`]), turns });
		}
		sessions.sort((a, b) => a.number - b.number);
		const speakers = [conv.speaker_a, conv.speaker_b].filter((s): s is string => typeof s === "string" && s.length > 0);
		const questions = (Array.isArray(item.qa) ? item.qa : []).map((q) => {
			const qa = record(q);
			return { question: str(qa.question), category: Number(qa.category), evidence: parseEvidence(qa.evidence) };
		});
		return { id: str(item.sample_id, `conversation-${index + 1}`), speakers, sessions, questions };
	});
}

/** What a turn node says: who spoke, their words, and the caption of a shared image. */
export function turnText(turn: LocomoTurn): string {
	return `${turn.speaker}: ${turn.text}${turn.caption ? ` [shares an image: ${turn.caption}]` : ""}`;
}
