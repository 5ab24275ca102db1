/**
 * The native SQLite engine's door (better-sqlite3 + sqlite-vec), for Node hosts only (src/nodejs):
 * apart from ./index.ts so main.js, which cannot load native code, never imports it.
 */
export { openNativeDatabase } from "./sqlite/native/open-native";
