"""Issue 34: curated lines a person enjoys reading. A line is the fact and links to where it
came from; what else mem knows of it (type, importance, confidence, day, entry ids) is kept
in the HISTORY.md marker of the batch that wrote it (format/curated.py)."""

from __future__ import annotations

import re
from datetime import date, datetime

import git
from helpers import record, src_problems

from openclaw_mem.format.curated import (
    LineRecord,
    line_key,
    read_ledger,
    record_of,
    reformat,
    with_ledger,
)
from openclaw_mem.format.logs import read_entries
from openclaw_mem.format.markdown import core, parse_citation, sources
from openclaw_mem.store.workspace import Workspace
from openclaw_mem.upkeep.cleanup import find_stale

_COMMENT_RE = re.compile(r"<!--.*?-->")


def _bullets(text: str) -> list[str]:
    return [line for line in text.splitlines() if re.match(r"\s*[-*+] ", line)]


def _mem_wrote(ws, lines: str, said: str, day: date, ids=(), importance=0.8, kind="identity"):
    """USER.md holding `lines` (its Identity section), and HISTORY.md the record of the one
    mem wrote that says `said`, as a consolidation on `day` would have left them. Without
    `ids`, the record names an entry of that day that says the line (a record nothing here
    backs is only a claim: format/curated.py's `vouched`)."""
    (ws.root / "USER.md").write_text(f"# USER\n\n## Identity\n\n{lines}", encoding="utf-8")
    if not ids:
        log = ws.root / "memory" / f"{day}.md"
        log.parent.mkdir(exist_ok=True)
        log.write_text(
            f"# {day}\n\n## 09:00 · user <!-- id: 0123456789ab -->\n{said}\n\n", encoding="utf-8"
        )
        ids = ("0123456789ab",)
    known = LineRecord("USER", line_key(said), kind, importance, 0.9, day, tuple(ids))
    (ws.root / "HISTORY.md").write_text(
        with_ledger(f"# HISTORY\n\n[{day} 10:00] Notes.\n<!-- consolidated: x -->\n", [known]),
        encoding="utf-8",
    )


def test_after_consolidating_the_example_lines_are_prose_with_links_that_hold(example):
    before = {n: (example.root / n).read_text(encoding="utf-8") for n in ("USER.md", "MEMORY.md")}
    example("consolidate", "--now", "2026-11-28T09:00")
    for name, old in before.items():
        text = (example.root / name).read_text(encoding="utf-8")
        bullets = _bullets(text)
        comments = sum(len(c) for line in bullets for c in _COMMENT_RE.findall(line))
        assert comments <= 0.10 * sum(len(line) for line in bullets), name
        added = [line for line in bullets if line not in old.splitlines() and "~~" not in line]
        assert added, name  # not vacuous: the example's logs add lines to both files
        for line in added:
            cites = sources(line)
            assert cites, line  # every line consolidation wrote says where it came from
            path, a, b = parse_citation(cites[0])
            said = (example.root / path).read_text(encoding="utf-8").splitlines()[a - 1 : b]
            assert said and said[0].startswith("## "), (line, said)  # an entry, from its head
            # The rest is in the batch's marker, found by what the line says.
            known = record(example.root, name.removesuffix(".md"), core(line))
            assert known is not None and known.ids and 0 < known.importance <= 1, line
        assert src_problems(example.root, old, text) == []
    history = (example.root / "HISTORY.md").read_text(encoding="utf-8")
    assert "lines: " in history.rsplit("<!-- consolidated:", 1)[1]


