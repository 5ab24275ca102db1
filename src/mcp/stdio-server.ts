import process from "node:process";
import { createEngramaMcpServer, toolArgumentsOf } from "./create-mcp-server";
import type { McpServerInput } from "./mcp-services";
import { guardToolCalls } from "./request-guard";
import { CheckedStdioTransport, oneLine } from "./stdio-lines";

export interface StdioStreams {
	readonly stdin: NodeJS.ReadableStream;
	readonly stdout: NodeJS.WritableStream;
}

export interface StdioHandle {
	/** Resolves when the client closed stdin (or `close` was called). */
	readonly done: Promise<void>;
	close(): Promise<void>;
}

/**
 * The same tools over stdio, straight from a database (for stdio-only clients when Obsidian is
 * closed). Calls carry no headers, so they run as the standalone identity. Stdout carries only
 * protocol messages; everything else goes to the services' log (stderr). Bad lines and batches
 * are answered as over HTTP (`CheckedStdioTransport`).
 */
export async function serveMcpStdio(input: McpServerInput, streams: StdioStreams = { stdin: process.stdin, stdout: process.stdout }): Promise<StdioHandle> {
	const server = createEngramaMcpServer(input);
	const log = (line: string) => input.services.log?.(`engrama mcp: stdio: ${line}`);
	const transport = new CheckedStdioTransport(streams.stdin, streams.stdout, log);
	let finish: () => void = () => undefined;
	const done = new Promise<void>((resolve) => {
		finish = resolve;
	});
	transport.onerror = (error) => log(oneLine(error.message));
	await server.connect(transport);
	guardToolCalls(transport, input.services.log, toolArgumentsOf(server));
	const prevClose = transport.onclose;
	transport.onclose = () => {
		prevClose?.();
		finish();
	};
	const close = async () => {
		await server.close();
		finish();
	};
	const onEnd = () => void close();
	streams.stdin.once("end", onEnd);
	streams.stdin.once("close", onEnd);
	return { done, close };
}
