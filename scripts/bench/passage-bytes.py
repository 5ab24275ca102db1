# What the text of note passages costs in a database a vault sync built, and what each way of
# storing it less would leave: the file's bytes, and per byte of vault, as it is and for copies
# with every passage's text deflated on its own, each note's passages deflated as one text, no
# passage text but a delete key per passage (what a contentless FTS5 'delete' needs, checked
# below), and no passage text at all (the floor of any design that reads passages back from the
# vault). Every copy is VACUUMed, so the figures compare layouts, not free pages. Then checks, on
# this Python's SQLite (engrama-py's), that a contentless FTS5 row deleted with its distinct tokens
# and its token count, in any order, leaves the index as if the row had never been there.
# Usage: python3 scripts/bench/passage-bytes.py DB VAULT
#   (DB: the rebuilt b.db of `node scripts/bench/sync-bench.mjs --sizes 2000 --keep`, made by a
#   schema 12 tree: it reads the text from note_passages, which schema 13 deflates per note)
import json, os, random, re, shutil, sqlite3, subprocess, sys, tempfile, unicodedata, zlib
from collections import Counter
from itertools import groupby

db_path, vault = sys.argv[1], sys.argv[2]
# The vault as sync-bench.mjs counts it (du -sb) and its notes alone (a real vault holds images too).
vault_bytes = int(subprocess.check_output(["du", "-sb", vault]).split()[0])
markdown_bytes = sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(vault) for f in files if f.endswith(".md"))


def deflate(text):
    z = zlib.compressobj(6, zlib.DEFLATED, -15)
    return z.compress(text.encode()) + z.flush()


def per_passage(db, rows):
    db.executemany("update note_passages set body = ?, original = null where id = ?", [(deflate(t), i) for i, _, t in rows])


def per_note(db, rows):
    for _, group in groupby(rows, key=lambda r: r[1]):
        group = list(group)
        db.execute("update note_passages set body = ?, original = null where id = ?", (deflate("\n".join(t for *_, t in group)), group[0][0]))
        db.executemany("update note_passages set body = x'', original = null where id = ?", [(i,) for i, *_ in group[1:]])


def no_text(db, rows):
    db.execute("update note_passages set body = '', original = null")


def varint(n):
    out = bytearray()
    while True:
        out.append((n & 0x7F) | (0x80 if n > 0x7F else 0))
        n >>= 7
        if not n:
            return bytes(out)


def ascending_deltas(numbers):
    return b"".join(varint(n - before) for before, n in zip([0] + numbers, numbers))


def tokens(text):
    """About FTS5's unicode61: runs of letters and digits, lower case, Latin accents dropped."""
    folded = unicodedata.normalize("NFD", text.lower())
    return re.findall(r"\w+", "".join(c for c in folded if not unicodedata.combining(c)))


def delete_keys(db, rows):
    """No text; per passage its token count and its distinct tokens as ids in a term table (common
    terms first), ascending, each written as the difference from the one before."""
    no_text(db, rows)
    split = [(i, tokens(t)) for i, _, t in rows]
    freq = Counter(term for _, toks in split for term in set(toks))
    ids = {term: n for n, (term, _) in enumerate(freq.most_common())}
    db.execute("create table passage_terms (id integer primary key, term text not null unique)")
    db.executemany("insert into passage_terms values (?, ?)", [(n, t) for t, n in ids.items()])
    db.execute("alter table note_passages add column keys blob")
    db.executemany("update note_passages set keys = ? where id = ?", [(varint(len(toks)) + ascending_deltas(sorted(ids[t] for t in set(toks))), i) for i, toks in split])


def bytes_after(change):
    with tempfile.TemporaryDirectory() as work:
        copy = os.path.join(work, "copy.db")
        shutil.copy(db_path, copy)
        db = sqlite3.connect(copy)
        rows = db.execute("select id, node_id, coalesce(original, body) from note_passages order by node_id, ord").fetchall()
        if change:
            change(db, rows)
        db.commit()
        db.execute("vacuum")
        pages = db.execute("pragma page_count").fetchone()[0] * db.execute("pragma page_size").fetchone()[0]
        db.close()
        return {"MB": round(pages / 1e6, 2), "perVault": round(pages / vault_bytes, 3), "perMarkdown": round(pages / markdown_bytes, 3)}


def delete_needs_tokens_only():
    """A contentless FTS5 row deleted with its distinct tokens (padded to its token count, shuffled)."""
    random.seed(1)
    words = [f"w{i}" for i in range(300)]
    docs = {i: " ".join(random.choice(words) for _ in range(random.randint(20, 120))) for i in range(1, 400)}

    def build(skip=None):
        db = sqlite3.connect(":memory:")
        db.execute("create virtual table f using fts5(body, content='')")
        db.executemany("insert into f(rowid, body) values (?, ?)", [(i, t) for i, t in docs.items() if i != skip])
        return db

    deleted, never = build(), build(skip=7)
    tokens = docs[7].split()
    distinct = sorted(set(tokens))
    keys = distinct + [distinct[0]] * (len(tokens) - len(distinct))
    random.shuffle(keys)
    deleted.execute("insert into f(f, rowid, body) values ('delete', 7, ?)", (" ".join(keys),))
    for db in (deleted, never):
        db.execute("insert into f(f) values ('integrity-check')")
    queries = words + [f'"{a} {b}"' for a, b in zip(words, words[1:])]
    ranked = lambda db, q: db.execute("select rowid, bm25(f) from f where f match ? order by rank, rowid", (q,)).fetchall()
    return all(ranked(deleted, q) == ranked(never, q) for q in queries)


db = sqlite3.connect(db_path)
text = db.execute("select count(*), sum(length(cast(coalesce(original, body) as blob))) from note_passages").fetchone()
db.close()
print(json.dumps({
    "sqlite": sqlite3.sqlite_version,
    "vaultMB": round(vault_bytes / 1e6, 2),
    "markdownMB": round(markdown_bytes / 1e6, 2),
    "passages": text[0],
    "passageTextMB": round((text[1] or 0) / 1e6, 2),
    "database": {
        "asIs": bytes_after(None),
        "deflatePerPassage": bytes_after(per_passage),
        "deflatePerNote": bytes_after(per_note),
        "noPassageText": bytes_after(no_text),
        "noPassageTextWithDeleteKeys": bytes_after(delete_keys),
    },
    "contentlessDeleteNeedsOnlyDistinctTokensAndCount": delete_needs_tokens_only(),
}))
