"""Drives the real Python engrama (0.18.1) on one memory file for tests/interop/engrama-py.test.ts.

write <db>: remembers two entities and a relation through its SDK (vectors from its embedder).
add <db>:   remembers a third entity, related to the first.
purge <db> <label> <name>: deletes that node for good (its SQL: one DELETE, foreign keys on).
read <db>:  prints as JSON what it sees: identity, fulltext hits, a node, neighbours, vector hits.
Identity and embedder come from the environment, as for any engrama-py user.
"""

import json
import sqlite3
import sys

from engrama import Engrama


def write(db: str) -> None:
    with Engrama(db_path=db) as m:
        m.remember("Project", "Zeppelin", "Airship fleet planning", description="Route planner for airships")
        m.remember("Technology", "Yonder", "Telemetry library")
        m.associate("Zeppelin", "Project", "USES", "Yonder", "Technology")


def add(db: str) -> None:
    with Engrama(db_path=db) as m:
        m.remember("Technology", "Quokka", "Message queue", description="Queue for airship telemetry")
        m.associate("Zeppelin", "Project", "USES", "Quokka", "Technology")


def purge(db: str, label: str, name: str) -> None:
    with Engrama(db_path=db) as m:
        print(json.dumps(m.forget(label, name, purge=True)))


def read(db: str, query: str) -> None:
    with Engrama(db_path=db) as m:
        scope = m._engine.default_scope
        node = m._store.get_node("Project", "name", "Zeppelin", scope=scope)
        recalled = m.recall("Zeppelin", limit=1, hops=1)
        vector = m._vector_store.search_vectors(m._embedder.embed(query), limit=5, scope=scope)
        out = {
            "identity": {"org_id": scope.org_id, "user_id": scope.user_id},
            "fulltext": [r["name"] for r in m.search("Zeppelin OR Yonder")],
            "node": node,
            "neighbours": [
                {"rel": n["rel_chain"], "name": n["name"]} for r in recalled for n in r.neighbours
            ],
            "vector": [{"key": v["key"], "score": v["score"]} for v in vector],
        }
    conn = sqlite3.connect(db)
    out["user_version"] = conn.execute("PRAGMA user_version").fetchone()[0]
    conn.close()
    print(json.dumps(out, default=str))


if __name__ == "__main__":
    command, path = sys.argv[1], sys.argv[2]
    if command == "write":
        write(path)
    elif command == "add":
        add(path)
    elif command == "purge":
        purge(path, sys.argv[3], sys.argv[4])
    else:
        read(path, sys.argv[3])
