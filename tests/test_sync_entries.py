"""Sync that merges by entry: clones of one bare remote, in tmp_path, with real git.

Entries logged on several machines come back each exactly once, byte for byte, in time
order, never two under one heading; consolidation progress (entry ids, union-merged)
means the same on every clone after any merge; `mem undo` reverts mem's newest change."""

from __future__ import annotations

import random
import re

import git
import pytest
from helpers import Mem, clones

from openclaw_mem.consolidate.progress import all_entries, pending_entries, taken_ids
from openclaw_mem.format.logmerge import merge_history, merge_log
from openclaw_mem.format.logs import read_entries
from openclaw_mem.store.workspace import Workspace

_clones = clones


def _log(machine: Mem) -> str:
    """The day's log as a person reads it: without the entries' ids."""
    return without_ids((machine.root / "memory" / "2026-12-01.md").read_text(encoding="utf-8"))


def without_ids(text: str) -> str:
    return re.sub(r" <!-- (?:importance: -; )?id: [0-9a-f]{12} -->", "", text)


def test_two_entries_in_the_same_minute_stay_two_and_time_order_holds(tmp_path):
    a, b = _clones(tmp_path, 2)
    a("log", "--at", "2026-12-01T00:37", "--role", "user", "ping from A")
    b("log", "--at", "2026-12-01T00:37", "--role", "user", "pong from B")
    a("log", "--at", "2026-12-01T10:02", "--role", "user", "A, later")
    b("log", "--at", "2026-12-01T10:01", "--role", "user", "B, a minute before")
    a("sync")
    b("sync")
    a("sync")
    expected = (
        "# 2026-12-01\n\n## 00:37 · user\nping from A\n\n## 00:37 · user\npong from B\n\n"
        "## 10:01 · user\nB, a minute before\n\n## 10:02 · user\nA, later\n\n"
    )
    assert _log(a) == _log(b) == expected
    hits = a.json("recall", "--json", "pong from B")["results"]
    assert any(h["startLine"] == 6 and h["endLine"] == 7 for h in hits)  # its own range


def test_two_entries_under_one_id_in_a_file_both_survive_a_sync(tmp_path):
    """An outside audit: a daily log whose two entries share an id (a copy edited by hand)
    lost one of them on both clones at the next sync, silently."""
    a, b = _clones(tmp_path, 2)
    day = (
        "# 2026-12-01\n\n## 09:00 · user <!-- importance: -; id: 111111111111 -->\n"
        "I am vegetarian.\n\n## 18:00 · user <!-- importance: -; id: 111111111111 -->\n"
        "I moved to Porto last month.\n\n"
    )
    (a.root / "memory" / "2026-12-01.md").write_text(day, encoding="utf-8")
    a("commit", "-m", "hand")
    a("sync")
    b("sync")
    b("log", "--at", "2026-12-01T20:00", "--role", "user", "B evening entry")
    a("log", "--at", "2026-12-01T21:00", "--role", "user", "A night entry")
    a("sync")
    b("sync")
    a("sync")
    expected = (
        "# 2026-12-01\n\n## 09:00 · user\nI am vegetarian.\n\n## 18:00 · user\n"
        "I moved to Porto last month.\n\n## 20:00 · user\nB evening entry\n\n"
        "## 21:00 · user\nA night entry\n\n"
    )
    assert _log(a) == _log(b) == expected


def test_progress_means_the_same_after_a_merge_moves_entries(tmp_path, monkeypatch):
    a, b = _clones(tmp_path, 2)
    b("log", "--at", "2026-12-01T00:40", "--role", "user", "I'm vegetarian.")
    b("consolidate", "--now", "2026-12-01T01:00")  # B consolidated its own entry
    a("log", "--at", "2026-12-01T00:30", "--role", "user", "I love hiking in the Alps")
    b("sync")
    a("sync")  # A's entry now sits above B's consolidated one
    ws = Workspace(a.root)
    pending = [e.entry.text for e in pending_entries(ws)]
    assert pending == ["I love hiking in the Alps"]  # B's is not offered again; A's is
    report = a.json("consolidate", "--dry-run", "--json", "--now", "2026-12-01T02:00")
    assert report["pending"] == 1


