"""The yardstick for recall speed: SQLite's FTS5 over the same entries, from Python.

    python bench/fts5_baseline.py build WORKSPACE DB   # one row per log entry / curated file
    python bench/fts5_baseline.py query DB WORD...     # an any-word query, best 10 by bm25

`build` reads every Markdown file under WORKSPACE/memory/ and the curated files at its top
(MEMORY.md, USER.md, AGENTS.md, HISTORY.md): a daily log becomes one row per entry (its
`## HH:MM · role` heading and the lines under it), any other file one row. `query` is what a
small tool built on SQLite would run on every turn: connect, MATCH the words joined by OR
(each quoted), ORDER BY rank, LIMIT 10, print path, line and a snippet as JSON. It imports
only sqlite3 and json, so its process is the floor a Python recall could reach.
"""

from __future__ import annotations

import sys


def _entries(text: str) -> list[tuple[int, str]]:
    """(first line, text) of each `## ` entry of a daily log; the lines before the first
    heading are an entry of their own when they hold anything."""
    out: list[tuple[int, str]] = []
    start, lines = 1, []
    for i, line in enumerate(text.splitlines(), 1):
        if line.startswith("## ") and lines:
            body = "\n".join(lines).strip()
            if body:
                out.append((start, body))
            start, lines = i, []
        lines.append(line)
    body = "\n".join(lines).strip()
    if body:
        out.append((start, body))
    return out


def build(root: str, db: str) -> int:
    import os
    import sqlite3

    con = sqlite3.connect(db)
    con.execute("CREATE VIRTUAL TABLE entries USING fts5(path UNINDEXED, line UNINDEXED, body)")
    rows = 0
    names = [n for n in ("MEMORY.md", "USER.md", "AGENTS.md", "HISTORY.md")]
    files = [n for n in names if os.path.isfile(os.path.join(root, n))]
    memory = os.path.join(root, "memory")
    for folder, _, found in sorted(os.walk(memory)):
        rel = os.path.relpath(folder, root)
        files += [f"{rel}/{n}" for n in sorted(found) if n.endswith(".md")]
    with con:
        for rel in files:
            with open(os.path.join(root, rel), encoding="utf-8") as f:
                text = f.read()
            parts = _entries(text) if rel.startswith("memory/") else [(1, text)]
            con.executemany(
                "INSERT INTO entries(path, line, body) VALUES (?, ?, ?)",
                [(rel, line, body) for line, body in parts],
            )
            rows += len(parts)
    con.execute("INSERT INTO entries(entries) VALUES ('optimize')")
    con.commit()
    con.execute("VACUUM")
    con.close()
    return rows


def query(db: str, words: list[str]) -> str:
    import json
    import sqlite3

    con = sqlite3.connect(db)
    match = " OR ".join('"' + w.replace('"', '""') + '"' for w in words)
    found = con.execute(
        "SELECT path, line, snippet(entries, 2, '', '', '…', 12) FROM entries "
        "WHERE entries MATCH ? ORDER BY rank LIMIT 10",
        (match,),
    ).fetchall()
    return json.dumps(
        [{"path": p, "line": int(n), "snippet": s} for p, n, s in found], ensure_ascii=False
    )


def main(argv: list[str]) -> int:
    if len(argv) >= 3 and argv[0] == "build":
        print(build(argv[1], argv[2]))
        return 0
    if len(argv) >= 3 and argv[0] == "query":
        print(query(argv[1], argv[2:]))
        return 0
    print(__doc__.strip().splitlines()[2], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
