import { FULLTEXT_FIELDS, extraFulltext, itemDay } from "../../engine/backend-kit";
import { indexText } from "../../engine/backend-kit";
import { NOT_SEARCHED } from "../../engine/backend-kit";
import type { PropValue, Props } from "../../engine/types";

const FTS_COLUMNS = FULLTEXT_FIELDS;

/** A node's values for the FTS columns; text props outside them and the item's day go into body. */
export function ftsValues(props: Props): (string | null)[] {
	const extra: string[] = [];
	// Text props outside the Python FTS columns still deserve to be found: they go into body.
	for (const [name, value] of Object.entries(props)) {
		if ((FTS_COLUMNS as readonly string[]).includes(name)) continue;
		const text = extraFulltext(name, value);
		if (text !== null && !isSystemish(name)) extra.push(indexText(text));
	}
	// The item's own day as words ("8 May 2023"), as nodeToText embeds it (Neo4j's fulltextProperties alike).
	const day = itemDay(props);
	if (day) extra.push(day);
	return FTS_COLUMNS.map((column) => {
		const text = ftsText(props[column]);
		if (column === "body" && extra.length > 0) return [text, ...extra].filter(Boolean).join("\n");
		return text;
	});
}

/** A prop's indexed text: words of scripts written without spaces split apart (engine/search/words). */
export function ftsText(value: PropValue | undefined): string | null {
	if (value === undefined || value === null) return null;
	if (Array.isArray(value)) return indexText(value.map(String).join(" "));
	return typeof value === "object" ? null : indexText(String(value));
}

function isSystemish(name: string): boolean {
	return NOT_SEARCHED.has(name);
}