def test_undo_after_three_forgets_reverts_the_last_forget(ws):
    for i, said in enumerate(
        ["I'm vegetarian.", "My cat is called Miso.", "I love jazz music a lot"]
    ):
        ws("log", "--at", f"2026-11-30T09:0{i}", said)
    ws("consolidate", "--now", "2026-11-30T10:00")
    user = ws.root / "USER.md"

    def line_of(word: str) -> int:
        lines = user.read_text(encoding="utf-8").splitlines()
        return next(i for i, text in enumerate(lines, 1) if word in text and "~~" not in text)

    for word in ("vegetarian", "Miso", "jazz"):
        ws("forget", f"USER.md:{line_of(word)}")
    before = user.read_text(encoding="utf-8")
    out = ws("undo").stdout
    assert out.startswith("reverted ") and "forget: USER.md" in out
    after = user.read_text(encoding="utf-8")
    assert "~~Likes jazz music a lot~~" not in after or "~~Loves jazz" not in after
    assert after != before and "~~Has a cat called Miso~~" in after  # only the last undone


def test_undo_names_an_older_change_and_asks_for_yes_after_a_hand_edit(ws):
    ws("log", "--at", "2026-11-30T09:00", "I'm vegetarian.")
    ws("consolidate", "--now", "2026-11-30T10:00")
    memory = ws.root / "MEMORY.md"
    memory.write_text(memory.read_text(encoding="utf-8") + "- Hand note.\n", encoding="utf-8")
    ws("commit", "-m", "a hand edit")
    result = ws("undo", ok=False)
    assert result.exit_code == 2 and "`mem undo --yes` reverts" in result.stderr
    assert "consolidate:" in result.stderr and "a hand edit" in result.stderr
    assert "reverted " in ws("undo", "--yes").stdout
    assert "- Hand note." in memory.read_text(encoding="utf-8")


def test_the_entry_merge_keeps_each_entry_once_and_drops_what_one_side_removed():
    base = "# 2026-12-01\n\n## 09:00 · user\nkeep\n\n## 09:01 · user\nsecret x\n\n"
    ours = base.replace("secret x", "[forgotten]") + "## 09:05 · user\nours\n\n"
    theirs = base + "## 09:03 · user\ntheirs\n\n## 09:05 · user\nours\n\n"
    merged = merge_log(base, ours, theirs)
    assert merged == (
        "# 2026-12-01\n\n## 09:00 · user\nkeep\n\n## 09:01 · user\n[forgotten]\n\n"
        "## 09:03 · user\ntheirs\n\n## 09:05 · user\nours\n\n## 09:05 · user\nours\n\n"
    )
    h_base = "# HISTORY\n\n[2026-12-01 09:00] One.\n<!-- consolidated: 1 entry of x -->\n"
    h_ours = h_base + "\n[2026-12-01 11:00] Three.\n<!-- consolidated: 1 entry of x -->\n"
    h_theirs = h_base + "\n[2026-12-01 10:00] Two.\n<!-- consolidated: 1 entry of x -->\n"
    merged = merge_history(h_base, h_ours, h_theirs)
    assert merged.index("One.") < merged.index("Two.") < merged.index("Three.")
    assert merged.count("<!-- consolidated") == 3 and merged.startswith("# HISTORY\n\n")


