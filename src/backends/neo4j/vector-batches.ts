import type { VectorStore } from "../../engine/backend-kit";
import type { Scope } from "../../engine/types";
import { Neo4jVectorStore } from "./neo4j-vector-store";

/** Writes migrated vectors: many per statement into Neo4j, one by one elsewhere. */
export async function writeVectors(vectors: VectorStore | null, scope: Scope, entries: readonly (readonly [string, Float32Array])[]): Promise<void> {
	if (vectors instanceof Neo4jVectorStore) await vectors.upsertMany(scope, entries);
	else for (const [id, vector] of entries) await vectors?.upsert(scope, id, vector);
}
