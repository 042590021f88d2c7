"""What another clone's records can do here, tried through two real clones and `mem sync`:
HISTORY.md's line records, `memory/.consolidated` lines and HISTORY.md's paragraphs that
arrive by a merge are claims. They describe only entries and lines this machine can check
(an entry it holds that says the line); they never archive, re-cite, unsource or retire
this machine's lines or entries, and HISTORY.md never shrinks by a merge. The remote here
is a second clone whose files are edited by hand and pushed with plain git, as anyone
with push access could."""

from __future__ import annotations

import re
from collections.abc import Callable

import git
import pytest
from helpers import Mem, clones

from openclaw_mem.consolidate.progress import pending_entries
from openclaw_mem.store.workspace import Workspace

DAY = "memory/2026-12-01.md"
_ID_RE = re.compile(r"id: ([0-9a-f]{12})")


def _push(m: Mem, change: Callable[[dict[str, str]], None], *paths: str) -> None:
    """Edit `paths` of clone m by hand (change gets {path: text} and edits it in place; a
    text set to None deletes the file), commit and push them with plain git."""
    texts = {}
    for rel in paths:
        path = m.root / rel
        texts[rel] = path.read_text(encoding="utf-8") if path.exists() else ""
    change(texts)
    repo = git.Repo(m.root)
    with repo.config_writer() as config:
        config.set_value("user", "name", "someone")
        config.set_value("user", "email", "someone@example.com")
    for rel, text in texts.items():
        if text is None:
            repo.git.rm("-q", "--cached", "--ignore-unmatch", rel)
            (m.root / rel).unlink(missing_ok=True)
        else:
            (m.root / rel).write_text(text, encoding="utf-8")
            repo.git.add("-f", rel)
    repo.git.commit("-qm", "an ordinary commit")
    repo.git.push("-q", "origin", "HEAD")


def _ids(m: Mem) -> list[str]:
    return _ID_RE.findall((m.root / DAY).read_text(encoding="utf-8"))


def _paragraph(records: str, stamp: str = "2026-12-01 11:00") -> Callable[[dict], None]:
    """A consolidation paragraph a remote adds, whose marker carries these `lines:` records."""

    def change(texts: dict[str, str]) -> None:
        texts["HISTORY.md"] = (
            texts["HISTORY.md"].rstrip("\n")
            + f"\n\n[{stamp}] Noted.\n<!-- consolidated: 1 entry of {DAY}; lines: {records} -->\n"
        )

    return change


def _two_with_a_line(tmp_path) -> tuple[Mem, Mem, str]:
    """Two clones that share USER.md with one line mem wrote (from A's entry) and one line
    a person wrote; returns them and the entry's id."""
    a, b = clones(tmp_path, 2)
    a("log", "--at", "2026-12-01T09:00", "--role", "user", "I live in Kavolu now.")
    a("consolidate", "--now", "2026-12-01T10:00")
    user = a.root / "USER.md"
    text = user.read_text(encoding="utf-8")
    user.write_text(
        text.replace("## Preferences\n", "## Preferences\n\n- Takes tea without sugar\n"),
        encoding="utf-8",
    )
    a("commit")
    a("sync")
    b("sync")
    return a, b, _ids(a)[0]


def _line(m: Mem, words: str) -> str:
    text = (m.root / "USER.md").read_text(encoding="utf-8")
    return next(x for x in text.splitlines() if words in x)


@pytest.mark.parametrize("named", ["an entry that says something else", "no entry"])
def test_a_remote_record_cannot_archive_a_persons_own_line(tmp_path, named):
    from openclaw_mem.format.curated import line_key

    a, b, eid = _two_with_a_line(tmp_path)
    key = line_key("Takes tea without sugar")
    ids = eid if named != "no entry" else "-"
    # A record that claims the person's line was mem's, with a confidence of 0.01.
    _push(b, _paragraph(f"USER {key} preference 0.9 0.01 2026-12-01 {ids}"), "HISTORY.md")
    said = a("sync").stderr
    a("cleanup")
    assert "Takes tea without sugar" in (a.root / "USER.md").read_text(encoding="utf-8")
    assert "could not check" in said and "1 line record" in said


