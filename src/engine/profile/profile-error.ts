import { EngramaError } from "../errors";

/** One thing wrong in a profile file; `path` points into the YAML (`relations[3].to`) or at a line. */
export interface ProfileIssue {
	readonly file: string;
	readonly path: string;
	readonly message: string;
	/** 1-based line in the file, when the YAML node could be located. */
	readonly line?: number;
}

export function formatIssue(issue: ProfileIssue): string {
	const where = issue.path === "" ? issue.file : `${issue.file}: ${issue.path}`;
	const line = issue.line === undefined ? "" : ` (line ${issue.line})`;
	return `${where}: ${issue.message}${line}`;
}

/** The profile files do not form a valid profile; every issue found is listed, not just the first. */
export class ProfileError extends EngramaError {
	readonly issues: readonly ProfileIssue[];

	constructor(issues: readonly ProfileIssue[]) {
		const count = issues.length === 1 ? "1 problem" : `${issues.length} problems`;
		super("invalid_profile", `Invalid profile (${count}); fix the profile files:\n${issues.map((i) => `  ${formatIssue(i)}`).join("\n")}`, {
			issues: issues.map(formatIssue),
		});
		this.issues = issues;
	}
}