def test_both_machines_additions_are_kept_and_the_same_fact_added_on_both_once():
    from openclaw_mem.format.merge import merge_file

    base = "# MEMORY\n\n## Facts\n\n- Runs on arm.\n\n## Tools\n\n- Uses vim.\n"
    ours = base.replace("- Runs on arm.\n", "- Runs on arm.\n- Uses Go.\n")
    theirs = base.replace("- Uses vim.\n", "- Uses vim.\n- Uses Go.\n- Uses Rust.\n")
    merged = merge_file("MEMORY.md", base, ours, theirs).text
    assert merged.count("- Uses Go.") == 1 and "- Uses Rust." in merged


def test_a_citation_renumbered_gives_way_to_a_change_of_what_the_line_says():
    from openclaw_mem.format.merge import merge_file

    base = (
        "# USER\n\n## Preferences\n\n"
        "- Likes tea [2026-11-20](memory/2026-11-20.md#L3-L4)\n- Short answers.\n"
    )
    relinked = base.replace("#L3-L4", "#L6-L7")  # metadata alone
    reworded = base.replace("Likes tea", "Likes green tea")
    for ours, theirs in ((relinked, reworded), (reworded, relinked)):
        merged = merge_file("USER.md", base, ours, theirs)
        assert "- Likes green tea [" in merged.text and "- Likes tea [" not in merged.text
        assert merged.undecided == []


def test_any_other_file_merges_line_by_line_and_a_region_both_changed_keeps_ours():
    from openclaw_mem.format.merge import merge_file

    base = "# SOUL\n\nBe kind.\n\nBe brief.\n\nSpeak plainly.\n"
    ours = base.replace("Be brief.", "Be very brief.")
    theirs = base.replace("Be brief.", "Be short.").replace("Be kind.", "Be kind and calm.")
    merged = merge_file("SOUL.md", base, ours, theirs)
    assert merged.text == "# SOUL\n\nBe kind and calm.\n\nBe very brief.\n\nSpeak plainly.\n"
    assert merged.kept_ours == 1  # the sync says so in one line


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.slow
def test_three_clones_in_random_interleavings_agree_entry_by_entry(tmp_path, seed):
    """Logs in the same minute and across days, consolidations and syncs on any clone, in
    an order drawn from the seed. Afterwards every clone holds the same entries, each
    exactly once and byte-identical to what was logged, in time order; what a clone had
    taken stays taken through every merge; and each entry is either taken or pending."""
    rng = random.Random(seed)
    machines = _clones(tmp_path, 3)
    logged: list[tuple[str, str]] = []  # (day, text) in the order they were logged
    taken_before: list[set[str]] = [set() for _ in machines]
    for step in range(14):
        i = rng.randrange(3)
        m = machines[i]
        action = rng.choices(["log", "consolidate", "sync"], weights=[5, 2, 3])[0]
        if action == "log":
            # Each machine's clock moves forward; two machines often share a minute.
            day = "2026-12-01" if step < 7 else "2026-12-02"
            minute = f"09:{step // 3:02d}"
            text = rng.choice([f"status check {seed}-{step} done", "ok, same as the other"])
            if text.startswith("ok"):
                text = f"{text} {step % 2}"  # the same text on two machines, now and then
            m("log", "--at", f"{day}T{minute}", "--role", "user", text)
            logged.append((day, text))
        elif action == "consolidate":
            m("consolidate", "--now", "2026-12-03T08:00")
        else:
            m("sync")
        ws = Workspace(m.root)
        now = taken_ids(ws) or set()
        assert taken_before[i] <= now, "an entry once taken became pending again"
        taken_before[i] = now
    for _ in range(2):
        for m in machines:
            m("sync")
    texts = [{d: _texts(m, d) for d in ("2026-12-01", "2026-12-02")} for m in machines]
    assert texts[0] == texts[1] == texts[2]
    for day in ("2026-12-01", "2026-12-02"):
        want = sorted(t for d, t in logged if d == day)
        assert sorted(e for e, _ in texts[0][day]) == want  # each exactly once, byte for byte
        times = [when for _, when in texts[0][day]]
        assert times == sorted(times)
    ws = Workspace(machines[0].root)
    ids = {e.id for e in all_entries(ws)}
    taken = taken_ids(ws) or set()
    pending = {e.id for e in pending_entries(ws)}
    assert pending == ids - taken and not (pending & taken)
    machines[0]("consolidate", "--now", "2026-12-03T09:00")
    machines[0]("sync")
    assert pending_entries(ws) == []  # now every entry was offered, and taken once


