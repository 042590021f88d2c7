"""Commands that overlap and machines that diverge (issue 30): each reproduction of a way
memory was lost, fused, duplicated, mis-cited or wrongly undone, with real processes and
real clones of one bare remote."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import git
import pytest
from helpers import Mem, clones, src_problems
from typer.testing import CliRunner

from openclaw_mem.cli import app
from openclaw_mem.format.logs import read_entries

DAY = "2026-12-01"


def _texts(machine: Mem, day: str = DAY) -> list[str]:
    path = machine.root / "memory" / f"{day}.md"
    return [e.text for e in read_entries(path)] if path.exists() else []


def _mem(root: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "openclaw_mem", "-w", str(root), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _logger(root: Path, prefix: str, n: int) -> subprocess.Popen:
    """One agent: `mem log` n times in a row, each a process of its own, failing loudly."""
    script = (
        "import subprocess, sys\n"
        f"for i in range({n}):\n"
        "    done = subprocess.run([sys.executable, '-m', 'openclaw_mem', '-w', "
        f"{str(root)!r}, 'log', '--at', '{DAY}T09:30', '--role', 'user', "
        f"f'{prefix} turn {{i}}'], capture_output=True, text=True)\n"
        "    if done.returncode: sys.exit(done.stderr)\n"
    )
    return subprocess.Popen([sys.executable, "-c", script], stderr=subprocess.PIPE, text=True)


def _all_curated(machine: Mem) -> str:
    return "".join(
        (machine.root / name).read_text(encoding="utf-8")
        for name in ("MEMORY.md", "USER.md", "AGENTS.md")
    )


def _cited_right(machine: Mem) -> list[str]:
    problems = []
    for name in ("MEMORY.md", "USER.md", "AGENTS.md"):
        problems += src_problems(machine.root, "", (machine.root / name).read_text("utf-8"))
    return problems


@pytest.mark.slow
def test_an_agent_logging_while_sync_runs_loses_no_acknowledged_turn(tmp_path):
    a, b = clones(tmp_path, 2)
    b("log", "--at", f"{DAY}T09:00", "--role", "user", "from the other laptop")
    b("sync")
    agent = _logger(a.root, "a", 30)
    codes = []
    while agent.poll() is None:  # syncs back to back for as long as the agent logs
        sync = _mem(a.root, "sync")
        _, err = sync.communicate()
        codes.append((sync.returncode, err))
    assert agent.returncode == 0, agent.stderr.read()
    assert len(codes) >= 2 and all(code == 0 for code, _ in codes), codes
    a("sync")
    texts = _texts(a)
    assert sorted(t for t in texts if t.startswith("a turn")) == sorted(
        f"a turn {i}" for i in range(30)
    )
    assert texts.count("from the other laptop") == 1


@pytest.mark.slow
def test_an_agent_logging_while_consolidations_run_loses_no_turn(tmp_path):
    (a,) = clones(tmp_path, 1)
    a("log", "--at", f"{DAY}T09:00", "--role", "user", "I prefer tea over coffee")
    agent = _logger(a.root, "a", 30)
    runs = []
    while agent.poll() is None:  # consolidations back to back for as long as the agent logs
        run = _mem(a.root, "consolidate", "--provider", "offline", "--now", f"{DAY}T12:00")
        _, err = run.communicate()
        runs.append((run.returncode, err))
    assert agent.returncode == 0, agent.stderr.read()
    assert len(runs) >= 2 and all(code == 0 for code, _ in runs), runs
    texts = _texts(a)
    assert texts[0] == "I prefer tea over coffee" and "tea" in _all_curated(a)
    assert texts[1:] == [f"a turn {i}" for i in range(30)]  # each once, whole, in order


@pytest.mark.slow
def test_two_syncs_at_once_while_both_machines_log_lose_nothing(tmp_path):
    a, b = clones(tmp_path, 2)
    agents = [_logger(a.root, "a", 15), _logger(b.root, "b", 15)]
    while any(p.poll() is None for p in agents):
        syncs = [_mem(a.root, "sync"), _mem(b.root, "sync")]  # both at once
        for s in syncs:
            _, err = s.communicate()
            assert s.returncode == 0, err
    assert [p.returncode for p in agents] == [0, 0]
    for _ in range(2):
        a("sync")
        b("sync")
    want = sorted(f"{who} turn {i}" for who in "ab" for i in range(15))
    assert sorted(_texts(a)) == sorted(_texts(b)) == want


def test_the_same_words_logged_on_two_machines_in_one_minute_stay_two_entries(tmp_path):
    a, b = clones(tmp_path, 2)
    for machine in (a, b):
        machine("log", "--at", f"{DAY} 09:30", "Same words on both laptops.")
    a("sync")
    b("sync")
    a("sync")
    assert _texts(a) == _texts(b) == ["Same words on both laptops."] * 2


def test_a_force_pushed_rewrite_neither_drops_nor_duplicates_an_entry(tmp_path):
    a, b = clones(tmp_path, 2)
    a("log", "--at", f"{DAY}T09:00", "--role", "user", "first of a")
    a("log", "--at", f"{DAY}T09:01", "--role", "user", "second of a")
    a("sync")
    b("sync")
    # b squashes the whole history into one commit that lacks a's first entry, and forces it.
    repo = git.Repo(b.root)
    with repo.config_writer() as config:  # the person who rewrites it
        config.set_value("user", "name", "B")
        config.set_value("user", "email", "b@example.com")
    log = b.root / "memory" / f"{DAY}.md"
    lines = log.read_text(encoding="utf-8").split("\n")
    start = next(i for i, line in enumerate(lines) if line == "first of a") - 1
    log.write_text("\n".join(lines[:start] + lines[start + 3 :]), encoding="utf-8")
    repo.git.add("-A")
    tree = repo.git.write_tree()
    squashed = repo.git.commit_tree(tree, "-m", "squashed")
    repo.git.reset("--hard", squashed)
    repo.git.push("-f", "origin", f"{squashed}:refs/heads/{repo.active_branch.name}")
    a("log", "--at", f"{DAY}T09:02", "--role", "user", "third of a")
    result = a("sync")
    assert "had lost 1 entry this machine still held" in result.stderr
    assert "history was rewritten" in result.stderr
    assert _texts(a) == ["first of a", "second of a", "third of a"]
    b("sync")
    assert _texts(b) == _texts(a)
    a("log", "--at", f"{DAY}T09:03", "--role", "user", "fourth of a")
    a("sync")
    b("sync")
    assert _texts(a) == _texts(b) == ["first of a", "second of a", "third of a", "fourth of a"]
    # The squash stands: the old commits were not pushed back.
    remote = git.Repo(tmp_path / "remote.git")
    assert squashed in {c.hexsha for c in remote.iter_commits()}
    assert len(list(remote.iter_commits())) <= 6


def test_the_merge_after_a_force_push_sits_on_the_rewritten_history_alone(tmp_path):
    a, b = clones(tmp_path, 2)
    a("log", "--at", f"{DAY}T09:00", "--role", "user", "first of a")
    a("log", "--at", f"{DAY}T09:01", "--role", "user", "second of a")
    a("sync")
    b("sync")
    old = git.Repo(a.root).head.commit.hexsha
    repo = git.Repo(b.root)
    with repo.config_writer() as config:  # the person who rewrites it
        config.set_value("user", "name", "B")
        config.set_value("user", "email", "b@example.com")
    log = b.root / "memory" / f"{DAY}.md"
    lines = log.read_text(encoding="utf-8").split("\n")
    start = lines.index("first of a") - 1  # the squash lost a's first entry
    log.write_text("\n".join(lines[:start] + lines[start + 3 :]), encoding="utf-8")
    repo.git.add("-A")
    squashed = repo.git.commit_tree(repo.git.write_tree(), "-m", "squashed")
    repo.git.push("-f", "origin", f"{squashed}:refs/heads/{repo.active_branch.name}")
    a("log", "--at", f"{DAY}T09:02", "--role", "user", "third of a")
    assert "history was rewritten" in a("sync").stderr
    mine = git.Repo(a.root)
    assert mine.is_ancestor(squashed, "HEAD") and not mine.is_ancestor(old, "HEAD")


def test_two_machines_that_both_consolidated_sync_with_every_citation_right(tmp_path):
    a, b = clones(tmp_path, 2)
    a("log", "--at", f"{DAY}T09:30", "--role", "user", "My cat is called Miso.")
    a("log", "--at", f"{DAY}T09:31", "--role", "user", "I prefer tea over coffee")
    a("consolidate", "--now", f"{DAY}T10:00")
    b("log", "--at", f"{DAY}T09:10", "--role", "user", "I prefer dark mode in every editor")
    b("consolidate", "--now", f"{DAY}T10:05")  # both added to USER.md's Preferences
    a("sync")
    result = b("sync")
    assert result.exit_code == 0 and result.stderr == ""
    a("sync")
    for machine in (a, b):
        curated = _all_curated(machine)
        assert "<<<<<<<" not in curated and "Miso" in curated and "dark mode" in curated
        assert "tea over coffee" in curated
        assert _cited_right(machine) == []
    assert _all_curated(a) == _all_curated(b)
    assert git.Repo(a.root).head.commit.hexsha == git.Repo(b.root).head.commit.hexsha


def test_a_line_both_machines_rewrote_waits_in_review_and_the_sync_succeeds(tmp_path):
    a, b = clones(tmp_path, 2)
    for machine in (a, b):
        user = machine.root / "USER.md"
        text = user.read_text(encoding="utf-8")
        user.write_text(text.replace("## Preferences\n", "## Preferences\n\n- Drinks tea\n"))
    a("sync")
    b("sync")
    for machine, words in ((a, "Drinks green tea"), (b, "Drinks black tea")):
        user = machine.root / "USER.md"
        user.write_text(user.read_text(encoding="utf-8").replace("- Drinks tea", f"- {words}"))
    a("sync")
    result = b("sync")
    assert "a line both machines rewrote keeps this machine's words" in result.stderr
    user = (b.root / "USER.md").read_text(encoding="utf-8")
    assert "- Drinks black tea" in user and "green" not in user and "<<<<<<<" not in user
    waiting = b.json("review")["proposals"]
    assert len(waiting) == 1
    edit = waiting[0]["edits"][0]
    assert (edit["op"], edit["target"], edit["text"]) == (
        "deprecate",
        "Drinks black tea",
        "Drinks green tea",
    )


def test_a_hard_forget_and_a_merge_never_leave_a_citation_on_someone_elses_words(tmp_path):
    a, b = clones(tmp_path, 2)
    a("log", "--at", f"{DAY}T09:30", "--role", "user", "I prefer window seats on long flights")
    a("consolidate", "--now", f"{DAY}T10:00")
    assert "Prefers window seats" in (a.root / "USER.md").read_text(encoding="utf-8")
    a("forget", "--hard", f"memory/{DAY}.md#L3-L4")
    b("log", "--at", f"{DAY}T09:05", "--role", "user", "I told my sister I hate window seats.")
    b("sync")
    a("sync")  # b's entry now sits where a's redacted one was
    user = (a.root / "USER.md").read_text(encoding="utf-8")
    line = next(x for x in user.splitlines() if "Prefers window seats" in x)
    assert "](" not in line and "<!--" not in line  # unsourced, not mis-sourced
    assert _cited_right(a) == []


def test_a_writer_killed_inside_the_transaction_blocks_no_one_and_loses_no_entry(tmp_path):
    # kill -9 in the middle of a rewrite (a consolidation, a sync's merge): the kernel
    # drops its lock, the writer waiting on it goes on, and `mem log` never waited at all.
    import os
    import signal
    import time

    (a,) = clones(tmp_path, 1)
    a("log", "--at", f"{DAY}T09:00", "--role", "user", "My cat is called Miso.")
    held = tmp_path / "held"
    holder = subprocess.Popen(
        [
            sys.executable, "-c",
            "import sys, time, pathlib\n"
            "from openclaw_mem.store.transaction import transaction\n"
            "with transaction(pathlib.Path(sys.argv[1])):\n"
            "    pathlib.Path(sys.argv[2]).touch()\n"
            "    time.sleep(120)\n",
            str(a.root), str(held),
        ]
    )  # fmt: skip
    while not held.exists():
        assert holder.poll() is None, "the holder died before taking the lock"
        time.sleep(0.05)
    waiting = _mem(a.root, "consolidate", "--now", f"{DAY}T10:00")
    agent = _logger(a.root, "while held", 5)
    assert agent.wait(timeout=60) == 0, agent.stderr.read()  # appends never wait on it
    time.sleep(0.5)
    assert waiting.poll() is None  # the consolidation waits for the lock
    os.kill(holder.pid, signal.SIGKILL)
    holder.wait()
    _, err = waiting.communicate(timeout=60)
    assert waiting.returncode == 0, err
    texts = _texts(a)
    assert all(texts.count(f"while held turn {i}") == 1 for i in range(5)), texts
    assert "Miso" in _all_curated(a) and _cited_right(a) == []


def test_undo_counts_a_persons_edit_that_a_sync_committed(tmp_path):
    a, _ = clones(tmp_path, 2)
    a("log", "--at", f"{DAY}T09:30", "--role", "user", "My cat is called Miso.")
    a("consolidate", "--now", f"{DAY}T10:00")
    user = a.root / "USER.md"
    user.write_text(user.read_text(encoding="utf-8") + "- Plays the cello\n", encoding="utf-8")
    a("sync")
    assert git.Repo(a.root).head.commit.message.startswith("mem sync: a person's edit of USER.md")
    refused = a("undo", ok=False)
    assert refused.exit_code == 2 and "`mem undo --yes` reverts" in refused.stderr
    assert "a person's edit of USER.md" in refused.stderr
    a("undo", "--yes")
    assert "- Plays the cello" in user.read_text(encoding="utf-8")


def test_a_forged_revert_message_does_not_hide_a_consolidation_from_undo(ws):
    ws("log", "--at", f"{DAY}T09:30", "--role", "user", "My cat is called Miso.")
    ws("consolidate", "--now", f"{DAY}T10:00")
    repo = git.Repo(ws.root)
    target = repo.head.commit.hexsha
    ws("log", "--at", f"{DAY}T11:00", "--role", "user", "nothing to see")
    ws("commit", "-m", f"mem log: tidy\n\nThis reverts commit {target}.")
    out = ws("undo").stdout
    assert f"reverted {target[:7]}" in out
    assert "Miso" not in (ws.root / "USER.md").read_text(encoding="utf-8")


def test_a_line_unsourced_here_gets_the_link_the_other_machine_knows_of(tmp_path):
    # Found by the randomized history: a redacted its entry, so its line lost its link; b
    # had drawn the same line from that entry and another that still says it.
    a, b = clones(tmp_path, 2)
    a("log", "--at", f"{DAY}T09:00", "--role", "user", "I live in Oolong now (c1a1-4)")
    a("sync")
    b("sync")
    b("log", "--at", f"{DAY}T09:10", "--role", "user", "I live in Oolong now (c1a1-10)")
    a("consolidate", "--now", f"{DAY}T10:00")
    a("forget", "--hard", f"memory/{DAY}.md#L3-L4")
    b("consolidate", "--now", f"{DAY}T10:00")
    b("sync")
    a("sync")  # a's unsourced line meets b's record of both entries
    line = next(x for x in _all_curated(a).splitlines() if "Oolong" in x)
    assert line == f"- Lives in Oolong now (c1a1-4) [{DAY}](memory/{DAY}.md#L6-L7)"
    assert _cited_right(a) == []


@pytest.mark.parametrize("mover", ["ours", "theirs", "ours struck", "theirs struck"])
def test_a_line_one_side_removed_and_the_other_only_moved_stays_removed(mover):
    # Found by the randomized history: an undo removed a line (and its record) on one
    # machine while an earlier merge had moved it on the other; the diff read the move as
    # an addition, and the line came back with no record, its links never followed again.
    from openclaw_mem.format.merge import merge_file

    head = "# USER\n\n## Identity\n\n"
    a, b, c = "- Has a cat called Miso", "- Lives in Kiel now", "- Works on the billing service"
    gone = "- Plans a trip to Oslo [2026-12-01](memory/2026-12-01.md#L3-L4)"
    base = head + "\n".join([a, b, c, gone]) + "\n"
    moved = head + "\n".join([gone, a, b, c]) + "\n"
    if mover.endswith("struck"):  # a forget there; here, an undo of what wrote the line
        struck = (
            "- ~~Plans a trip to Oslo~~ (forgotten 2026-12-01) "
            "[2026-12-01](memory/2026-12-01.md#L3-L4)"
        )
        moved = head + "\n".join([a, b, c, struck]) + "\n"
    removed = head + "\n".join([a, b, c]) + "\n"
    ours, theirs = (moved, removed) if mover.startswith("ours") else (removed, moved)
    merged = merge_file("USER.md", base, ours, theirs)
    assert merged.text == removed and merged.undecided == []


def test_undo_of_a_forget_does_not_bring_back_a_link_to_a_redacted_entry(ws):
    # Found by the randomized history on CI: the line undo restores is the line as it was
    # before the forget, links included, and one of them now points at a redaction.
    ws("log", "--at", f"{DAY}T09:30", "--role", "user", "I live in Lisbon now.")
    ws("log", "--at", f"{DAY}T09:31", "--role", "user", "ok thanks")
    ws("consolidate", "--now", f"{DAY}T10:00")
    user = ws.root / "USER.md"
    n = next(i for i, x in enumerate(user.read_text("utf-8").splitlines(), 1) if "Lisbon" in x)
    ws("forget", f"USER.md:{n}")
    ws("forget", "--hard", f"memory/{DAY}.md#L3-L4")
    ws("undo", "--yes")
    line = next(x for x in user.read_text("utf-8").splitlines() if "Lisbon" in x)
    assert "~~" not in line and "](" not in line  # back, and unsourced, not mis-sourced
    assert git.Repo(ws.root).is_dirty() is False  # the re-pointing is in the revert commit


def test_a_proposal_accepted_after_a_sync_moved_its_entry_cites_where_it_is_now(tmp_path):
    a, b = clones(tmp_path, 2)
    a("log", "--at", f"{DAY}T09:40", "--role", "user", "My cat is called Miso.")
    out = a("consolidate", "--now", f"{DAY}T10:00", "--propose").stdout
    proposal = out.split("mem review ")[-1].split()[0]
    b("log", "--at", f"{DAY}T09:00", "--role", "user", "An earlier note from b")
    b("sync")
    a("sync")  # b's entry sorts in above a's: the proposal's link now points at b's words
    a("review", proposal, "--accept")
    line = next(x for x in _all_curated(a).splitlines() if "Miso" in x)
    assert line.endswith(f"(memory/{DAY}.md#L6-L7)"), line
    assert _cited_right(a) == [] and not git.Repo(a.root).is_dirty()


def test_undo_on_the_other_clone_is_not_blocked_by_mems_own_citation_commit(tmp_path):
    a, b = clones(tmp_path, 2)
    b("log", "--at", f"{DAY}T09:40", "--role", "user", "My cat is called Miso.")
    b("consolidate", "--now", f"{DAY}T10:00")
    a("log", "--at", f"{DAY}T09:00", "--role", "user", "An earlier note from a")
    a("sync")
    b("sync")  # a's entry sorts in above: b's line is re-pointed in a commit of mem's own
    assert "citations follow their entries" in git.Repo(b.root).head.commit.message
    a("sync")
    out = a("undo").stdout
    assert out.startswith("reverted ") and "consolidate:" in out
    assert "Miso" not in (a.root / "USER.md").read_text(encoding="utf-8")


def test_mem_init_on_a_git_clone_registers_the_merge_driver(tmp_path):
    clones(tmp_path, 1)
    clone = tmp_path / "cloned"
    git.Repo.clone_from(str(tmp_path / "remote.git"), clone)
    assert CliRunner().invoke(app, ["init", str(clone)]).exit_code == 0
    driver = git.Repo(clone).config_reader("repository").get_value('merge "mem-entries"', "driver")
    assert "openclaw_mem merge-file %O %A %B %P" in driver


def test_sync_commits_say_which_files_and_whether_a_person_edited(tmp_path):
    (a,) = clones(tmp_path, 1)
    a("log", "--at", f"{DAY}T09:30", "an entry")
    a("sync")
    assert git.Repo(a.root).head.commit.message.startswith(
        f"mem sync: log entries in memory/{DAY}.md"
    )
    memory = a.root / "MEMORY.md"
    memory.write_text(memory.read_text(encoding="utf-8") + "- A hand note\n", encoding="utf-8")
    a("log", "--at", f"{DAY}T09:31", "another entry")
    a("sync")
    message = git.Repo(a.root).head.commit.message
    assert message.startswith(
        f"mem sync: a person's edit of MEMORY.md; log entries in memory/{DAY}.md"
    )
    assert "- MEMORY.md (a person's edit)" in message


def test_a_sync_that_cannot_finish_leaves_the_working_tree_as_the_writers_left_it(tmp_path):
    (a,) = clones(tmp_path, 1)
    (tmp_path / "remote.git").rename(tmp_path / "gone.git")
    a("log", "--at", f"{DAY}T09:30", "written before the sync")
    before = (a.root / "memory" / f"{DAY}.md").read_bytes()
    result = a("sync", ok=False)
    assert result.exit_code == 5 and result.stderr.count("\n") == 1
    assert "cannot fetch from origin" in result.stderr
    assert (a.root / "memory" / f"{DAY}.md").read_bytes() == before