def test_a_remote_record_cannot_override_this_machines_record(tmp_path):
    from openclaw_mem.format.curated import line_key

    a, b, eid = _two_with_a_line(tmp_path)
    key = line_key("Lives in Kavolu now")
    _push(b, _paragraph(f"USER {key} identity 0.01 0.01 2026-12-01 {eid}"), "HISTORY.md")
    a("sync")
    a("cleanup")
    assert "Lives in Kavolu now" in (a.root / "USER.md").read_text(encoding="utf-8")


def test_a_remote_record_cannot_cite_an_entry_on_a_persons_rule(tmp_path):
    from openclaw_mem.format.curated import line_key

    a, b, eid = _two_with_a_line(tmp_path)
    key = line_key("Takes tea without sugar")
    # The entry is real, but it does not say the line: a link to it would be a lie.
    _push(b, _paragraph(f"USER {key} preference 0.9 0.9 2026-12-01 {eid}"), "HISTORY.md")
    a("sync")
    assert _line(a, "Takes tea") == "- Takes tea without sugar"


def test_a_remote_record_cannot_strip_the_citation_of_a_mem_line(tmp_path):
    from openclaw_mem.format.curated import line_key

    a, b, _ = _two_with_a_line(tmp_path)
    before = _line(a, "Kavolu")
    assert "](memory/2026-12-01.md#L3-L4)" in before
    key = line_key("Lives in Kavolu now")
    _push(b, _paragraph(f"USER {key} identity 0.8 0.8 2026-12-01 000000000000"), "HISTORY.md")
    a("sync")
    assert _line(a, "Kavolu") == before


def test_a_deleted_record_and_an_old_marker_do_not_consolidate_this_machines_entries(tmp_path):
    a, b = clones(tmp_path, 2)
    a("log", "--at", "2026-12-01T09:00", "--role", "user", "I'm vegetarian.")
    a("log", "--at", "2026-12-01T09:05", "--role", "user", "My cat is called Pepel.")

    def change(texts: dict) -> None:
        texts["memory/.consolidated"] = None
        texts["HISTORY.md"] += f"\n[2026-12-01 08:00] Noted.\n<!-- consolidated: {DAY}#L99999 -->\n"

    _push(b, change, "HISTORY.md", "memory/.consolidated")
    a("sync")
    assert len(pending_entries(Workspace(a.root))) == 2


def test_a_deleted_record_does_not_take_consolidations_back(tmp_path):
    a, b = clones(tmp_path, 2)
    a("log", "--at", "2026-12-01T09:00", "--role", "user", "I'm vegetarian.")
    a("consolidate", "--now", "2026-12-01T10:00")
    a("log", "--at", "2026-12-01T11:00", "--role", "user", "My cat is called Pepel.")
    a("sync")
    b("sync")

    def change(texts: dict) -> None:
        texts["memory/.consolidated"] = None
        texts["HISTORY.md"] += f"\n[2026-12-01 08:00] Noted.\n<!-- consolidated: {DAY}#L99999 -->\n"

    _push(b, change, "HISTORY.md", "memory/.consolidated")
    a("sync")
    assert [e.entry.text for e in pending_entries(Workspace(a.root))] == ["My cat is called Pepel."]


def _marked_by_the_remote(a: Mem, b: Mem, how: str) -> None:
    """B marks A's (synced) entry `how` in memory/.consolidated and pushes; A syncs: the
    entry stays pending there, and the mark not taken is said."""
    b("sync")
    eid = _ids(a)[0]

    def change(texts: dict) -> None:
        texts["memory/.consolidated"] += f"{eid} {how} {DAY}\n"

    _push(b, change, "memory/.consolidated")
    said = a("sync").stderr
    assert [e.id for e in pending_entries(Workspace(a.root))] == [eid]
    assert "1 consolidation mark" in said


def test_a_dropped_mark_from_a_remote_does_not_retire_this_machines_entry(tmp_path):
    a, b = clones(tmp_path, 2)
    a("log", "--at", "2026-12-01T09:00", "--role", "user", "I'm vegetarian.")
    a("sync")
    _marked_by_the_remote(a, b, "dropped")