def _texts(machine: Mem, day: str) -> list[tuple[str, str]]:
    path = machine.root / "memory" / f"{day}.md"
    if not path.exists():
        return []
    return [(e.text, e.time or "") for e in read_entries(path)]


def _person(repo: git.Repo) -> None:
    with repo.config_writer() as config:  # a person's identity, as a plain `git pull` needs
        config.set_value("user", "name", "B")
        config.set_value("user", "email", "b@example.com")


def test_a_clone_gets_the_driver_from_its_first_mem_command_and_a_plain_pull_merges(tmp_path):
    a, _ = _clones(tmp_path, 2)
    plain = tmp_path / "plain"
    repo = git.Repo.clone_from(str(tmp_path / "remote.git"), plain)
    assert not repo.config_reader("repository").has_section('merge "mem-entries"')
    b = Mem(plain)
    a("log", "--at", "2026-12-01T00:37", "--role", "user", "from A")
    a("sync")
    b("log", "--at", "2026-12-01T00:37", "--role", "user", "from B")  # registers it
    driver = repo.config_reader("repository").get_value('merge "mem-entries"', "driver")
    assert driver.startswith("mem merge-file %O %A %B %P 2>/dev/null || ")  # PATH first
    b("commit", "-m", "B's log")
    _person(repo)
    repo.git.pull("--no-rebase", "--no-edit", "origin", repo.active_branch.name)
    log = plain / "memory" / "2026-12-01.md"
    assert without_ids(log.read_text(encoding="utf-8")) == (
        "# 2026-12-01\n\n## 00:37 · user\nfrom A\n\n## 00:37 · user\nfrom B\n\n"
    )


def test_opening_memory_as_a_library_leaves_the_repositorys_settings_alone(tmp_path):
    """Issue 44: Memory.open registered the driver as a side effect; the `mem` command asks
    for it (ensure_merge_driver), the library only when its caller does."""
    from openclaw_mem.memory import Memory

    _clones(tmp_path, 1)
    plain = tmp_path / "plain"
    repo = git.Repo.clone_from(str(tmp_path / "remote.git"), plain)
    mem = Memory.open(plain, env={})
    mem.recall("anything", record_access=False)
    assert not repo.config_reader("repository").has_section('merge "mem-entries"')
    mem.ensure_merge_driver()
    assert "merge-file" in repo.config_reader("repository").get_value(
        'merge "mem-entries"', "driver"
    )


def test_a_driver_whose_interpreter_is_gone_is_registered_anew(tmp_path):
    a, _ = _clones(tmp_path, 2)
    repo = git.Repo(a.root)
    gone = "mem merge-file %O %A %B %P 2>/dev/null || /no/such/python -P -m openclaw_mem x"
    with repo.config_writer() as config:
        config.set_value('merge "mem-entries"', "driver", gone)
    a("status")
    driver = repo.config_reader("repository").get_value('merge "mem-entries"', "driver")
    assert "/no/such/python" not in driver and "openclaw_mem merge-file" in driver


