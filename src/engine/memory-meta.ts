import type { GraphReads } from "./protocols";

/**
 * What reading and writing a memory's own notes (meta: its standalone identity, the model of its
 * vectors, the writer stamp) needs of `Memory`: the reads, and the meta door through its write queue.
 */
export interface MemoryMeta {
	readonly graph: Pick<GraphReads, "getMeta">;
	writeMeta(key: string, value: string): Promise<void>;
}
