import { createServer } from "node:net";

/** A local port nothing listens on: bound on 127.0.0.1 by the system, read, then released. */
export function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const server = createServer();
		server.once("error", reject);
		server.listen(0, "127.0.0.1", () => {
			const address = server.address();
			server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("the system gave no port"))));
		});
	});
}
