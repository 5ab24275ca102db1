/** "BELONGS_TO" → "belongs to": relation types as the profile writes them, read as words. */
export function relationText(type: string): string {
	return type.toLowerCase().replace(/_+/g, " ").trim();
}

/** The same, starting with a capital (a heading or a dropdown entry): "Belongs to". */
export function relationHeading(type: string): string {
	const text = relationText(type);
	return text.charAt(0).toUpperCase() + text.slice(1);
}
