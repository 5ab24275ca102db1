import { main } from "./main";

main(process.argv).catch((error: unknown) => {
	process.stderr.write(`engrama: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
	process.exitCode = 1;
});
