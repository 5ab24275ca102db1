/**
 * The one maintained fake of the `obsidian` module (the npm package is types only).
 *
 * It runs plugin code outside the Obsidian app: a Vault over a real folder (or an in-memory
 * file map in a browser), a MetadataCache of each note's frontmatter, the FileManager's
 * processFrontMatter, a Workspace with leaves and views, Plugin with loadData/saveData, the UI
 * classes (Notice, Modal, Setting, ItemView, SuggestModal, ...), and the `createEl` family on DOM
 * elements (happy-dom in Node, the real DOM in a browser).
 *
 * Behaviour follows Obsidian where plugins can observe it (event order and arguments, errors for
 * existing files and missing folders, frontmatter rewritten with the body kept); anything a test
 * needs to drive or inspect lives on the `fake*` helpers, beside what they drive.
 *
 * It fakes only what the plugin and its tests use; add to it (in the part that fakes it) when they
 * need more. Split by what it fakes under tests/fakes/obsidian/ (dom, util, events, files, vault,
 * metadata, workspace, app with the test helpers, ui, settings); this file stays the one entry point
 * that vitest.config.ts, the plugin harness and the browser pages alias as `obsidian`.
 */
export * from "./obsidian/dom";
export * from "./obsidian/util";
export * from "./obsidian/events";
export * from "./obsidian/files";
export * from "./obsidian/vault";
export * from "./obsidian/metadata";
export * from "./obsidian/workspace";
export * from "./obsidian/app";
export * from "./obsidian/ui";
export * from "./obsidian/settings";
