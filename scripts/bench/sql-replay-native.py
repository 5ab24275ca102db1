# The native half of scripts/bench/sql-replay.mjs: the same copy (INSERT ... SELECT from the
# attached database a vault sync built, 500 nodes with their fulltext and name rows per
# transaction, then their edges) with Python's sqlite3, i.e. native SQLite, same pragmas as
# Engrama's file mode. Prints one JSON line. Usage: python3 sql-replay-native.py FROM.db TO.db
import json, os, sqlite3, sys, time

src, out = sys.argv[1], sys.argv[2]
db = sqlite3.connect(out, isolation_level=None)
for pragma in ["locking_mode=exclusive", "journal_mode=wal", "synchronous=full", "cache_size=-65536", "foreign_keys=on", "secure_delete=on", "temp_store=memory"]:
    db.execute(f"pragma {pragma}")
db.execute("attach database ? as src", (src,))
schema = db.execute("select sql from src.sqlite_schema where sql is not null and name not like 'nodes_fts_%' and name not like 'sqlite_%' order by rowid").fetchall()
for (sql,) in schema:
    db.execute(sql)
fts_cols = ", ".join(r[1] for r in db.execute("pragma src.table_info(nodes_fts)"))
ids = [r[0] for r in db.execute("select id from src.nodes order by id")]
batches = [(ids[i], ids[min(i + 500, len(ids)) - 1]) for i in range(0, len(ids), 500)]
t0 = time.process_time()
for r in batches:
    db.execute("begin")
    db.execute("insert into nodes select * from src.nodes where id between ? and ? order by id", r)
    db.execute(f"insert into nodes_fts(rowid, {fts_cols}) select rowid, {fts_cols} from src.nodes_fts where rowid between ? and ?", r)
    db.execute("insert into node_names select * from src.node_names where node_id between ? and ?", r)
    db.execute("insert into node_name_fragments select * from src.node_name_fragments where node_id between ? and ? order by node_id", r)
    db.execute("commit")
for r in batches:
    db.execute("begin")
    db.execute("insert or ignore into edges select * from src.edges where from_id between ? and ? order by id", r)
    db.execute("commit")
cpu = time.process_time() - t0
count = lambda t: db.execute(f"select count(*) from {t}").fetchone()[0]
print(json.dumps({"sqlite": sqlite3.sqlite_version, "nodes": count("nodes"), "edges": count("edges"), "fragments": count("node_name_fragments"), "cpuMs": round(cpu * 1000)}))
