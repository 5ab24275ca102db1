import * as z from "zod";
import { NotFoundError } from "../../engine/errors";
import { bodyLineOf, noteSection } from "../../engine";
import { READ_ONLY, count, defineTool, requireVaultOwner, text, type ToolEnv } from "../tool-kit";
import { resolveVaultPath } from "../vault-path";

/** Characters an agent gets by default: about one screen of a section (1k tokens). */
const DEFAULT_CHARS = 4000;

export function readNoteTool(env: ToolEnv) {
	return defineTool({
		name: "engrama_read_note",
		title: "Read a note's section",
		description:
			"Read a section of a note: by `heading` (a passage's heading path, e.g. 'Setup > Linux'; \"\" is the text before the first heading), else the one holding `line`, else from the start; up to max_chars.",
		inputSchema: {
			path: text("path", 1000, "Vault-relative, as engrama_search returns it."),
			heading: text("heading", 500, "From a passage, e.g. 'Setup > Linux'.", 0).optional(),
			line: count("line", 1, 10_000_000, "A line inside the section.").optional(),
			max_chars: count("max_chars", 200, 20_000, "").default(DEFAULT_CHARS),
		},
		outputSchema: { path: z.string(), heading: z.string(), line: z.number(), end_line: z.number(), truncated: z.boolean(), text: z.string() },
		annotations: { ...READ_ONLY, title: "Read a note's section" },
		async run(args, call) {
			const vault = requireVaultOwner(env, call, "engrama_read_note");
			const path = await resolveVaultPath(vault, args.path, "path");
			if (!(await vault.source.stat(path))) throw new NotFoundError(`No note "${path}" in the vault ${vault.path}; check the path (engrama_search gives it).`);
			const note = await vault.source.read(path);
			const section = noteSection(note, bodyLineOf(note), { heading: args.heading, line: args.line }, args.max_chars);
			if (!section) throw new NotFoundError(`"${path}" has no heading "${args.heading ?? ""}". Give a heading path from engrama_search's passages, or a line.`);
			// The section's text once, in structuredContent (older clients get it as JSON after the summary).
			const structured = { path, heading: section.heading, line: section.line, end_line: section.endLine, truncated: section.truncated, text: section.text };
			const where = section.heading ? ` # ${section.heading}` : "";
			return { structured, summary: `${path}${where}, lines ${section.line}-${section.endLine}${section.truncated ? ` (first ${args.max_chars} characters)` : ""}.` };
		},
	});
}
