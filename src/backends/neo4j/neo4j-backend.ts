import type { EngramaConfig } from "../../config/engrama-config";
import { BackendError } from "../../engine/errors";
import type { Backend } from "../factory";

/** Placeholder until the Neo4j backend lands: fails loudly rather than pretending. */
export async function createNeo4jBackend(_config: EngramaConfig): Promise<Backend> {
	throw new BackendError("The Neo4j backend is not available in this build yet. Use GRAPH_BACKEND=sqlite.");
}
