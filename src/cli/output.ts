import { EngramaError, errorMessage } from "../engine/errors";

export interface Output {
	readonly json: boolean;
	/** Prints `data` as JSON in --json mode, else the human text. */
	result(data: unknown, human: () => string): void;
	info(line: string): void;
}

export function createOutput(json: boolean): Output {
	return {
		json,
		result(data, human) {
			process.stdout.write(json ? `${JSON.stringify(data, null, 2)}\n` : `${human()}\n`);
		},
		info(line) {
			// Progress and notes go to stderr so stdout stays machine-readable.
			process.stderr.write(`${line}\n`);
		},
	};
}

/** Expected failures exit 2 with their message; bugs exit 1 with the stack. */
export function reportError(error: unknown, json: boolean): number {
	const expected = error instanceof EngramaError || (error instanceof Error && error.name.endsWith("Error") && "code" in error);
	const code = error instanceof EngramaError ? error.code : error instanceof Error && "code" in error ? String(error.code) : "internal_error";
	if (json) {
		const details = error instanceof EngramaError ? error.details : undefined;
		process.stderr.write(`${JSON.stringify({ error: { code, message: errorMessage(error), ...(details ? { details } : {}) } })}\n`);
	} else {
		process.stderr.write(`engrama: ${errorMessage(error)}\n`);
		if (!expected && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
	}
	return expected ? 2 : 1;
}
