// A bare `--help` or `--version` (no command named): bin/engrama.mjs runs this bundle
// (dist/cli-<hash>.cjs named `flags` in dist/cli.json), which holds commander and the command table
// only, instead of reading the commands' 2.4 MB bundle (docs/design/command-line.md).
import { programFor, reportFailure, type CommandGroup, type Register } from "./command-table";

/** bin/engrama.mjs runs this bundle only when argv names no command, so no group is ever loaded. */
function noGroup(group: CommandGroup): Promise<Register> {
	return Promise.reject(new Error(`the --help/--version bundle has no commands; the ${group} commands are in the command line's bundle`));
}

programFor(process.argv.slice(2), noGroup)
	.then((program) => program.parseAsync([...process.argv]))
	.catch(reportFailure);
