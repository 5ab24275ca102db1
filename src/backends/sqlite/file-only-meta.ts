import { SCHEMA_VERSION_META } from "./schema";

/** Settings that describe one SQLite file (its schema version), left out of listMeta, so neither `engrama export` nor `engrama migrate` carries them to another memory. */
export const FILE_ONLY_META: ReadonlySet<string> = new Set([SCHEMA_VERSION_META]);