def test_a_record_follows_what_a_line_says_not_where_it_is():
    history = with_ledger(
        "[2026-11-20 09:00] Notes.\n<!-- consolidated: 1 entry of memory/2026-11-20.md -->",
        [LineRecord("USER", line_key("Likes tea"), "preference", 0.4, 0.9, date(2026, 11, 20))],
    )
    ledger = read_ledger(history)
    linked = "- Likes tea [2026-11-20](memory/2026-11-20.md#L3-L4)"
    for line in (linked, "* likes   TEA", "- Likes tea"):
        assert record_of("USER", line, ledger).importance == 0.4, line  # moved, re-bulleted
    struck = "- ~~Likes tea~~ (deprecated 2026-11-30 → Likes coffee) [11-20](memory/x.md#L3)"
    assert record_of("USER", struck, ledger).type == "preference"  # struck keeps its record
    assert record_of("USER", "- Likes green tea", ledger) is None  # rewritten: the person's
    assert record_of("MEMORY", "- Likes tea", ledger) is None  # another file's line
    # Writing the marker again replaces its records, never appends a second field.
    again = with_ledger(history, [])
    assert "lines:" not in again and again.startswith("[2026-11-20 09:00] Notes.\n<!-- cons")


def test_cleanup_reads_importance_from_the_ledger_and_never_archives_a_persons_line(ws):
    _mem_wrote(
        ws,
        "- Trivia nobody asks about [2026-09-01](memory/2026-09-01.md#L3-L4)\n"
        "- A line the person wrote\n",
        "Trivia nobody asks about",
        date(2026, 9, 1),
        importance=0.1,
        kind="fact",
    )
    stale = find_stale(Workspace(ws.root), datetime(2026, 12, 1))
    assert [(s.line, s.reason) for s in stale] == [(5, "importance 0.1, never used")]


OLD = (
    "# USER\n\n## Identity\n\n"
    "- Is vegetarian <!-- identity i=0.8 c=0.9 2026-12-01 src=memory/2026-12-01.md#L3-L4 "
    "eid={eid} -->\n"
    "- ~~Uses Python~~ (deprecated 2026-12-01 → Uses Go) <!-- identity i=0.7 c=0.9 "
    "2026-11-02 agent=coder -->\n"
    "- A line the person wrote\n"
)


def test_doctor_moves_old_metadata_into_history_and_links_still_follow_their_entries(ws):
    ws("log", "--at", "2026-12-01T09:00", "--role", "user", "I'm vegetarian.")
    (entry,) = read_entries(ws.root / "memory" / "2026-12-01.md")
    (ws.root / "USER.md").write_text(OLD.format(eid=entry.id), encoding="utf-8")
    ws("commit", "-m", "lines of an older mem")
    out = ws("doctor").stdout
    assert "rewrote 2 curated lines of the older format" in out
    user = (ws.root / "USER.md").read_text(encoding="utf-8")
    assert "- Is vegetarian [2026-12-01](memory/2026-12-01.md#L3-L4)\n" in user
    assert "- ~~Uses Python~~ (deprecated 2026-12-01 → Uses Go) <!-- agent: coder -->\n" in user
    assert "- A line the person wrote\n" in user and "i=0." not in user
    known = record(ws.root, "USER", "Is vegetarian")
    assert (known.type, known.importance, known.ids) == ("identity", 0.8, (entry.id,))
    assert git.Repo(ws.root).head.commit.message.startswith("mem sync: curated lines name")
    assert "nothing to put right" in ws("doctor").stdout  # done once
    # The ids moved with the metadata: an entry logged above it moves it, the link follows.
    path = ws.root / "memory" / "2026-12-01.md"
    text = path.read_text(encoding="utf-8")
    head, rest = text.split("## ", 1)
    path.write_text(f"{head}## 08:00 · user\nAn earlier note.\n\n## {rest}", encoding="utf-8")
    assert "re-pointed" in ws("doctor").stdout
    assert "- Is vegetarian [2026-12-01](memory/2026-12-01.md#L6-L7)\n" in (
        ws.root / "USER.md"
    ).read_text(encoding="utf-8")


def test_doctor_names_a_line_it_has_no_record_of_whose_link_cites_other_words(ws):
    ws("log", "--at", "2026-12-01T09:00", "--role", "user", "I'm vegetarian.")
    line = "- Likes tea [2026-12-01](memory/2026-12-01.md#L3-L4)\n"
    (ws.root / "USER.md").write_text(f"# USER\n\n## Identity\n\n{line}", encoding="utf-8")
    ws("commit", "-m", "a link of the person's own")
    out = ws("doctor").stdout
    assert "cite log lines that do not say it" in out and "USER.md:5" in out
    assert (ws.root / "USER.md").read_text(encoding="utf-8").endswith(line)  # left as written


