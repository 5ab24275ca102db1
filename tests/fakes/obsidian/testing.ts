// Test helpers that span the fake (not part of Obsidian's API). Part of the one fake of `obsidian`: import it through tests/fakes/obsidian.ts.
import { App } from "./app";
import { fakeErrors } from "./events";
import { type FakeFileSystem, nodeFileSystem } from "./files";
import { fakeNotices, fakeOpenModals } from "./ui";
import { fakeRequests } from "./util";

/** Forgets recorded notices, modals, errors and requests (between tests). */
export function fakeReset(): void {
	fakeNotices.splice(0).forEach((n) => n.hide());
	fakeOpenModals.splice(0).forEach((m) => m.close());
	fakeErrors.splice(0);
	fakeRequests.splice(0);
}

/** Builds an App over a folder on disk (Node) or a file system of your choice. */
export function createFakeApp(vault: string | FakeFileSystem, options: { mobile?: boolean } = {}): App {
	return new App(typeof vault === "string" ? nodeFileSystem(vault) : vault, options);
}
