import { SCHEMA_VERSION_META } from "./schema";

/** Settings that describe one SQLite file (its schema version), never copied to another memory by `engrama migrate`. */
export const FILE_ONLY_META: ReadonlySet<string> = new Set([SCHEMA_VERSION_META]);