def test_doctor_names_conflict_markers_committed_as_they_are(ws):
    """An outside audit: doctor said "no memory file in conflict" while USER.md held
    committed markers that make consolidate refuse (exit 8)."""
    (ws.root / "USER.md").write_text(
        "# USER\n\n<<<<<<< HEAD\n- Likes tea\n=======\n- Likes coffee\n>>>>>>> other\n",
        encoding="utf-8",
    )
    ws("commit", "-m", "a merge committed unresolved")
    got = ws("doctor", ok=False)
    assert got.exit_code == 8 and "USER.md holds conflict markers" in got.stderr, got.stderr
    assert "nothing to put right" not in got.stdout


def test_conflict_markers_committed_in_a_daily_log_are_named_and_stop_consolidate(ws):
    """An outside audit: markers committed inside a daily log went unnoticed (doctor said
    "no memory file in conflict") and consolidate read them as words of the entries."""
    ws("log", "--at", "2026-11-28T09:00", "--role", "user", "hello")
    log = ws.root / "memory" / "2026-11-28.md"
    with log.open("a", encoding="utf-8") as f:
        f.write("<<<<<<< HEAD\n## 10:00 · user\nmine\n=======\n## 10:00 · user\ntheirs\n")
        f.write(">>>>>>> origin/master\n")
    ws("commit", "-m", "a pull committed unresolved")
    got = ws("doctor", ok=False)
    assert got.exit_code == 8 and "memory/2026-11-28.md holds conflict markers" in got.stderr
    before = (ws.root / "USER.md").read_bytes()
    out = ws("consolidate", "--provider", "offline", ok=False)
    assert out.exit_code == 8 and "conflict markers" in out.stderr
    assert (ws.root / "USER.md").read_bytes() == before


def test_reformat_leaves_a_persons_lines_and_comments_alone():
    text = "# M\n\n- Plain line\n- A line <!-- a person's note -->\n"
    assert reformat(text, "MEMORY") == (text, [])


def test_a_model_is_shown_the_lines_without_their_links():
    from openclaw_mem.consolidate.prompt import user_message
    from openclaw_mem.consolidate.proposal import Request

    docs = {"USER.md": "# USER\n\n- Is vegetarian [2026-12-01](memory/2026-12-01.md#L3-L4)\n"}
    shown = user_message(Request((), docs, datetime(2026, 12, 1, 10)))
    assert "- Is vegetarian\n" in shown and "#L3" not in shown


def test_a_consolidations_commit_message_says_what_its_diff_shows(example):
    example("consolidate", "--now", "2026-11-28T09:00")
    repo = git.Repo(example.root)
    subject, _, body = repo.head.commit.message.partition("\n")
    diff = repo.git.diff("HEAD~1", "HEAD", "--", "USER.md", "MEMORY.md", "AGENTS.md")
    added = [x for x in diff.splitlines() if x.startswith("+- ") and "~~" not in x]
    m = re.match(r"consolidate: \+(\d+) ~0 -0, (\d+) deprecated$", subject)
    assert m and int(m[1]) == len(added) and int(m[2]) >= 1, (subject, added)
    struck = [x for x in body.splitlines() if x.startswith("- deprecate ")]
    # The line struck is named, then what replaced it.
    assert any("Mainly uses Python for backend work" in x and " → " in x for x in struck)
    # Cuts fall between words: the word before each "…" is one the files hold whole.
    words = set(re.findall(r"\w+", diff))
    cuts = re.findall(r"(\w+)\W*…", body)
    assert cuts and all(w in words for w in cuts), cuts


def test_the_log_commit_before_a_consolidation_names_the_logs_it_holds(example):
    """It named every log the batch read (six, cut at 200 characters, mid-path) while
    holding only the one that had changed since the last commit."""
    example("log", "--at", "2026-11-28T08:00", "--role", "user", "I moved to Shenzhen last week")
    example("consolidate", "--now", "2026-11-28T09:00")
    log_commit = git.Repo(example.root).head.commit.parents[0]
    assert set(log_commit.stats.files) == {"memory/2026-11-28.md"}
    assert log_commit.message.split("\n")[0] == "mem log: memory/2026-11-28.md"