def test_a_curated_mark_needs_a_line_that_says_the_entry_not_a_word_in_common(tmp_path):
    """A `curated` mark retired this machine's entry when any curated line shared one word
    with it ("moved"): the dentist appointment left consolidation, said nowhere."""
    a, b = clones(tmp_path, 2)
    said = "My dentist appointment moved to 2027-01-14 at 10am."
    a("log", "--at", "2026-12-01T09:00", "--role", "user", said)
    user = a.root / "USER.md"
    user.write_text(user.read_text(encoding="utf-8") + "- Moved to Porto\n", encoding="utf-8")
    a("commit")
    a("sync")
    _marked_by_the_remote(a, b, "curated")


def test_a_remote_takes_its_own_entries_as_it_says(tmp_path):
    # The claims a remote can back stand: its own entries, consolidated there.
    a, b = clones(tmp_path, 2)
    b("log", "--at", "2026-12-01T09:00", "--role", "user", "I'm vegetarian.")
    b("log", "--at", "2026-12-01T09:01", "--role", "user", "ok thanks")
    b("consolidate", "--now", "2026-12-01T10:00")
    b("sync")
    said = a("sync").stderr
    assert pending_entries(Workspace(a.root)) == []
    assert "could not check" not in said
    assert "](memory/2026-12-01.md#L" in _line(a, "vegetarian")


def test_a_remote_that_curated_this_machines_entry_is_believed(tmp_path):
    a, b = clones(tmp_path, 2)
    a("log", "--at", "2026-12-01T09:00", "--role", "user", "I'm vegetarian.")
    a("sync")
    b("sync")
    b("consolidate", "--now", "2026-12-01T10:00")  # B curates A's entry: a line says it
    b("sync")
    said = a("sync").stderr
    assert pending_entries(Workspace(a.root)) == []
    assert "could not check" not in said


def test_a_truncated_history_is_restored(tmp_path):
    a, b = clones(tmp_path, 2)
    a("log", "--at", "2026-12-01T09:00", "--role", "user", "I'm vegetarian.")
    a("consolidate", "--now", "2026-12-01T10:00")
    a("sync")
    b("sync")
    before = (a.root / "HISTORY.md").read_text(encoding="utf-8")
    assert "vegetarian" in before.split("\n\n[", 1)[1]  # the paragraph to lose

    def change(texts: dict) -> None:
        texts["HISTORY.md"] = texts["HISTORY.md"].split("\n\n[", 1)[0] + "\n"

    _push(b, change, "HISTORY.md")
    said = a("sync").stderr
    assert (a.root / "HISTORY.md").read_text(encoding="utf-8") == before
    assert "HISTORY.md" in said and "kept" in said
    b("sync")
    assert (b.root / "HISTORY.md").read_text(encoding="utf-8") == before  # sent back


def _texts(m: Mem) -> list[str]:
    from openclaw_mem.format.logs import read_entries

    return [e.text for e in read_entries(m.root / DAY)]


def _force(m: Mem, change: Callable[[str], str]) -> None:
    """Clone m rewrites the day's log and force-pushes its history squashed to one commit."""
    repo = git.Repo(m.root)
    with repo.config_writer() as config:
        config.set_value("user", "name", "someone")
        config.set_value("user", "email", "someone@example.com")
    log = m.root / DAY
    log.write_text(change(log.read_text(encoding="utf-8")), encoding="utf-8")
    repo.git.add("-A")
    squashed = repo.git.commit_tree(repo.git.write_tree(), "-m", "squashed")
    repo.git.reset("-q", "--hard", squashed)
    repo.git.push("-q", "-f", "origin", f"{squashed}:refs/heads/{repo.active_branch.name}")


