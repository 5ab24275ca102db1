// Another program's read of a memory file: Python's sqlite3 (native SQLite, as the sqlite3 shell or
// DB Browser read it) opens the file, reads the node names and closes. python3 must be installed.
import { spawnSync } from "node:child_process";

const SCRIPT = `
import json, sqlite3, sys
connection = sqlite3.connect(sys.argv[1])
rows = connection.execute("SELECT key_value FROM nodes ORDER BY id").fetchall()
connection.close()
print(json.dumps([r[0] for r in rows]))
`;

export function peekNames(db: string): string[] {
	const run = spawnSync("python3", ["-c", SCRIPT, db], { encoding: "utf8" });
	if (run.status !== 0) throw new Error(`python3 reader failed (python3 must be installed): ${run.error?.message ?? run.stderr}`);
	return JSON.parse(run.stdout) as string[];
}