def test_forgetting_one_fact_of_a_line_keeps_its_links_on_both_halves(ws):
    ws("log", "--at", "2026-11-24T11:30", "--role", "user", "I use Go. I have a cat, Miso.")
    line = "- Uses Go at work. Has a cat called Miso. [2026-11-24](memory/2026-11-24.md#L3-L4)"
    (ws.root / "USER.md").write_text(f"# USER\n\n## Identity\n\n{line}\n", encoding="utf-8")
    ws("commit", "-m", "a line of two facts")
    ws("forget", "Miso")
    user = (ws.root / "USER.md").read_text(encoding="utf-8").splitlines()
    link = "[2026-11-24](memory/2026-11-24.md#L3-L4)"
    assert user[-2:] == [
        f"- Uses Go at work. {link}",
        f"- ~~Has a cat called Miso.~~ (forgotten {date.today()}) {link}",
    ]


def test_a_link_a_person_adds_to_a_line_mem_wrote_stays_and_mem_links_still_follow(ws):
    ws("log", "--at", "2026-12-01T09:00", "--role", "user", "I'm vegetarian.")
    (entry,) = read_entries(ws.root / "memory" / "2026-12-01.md")
    _mem_wrote(
        ws,
        "- Is vegetarian [2026-12-01](memory/2026-12-01.md#L3-L4) [recipes](notes/food.md#L12)\n",
        "Is vegetarian",
        date(2026, 12, 1),
        ids=(entry.id,),
    )
    ws("commit", "-m", "a link of the person's own")
    assert "nothing to put right" in ws("doctor").stdout
    path = ws.root / "memory" / "2026-12-01.md"
    head, rest = path.read_text(encoding="utf-8").split("## ", 1)
    path.write_text(f"{head}## 08:00 · user\nEarlier.\n\n## {rest}", encoding="utf-8")
    ws("doctor")
    user = (ws.root / "USER.md").read_text(encoding="utf-8")
    assert (
        "- Is vegetarian [2026-12-01](memory/2026-12-01.md#L6-L7) "
        "[recipes](notes/food.md#L12)\n" in user
    )


def test_a_line_mem_wrote_keeps_its_record_on_both_halves_when_one_fact_is_forgotten(ws):
    ws("log", "--at", "2026-12-01T09:00", "--role", "user", "I'm vegetarian. I love Sichuan food.")
    (entry,) = read_entries(ws.root / "memory" / "2026-12-01.md")
    said = "Is vegetarian. Loves very spicy Sichuan food."
    line = f"- {said} [2026-12-01](memory/2026-12-01.md#L3-L4)\n"
    _mem_wrote(ws, line, said, date(2026, 12, 1), ids=(entry.id,))
    ws("commit", "-m", "a line of two facts, written by mem")
    ws("forget", "Sichuan food")
    for half in ("Is vegetarian.", "Loves very spicy Sichuan food."):
        assert record(ws.root, "USER", half).ids == (entry.id,), half  # both still mem's
    assert git.Repo(ws.root).head.commit.stats.files.keys() >= {"USER.md", "HISTORY.md"}
    # And so their links still follow the entry: redacted, both lose them.
    ws("forget", "--hard", "memory/2026-12-01.md#L3-L4")
    user = (ws.root / "USER.md").read_text(encoding="utf-8")
    assert "](memory/" not in user and "Is vegetarian." in user


def test_a_link_says_its_year_and_links_without_one_still_read():
    """Issue 44: link text was a year-less `11-29`; a memory kept for years needs the year.
    Files written before say `[11-21]` and are read the same."""
    from openclaw_mem.format.markdown import source_links, split_sources

    assert source_links(["memory/2026-11-21.md#L3-L4"]) == (
        " [2026-11-21](memory/2026-11-21.md#L3-L4)"
    )
    for label in ("11-21", "2026-11-21"):
        text, cites = split_sources(f"- Likes tea [{label}](memory/2026-11-21.md#L3-L4)")
        assert (text, cites) == ("- Likes tea", ["memory/2026-11-21.md#L3-L4"])