def test_an_entry_a_remote_amended_and_force_pushed_arrives_as_a_second_version(tmp_path):
    a, b = clones(tmp_path, 2)
    a("log", "--at", "2026-12-01T09:00", "--role", "user", "I live in Kavolu now.")
    a("log", "--at", "2026-12-01T09:05", "--role", "user", "My cat is called Pepel.")
    a("sync")
    b("sync")
    first = _ids(a)[0]
    _force(b, lambda text: text.replace("I live in Kavolu now.", "I live in Narva now."))
    said = a("sync").stderr
    both = ["I live in Narva now.", "I live in Kavolu now.", "My cat is called Pepel."]
    assert _texts(a) == both  # at one time, the remote's first
    assert _ids(a)[1] == first  # this machine's words keep the id; the remote's stand beside
    assert "1 entry with other words" in said and "both versions are kept" in said
    b("sync")
    a("sync")
    assert _texts(b) == _texts(a) == both
    assert (a.root / DAY).read_text(encoding="utf-8") == (b.root / DAY).read_text(encoding="utf-8")
    assert len(set(_ids(a))) == 3  # the second version is an entry of its own


def test_the_same_words_logged_on_two_clones_with_a_replayed_clock_stay_two(tmp_path, monkeypatch):
    # A replayed clock (MEM_NOW) draws ids from what and where an entry is, so a run can be
    # replayed byte for byte; two clones that log the same words at the same moment into
    # the same log drew the same id, and the merge kept one entry of two acknowledged.
    a, b = clones(tmp_path, 2)
    a("log", "--at", "2026-12-01T08:00", "--role", "user", "The day starts.")
    a("sync")
    b("sync")
    monkeypatch.setenv("MEM_NOW", "2026-12-01T09:00")
    for m in (a, b):
        m("log", "--role", "user", "ok thanks")
    a("sync")
    b("sync")
    a("sync")
    assert _texts(a) == _texts(b) == ["The day starts.", "ok thanks", "ok thanks"]


def test_undo_after_a_squashed_force_push_is_one_line_with_its_code(tmp_path):
    a, b = clones(tmp_path, 2)
    a("log", "--at", "2026-12-01T09:00", "--role", "user", "I live in Kavolu now.")
    a("consolidate", "--now", "2026-12-01T10:00")
    a("sync")
    b("sync")
    _force(b, lambda text: text)  # the whole history squashed into one commit
    a("sync")
    for m in (a, b):
        result = m("undo", "--yes", ok=False)
        assert result.exit_code == 4, result.stderr  # nothing of mem's left to undo
        assert "git failed" not in result.stderr and len(result.stderr.splitlines()) == 1


def test_a_fetch_between_a_squash_and_sync_does_not_bring_back_what_was_forgotten(tmp_path):
    a, b = clones(tmp_path, 2)
    a("log", "--at", "2026-12-01T09:00", "--role", "user", "I live in Kavolu now.")
    a("log", "--at", "2026-12-01T09:05", "--role", "user", "My cat is called Pepel.")
    a("consolidate", "--now", "2026-12-01T10:00")
    a("sync")
    b("sync")
    _force(b, lambda text: text)  # squashed and force-pushed
    line = next(
        n
        for n, x in enumerate((a.root / "USER.md").read_text(encoding="utf-8").splitlines(), 1)
        if "Pepel" in x
    )
    a("forget", "--hard", f"USER.md:{line}")
    git.Repo(a.root).git.fetch("origin")  # a person's plain fetch: the ref moves to the squash
    said = a("sync").stderr
    assert "Pepel" not in (a.root / "USER.md").read_text(encoding="utf-8")
    assert "history was rewritten" in said or said == ""
    b("sync")
    assert "Pepel" not in (b.root / "USER.md").read_text(encoding="utf-8")


def test_syncs_of_one_clone_at_once_queue_instead_of_racing_on_the_fetch(tmp_path):
    import subprocess
    import sys

    a, b = clones(tmp_path, 2)
    for n in range(3):
        b("log", "--at", f"2026-12-01T09:0{n}", "--role", "user", f"note {n} from b")
        b("sync")
        a("log", "--at", f"2026-12-01T10:0{n}", "--role", "user", f"note {n} from a")
        runs = [
            subprocess.Popen(
                [sys.executable, "-m", "openclaw_mem", "-w", str(a.root), "sync"],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(4)
        ]
        for run in runs:
            _, err = run.communicate(timeout=120)
            assert run.returncode == 0 and "cannot lock ref" not in err, err
    b("sync")
    assert sorted(_texts(a)) == sorted(_texts(b)) and len(_texts(a)) == 6
