import type { ReflectEntity, ReflectNeighbour } from "../protocols";

/** Names longer than this are cut in titles and bodies (an Insight title is a key: ≤ 500 chars). */
const NAME_CHARS = 120;

/** How an entity is named in text: title-keyed entities (Problems, Decisions) are quoted sentences. */
export interface Namer {
	name(entity: ReflectEntity): string;
	/** The name followed by its label: `Deno (Technology)`. */
	labelled(entity: ReflectEntity): string;
}

export function createNamer(isTitleKeyed: (label: string) => boolean): Namer {
	const name = (entity: ReflectEntity) => {
		const key = entity.key.length > NAME_CHARS ? `${entity.key.slice(0, NAME_CHARS - 1).trimEnd()}…` : entity.key;
		return isTitleKeyed(entity.label) ? `"${key}"` : key;
	};
	return { name, labelled: (entity) => `${name(entity)} (${entity.label})` };
}

/** "A", "A and B", "A, B and C", "A, B, C and 4 more". */
export function listing(items: readonly string[], total = items.length): string {
	if (items.length === 0) return "";
	const more = total - items.length;
	if (more > 0) return `${items.join(", ")} and ${more} more`;
	if (items.length === 1) return items[0];
	return `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

export function plural(n: number, one: string, many = `${one}s`): string {
	return `${n} ${n === 1 ? one : many}`;
}

/** "Billing Portal USES Moment.js": a relation as the person wrote it. */
export function relationText(namer: Namer, self: ReflectEntity, neighbour: ReflectNeighbour): string {
	const [from, to] = neighbour.direction === "out" ? [self, neighbour.entity] : [neighbour.entity, self];
	return `${namer.name(from)} ${neighbour.type} ${namer.name(to)}`;
}

/** Confidences are stored rounded so 0.5 + 0.1·2 is 0.7, on every backend. */
export function roundConfidence(value: number): number {
	return Math.round(Math.min(1, Math.max(0, value)) * 100) / 100;
}

/** The first ten characters of an ISO date, or the text as given. */
export function dayOf(value: string): string {
	return /^\d{4}-\d{2}-\d{2}/.test(value) ? value.slice(0, 10) : value;
}
