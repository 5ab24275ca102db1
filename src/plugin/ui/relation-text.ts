/** "BELONGS_TO" → "belongs to": relation types as the profile writes them, read as words. */
export function relationText(type: string): string {
	return type.toLowerCase().replace(/_+/g, " ").trim();
}

/** The same, starting with a capital (a heading or a dropdown entry): "Belongs to". */
export function relationHeading(type: string): string {
	const text = relationText(type);
	return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A relation seen from a node: "Uses" (what it uses) or "Uses this" (what uses it). */
export function relationFromNode(type: string, direction: "out" | "in"): string {
	return direction === "out" ? relationHeading(type) : `${relationHeading(type)} this`;
}