def test_a_plain_git_pull_before_any_mem_command_stops_visibly_and_doctor_merges(tmp_path):
    a, _ = _clones(tmp_path, 2)
    plain = tmp_path / "plain"
    repo = git.Repo.clone_from(str(tmp_path / "remote.git"), plain)  # no mem command: no driver
    a("log", "--at", "2026-12-01T00:37", "--role", "user", "from A")
    a("sync")
    log = plain / "memory" / "2026-12-01.md"
    log.write_text("# 2026-12-01\n\n## 00:37 · user\nfrom B\n\n", encoding="utf-8")
    _person(repo)
    repo.git.add("-A")
    repo.git.commit("-m", "B's log, by hand")
    with pytest.raises(git.GitCommandError) as stopped:
        repo.git.pull("--no-rebase", "--no-edit", "origin", repo.active_branch.name)
    assert "CONFLICT" in str(stopped.value), stopped.value
    assert "<<<<<<<" in log.read_text(encoding="utf-8")  # a conflict a person sees
    b = Mem(plain)
    assert "`mem doctor` merges it by entry" in b("status").stderr
    out = b("doctor").stdout
    assert "merged memory/2026-12-01.md by entry" in out
    repo.git.commit("--no-edit")
    assert without_ids(log.read_text(encoding="utf-8")) == (  # the remote's first, as in sync
        "# 2026-12-01\n\n## 00:37 · user\nfrom A\n\n## 00:37 · user\nfrom B\n\n"
    )
    assert "merge-file" in repo.config_reader().get_value('merge "mem-entries"', "driver")


def test_a_curated_lines_src_follows_its_entry_when_a_merge_moves_it(tmp_path):
    a, b = _clones(tmp_path, 2)
    b("log", "--at", "2026-12-01T00:40", "--role", "user", "I'm vegetarian.")
    b("consolidate", "--now", "2026-12-01T01:00")
    user = (b.root / "USER.md").read_text(encoding="utf-8")
    assert "- Is vegetarian [2026-12-01](memory/2026-12-01.md#L3-L4)\n" in user
    a("log", "--at", "2026-12-01T00:30", "--role", "user", "An earlier note from A")
    a("sync")
    b("sync")  # A's entry is sorted in above: B's vegetarian entry moves to L6-L7
    log = (b.root / "memory" / "2026-12-01.md").read_text(encoding="utf-8").splitlines()
    assert log[6] == "I'm vegetarian."
    user = (b.root / "USER.md").read_text(encoding="utf-8")
    assert "- Is vegetarian [2026-12-01](memory/2026-12-01.md#L6-L7)\n" in user
    head = git.Repo(b.root).head.commit.message
    assert head.startswith("mem sync: citations follow their entries")
    a("sync")
    assert (a.root / "USER.md").read_text(encoding="utf-8") == user


def _entries_of(text: str) -> list[str]:
    from openclaw_mem.format.logs import parse_log

    return [e.text for e in parse_log(text)]


def test_the_entry_merge_keeps_free_form_sections_crlf_texts_and_counted_lines():
    # Free-form notes under section headings: a section added on both sides after the same
    # note does not copy that note.
    base = "# 2026-12-01\n\n- fixed bug 12\n"
    ours = base + "\n## Afternoon\n\n- reviewed PR 4\n"
    theirs = base + "\n## Evening\n\n- deployed v2\n"
    merged = merge_log(base, ours, theirs)
    assert merged.count("fixed bug 12") == 1 and "reviewed PR 4" in merged
    assert "deployed v2" in merged
    # An LF file whose one entry holds a CRLF keeps its bytes (and so its id).
    base = "# 2026-12-01\n\n## 09:00 · user\nline one\r\nline two\n\n"
    merged = merge_log(base, base + "## 09:01 · user\nours\n\n", base + "## 09:02 · user\nx\n\n")
    assert "line one\r\nline two\n" in merged and merged.count("\r") == 1
    # An entry that says how many lines it has keeps its blank last lines.
    counted = "## 09:00 · user <!-- lines: 3 -->\ntext\n\n\n\n"
    base = "# 2026-12-01\n\n" + counted
    merged = merge_log(base, base + "## 11:05 · user\nours\n\n", base + "## 11:06 · user\nt\n\n")
    assert _entries_of(merged) == ["text\n\n", "ours", "t"]
