"""Forget and cleanup: what they do to the files through the library (`Memory.forget`,
`Memory.cleanup`), and what the CLI adds (its report, the commit it names, --json)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import git
import pytest
from helpers import without_ids

from openclaw_mem.errors import NotFound, UsageError

USER = (
    "# USER\n\n## Identity\n\n- Lin Wei, backend engineer in Hangzhou.\n"
    "- Mainly uses Python for backend work. <!-- identity i=0.7 c=0.9 2026-11-02 -->\n"
    "- Has a cat called Doudou.\n\n## Preferences\n\n- Likes Python type hints.\n"
)


def _user(ws):
    (ws.root / "USER.md").write_text(USER, encoding="utf-8")
    ws("commit", "-m", "profile")


def test_forget_deprecates_by_default_and_deletes_with_hard(memory):
    user = memory.root / "USER.md"
    user.write_text(USER, encoding="utf-8")
    result = memory.forget("USER.md:6")
    assert (result.done.mode, result.done.path, result.done.lines) == (
        "deprecated",
        "USER.md",
        (6, 6),
    )
    assert result.commit is None and result.warnings == ()  # no git: nothing to commit
    text = user.read_text(encoding="utf-8")
    assert "- ~~Mainly uses Python for backend work.~~ (forgotten" in text
    assert "<!-- identity i=0.7 c=0.9 2026-11-02 -->" in text
    hard = memory.forget("cat called Doudou", hard=True)  # a query naming one line
    assert (hard.done.mode, hard.done.lines) == ("deleted", (7, 7))
    text = user.read_text(encoding="utf-8")
    assert "Doudou" not in text and "- Lin Wei, backend engineer in Hangzhou." in text
    hits = memory.recall("Doudou cat").hits
    assert [h.path for h in hits if "USER" in h.path and "Doudou" in h.snippet] == []


def test_a_heading_or_a_line_of_prose_is_not_a_line_to_forget(memory):
    """`forget USER.md:3` on "## Identity" struck the heading into a bullet
    ("- ~~## Identity~~") and broke the grouping `mem context` reads; a paragraph's line
    became a bullet and left its continuation dangling. Only a `- ` line is forgotten."""
    user = memory.root / "USER.md"
    text = USER.replace("## Preferences\n", "## Preferences\n\nLin is picky about\ntooling.\n")
    user.write_text(text, encoding="utf-8")
    lines = text.split("\n")
    for n, what in (
        (1, "is a heading"),
        (3, "is a heading"),
        (lines.index("Lin is picky about") + 1, "is prose"),
    ):
        for hard in (False, True):
            with pytest.raises(UsageError, match=what):
                memory.forget(f"USER.md:{n}", hard=hard)
    assert user.read_text(encoding="utf-8") == text  # nothing written


def test_the_cli_reports_what_it_forgot_and_commits(ws):
    _user(ws)
    out = ws("forget", "USER.md:6").stdout
    assert out.startswith("deprecated USER.md:6") and "committed " in out
    assert git.Repo(ws.root).head.commit.message.startswith("forget: USER.md:6 (deprecated)")


def test_words_forget_every_line_that_says_them_and_a_tie_lists_the_candidates(memory):
    """Words forget every line that holds them all ("Python": both lines that say it);
    when no line holds them all, the one line sharing most words is meant, and two that tie
    are listed to pick from."""
    user = memory.root / "USER.md"
    user.write_text(USER, encoding="utf-8")
    with pytest.raises(UsageError) as ambiguous:
        memory.forget("Python backend hints")
    assert ambiguous.value.exit_code == 2
    said = ambiguous.value.message
    assert "matches several lines equally" in said and "USER.md:6" in said
    assert "USER.md:11" in said
    with pytest.raises(NotFound) as nothing:
        memory.forget("quantum chromodynamics")
    assert nothing.value.exit_code == 4
    done = memory.forget("Python")
    assert sorted(f.lines for f in done.lines) == [(6, 6), (11, 11)]
    text = user.read_text(encoding="utf-8")
    assert "- ~~Mainly uses Python for backend work.~~ (forgotten" in text
    assert "- ~~Likes Python type hints.~~ (forgotten" in text


def test_a_log_line_is_hidden_by_default_and_redacted_with_hard(memory):
    memory.log("my password is hunter2-secret, keep it", at=datetime(2026, 11, 24, 14, 45))
    day = memory.root / "memory" / "2026-11-24.md"
    before = day.read_bytes()
    hidden = memory.forget("memory/2026-11-24.md:4")
    assert hidden.lines == () and hidden.hidden == ("memory/2026-11-24.md#L3-L4",)
    assert day.read_bytes() == before  # logs are never rewritten: the entry is hidden
    assert memory.recall("password hunter2", now=datetime(2026, 11, 25)).hits == []
    with pytest.raises(UsageError, match="holds no words to forget") as heading_only:
        memory.forget("memory/2026-11-24.md:3", hard=True)  # the entry's heading alone
    assert heading_only.value.exit_code == 2
    assert day.read_bytes() == before  # nothing redacted, nothing rewritten
    done = memory.forget("memory/2026-11-24.md#L3-L4", hard=True).done
    assert (done.mode, done.path, done.lines) == ("redacted", "memory/2026-11-24.md", (3, 4))
    text = day.read_text(encoding="utf-8")
    assert "hunter2" not in text and "## 14:45 · note\n[forgotten" in without_ids(text)


def test_the_cli_says_a_redacted_log_line_remains_in_git_history(ws):
    ws("log", "--at", "2026-11-24T14:45", "my password is hunter2-secret, keep it")
    ws("commit", "-m", "log")
    out = ws("forget", "--hard", "memory/2026-11-24.md#L3-L4").stdout
    assert "redacted memory/2026-11-24.md:3-4" in out and "remains in git history" in out
    assert "git filter-repo" in out and "hunter2" not in out
    assert git.Repo(ws.root).head.commit.message.startswith("forget: memory/2026-11-24.md:3-4")


def test_undo_brings_back_a_hidden_log_entry_but_never_a_redacted_one(ws):
    """Undo took every forget that named a log for a redaction: a soft forget of an entry
    was skipped, and undo reverted an older commit instead (or found nothing to undo)."""
    ws("log", "--at", "2026-11-24T09:00", "--role", "user", "I live in Hangzhou.")
    ws("log", "--at", "2026-11-24T09:01", "--role", "user", "My cat is called Miso.")
    ws("commit", "-m", "log")
    ws("forget", "memory/2026-11-24.md:3")
    assert ws("recall", "--json", "--now", "2026-11-25", "Hangzhou", ok=False).exit_code == 1
    ws("undo")
    hits = ws.json("recall", "--now", "2026-11-25", "Hangzhou")["results"]
    assert [h["startLine"] for h in hits] == [3]
    ws("forget", "--hard", "memory/2026-11-24.md:7")
    assert ws("undo", ok=False).exit_code == 4  # a redaction is not undone, nothing else is left
    assert "Miso" not in (ws.root / "memory" / "2026-11-24.md").read_text(encoding="utf-8")


def test_undo_never_brings_back_what_a_hard_forget_by_words_redacted(ws):
    """Its subject ('forget: "Hamburg" (2 lines, 1 redacted)') was not taken for a
    redaction: undo reverted HISTORY.md and the redacted words came back."""
    ws("log", "--at", "2026-11-24T09:00", "--role", "user", "I live in Hamburg.")
    ws("consolidate", "--provider", "offline", "--now", "2026-11-24T10:00")
    history = ws.root / "HISTORY.md"
    assert "Hamburg" in history.read_text(encoding="utf-8")
    ws("forget", "--hard", "Hamburg")
    assert "Hamburg" not in history.read_text(encoding="utf-8")
    ws("undo", "--yes", ok=False)
    assert "Hamburg" not in history.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("said", "target"),
    [
        ("my openai key is sk-proj-AbCdEf1234567890AbCdEf1234567890XyZ", None),
        ("my bank password is Tr0ub4dor&3xyz", "Tr0ub4dor&3xyz"),  # a secret only where said
    ],
)
def test_a_secret_is_never_written_by_its_forget(ws, said, target):
    """An outside audit: `mem forget KEY` wrote the key into HISTORY.md's record and
    committed it, and a password given alone went into the commit's subject. A forget that
    hides would keep the words: it is refused (nothing written); --hard deletes it and its
    commit names no secret."""
    ws("log", "--at", "2026-11-24T09:00", "--role", "user", said)
    target = target or said.split()[-1]
    head = git.Repo(ws.root).head.commit.hexsha
    history = (ws.root / "HISTORY.md").read_text(encoding="utf-8")
    out = ws("forget", target, ok=False)
    assert out.exit_code == 2 and "--hard" in out.output and target not in out.output
    assert (ws.root / "HISTORY.md").read_text(encoding="utf-8") == history
    assert git.Repo(ws.root).head.commit.hexsha == head
    ws("forget", "--hard", target)
    repo = git.Repo(ws.root)
    assert target not in repo.head.commit.message
    assert target not in (ws.root / "HISTORY.md").read_text(encoding="utf-8")
    assert target not in "".join(
        p.read_text(encoding="utf-8") for p in (ws.root / "memory").glob("*.md")
    )


def test_forget_refuses_other_files_and_escapes(memory):
    (memory.root / "SOUL.md").write_text("# Soul\n- be kind\n", encoding="utf-8")
    for target, hard, error, code in [
        ("SOUL.md:2", True, UsageError, 2),
        ("../x.md:1", True, UsageError, 2),
        ("MEMORY.md:999", False, NotFound, 4),
    ]:
        with pytest.raises(error) as refused:
            memory.forget(target, hard=hard)
        assert refused.value.exit_code == code, target


def test_cleanup_archives_stale_lines_by_the_rules(memory):
    now = datetime.now()
    old = (now - timedelta(days=45)).date().isoformat()
    fresh = (now - timedelta(days=2)).date().isoformat()
    ancient = (now - timedelta(days=120)).date().isoformat()
    (memory.root / "MEMORY.md").write_text(
        "# MEMORY\n\n## Used\n\n"  # recall counts uses per chunk; a section is one here
        f"- Trivia someone recalled lately. <!-- fact i=0.1 c=0.9 {old} -->\n\n## Facts\n\n"
        f"- Trivia nobody asks about. <!-- fact i=0.1 c=0.9 {old} -->\n"
        f"- A guess the model was unsure of. <!-- fact i=0.8 c=0.3 {fresh} -->\n"
        f"- ~~Uses Jenkins for CI.~~ (deprecated {ancient} → GitHub Actions) "
        f"<!-- fact i=0.6 c=0.9 {old} -->\n"
        f"- Important and solid. <!-- fact i=0.9 c=0.9 {old} -->\n"
        "- A line a person wrote, with no metadata.\n",
        encoding="utf-8",
    )
    memory.recall("trivia recalled lately", path="MEMORY.md", k=1)  # counts one use
    dry = memory.cleanup(dry_run=True)
    reasons = {s.line: s.reason for s in dry.stale}
    assert set(reasons) == {9, 10, 11}, reasons
    assert reasons[9].startswith("importance 0.1, never used")
    assert reasons[10] == "low confidence (0.3)" and reasons[11].startswith("deprecated since")
    text = (memory.root / "MEMORY.md").read_text("utf-8")
    assert dry.archive is None and "Trivia nobody" in text
    done = memory.cleanup()
    assert done.archive is not None and done.archive.startswith("archive/")
    assert done.commit is None and done.warnings == ()  # no git: nothing to commit
    text = (memory.root / "MEMORY.md").read_text(encoding="utf-8")
    assert "Trivia nobody" not in text and "Jenkins" not in text and "A guess" not in text
    assert "Trivia someone recalled lately" in text and "A line a person wrote" in text
    archive = (memory.root / done.archive).read_text(encoding="utf-8")
    assert "Trivia nobody asks about" in archive and "archived: low confidence" in archive
    hits = memory.recall("Trivia nobody asks about").hits
    assert all(not h.path.startswith("archive/") for h in hits)
    assert memory.cleanup().stale == []


def test_a_persons_line_is_archived_only_when_they_struck_it_through_long_ago(memory):
    now = datetime.now()
    ancient = (now - timedelta(days=120)).date().isoformat()
    recent = (now - timedelta(days=10)).date().isoformat()
    (memory.root / "USER.md").write_text(
        "# USER\n\n## Identity\n\n"
        "- Unsure whether I like jazz.\n"  # no metadata: no importance nor confidence read
        f"- ~~Lives in Shanghai.~~ (deprecated {ancient} → Lives in Hangzhou)\n"
        f"- ~~Drives a Golf.~~ (deprecated {recent} → Cycles to work)\n",
        encoding="utf-8",
    )
    stale = memory.cleanup(dry_run=True).stale
    assert [(s.path, s.line) for s in stale] == [("USER.md", 6)]
    assert stale[0].reason.startswith("deprecated since")


def test_the_cli_cleanup_commits_and_reports_json(ws):
    old = (datetime.now() - timedelta(days=45)).date().isoformat()
    (ws.root / "MEMORY.md").write_text(
        f"# MEMORY\n\n## Facts\n\n- Trivia nobody asks about. <!-- fact i=0.1 c=0.9 {old} -->\n",
        encoding="utf-8",
    )
    ws("commit", "-m", "memory")
    dry = ws.json("cleanup", "--dry-run")
    assert [line["line"] for line in dry["lines"]] == [5] and dry["archive"] is None
    assert dry["lines"][0]["reason"].startswith("importance 0.1, never used")
    out = ws("cleanup").stdout
    assert "MEMORY.md:5 (importance 0.1" in out and "committed " in out
    assert not git.Repo(ws.root).is_dirty(untracked_files=True)
    assert json.loads(ws("cleanup", "--json").stdout)["lines"] == []


def test_forgetting_by_words_strikes_only_the_fact_they_name(memory):
    """Issue 34: `mem forget "Doudou"` struck the whole "Manager / Partner / Cat" line. The
    words name one fact of the line: that fact is struck on a line of its own, the others
    stay as they were; --hard leaves only the others. A PATH:LINE still means the line."""
    user = memory.root / "USER.md"
    family = "- Manager: 陈姐 (Chen Jing). Partner: 小雨 (Xiaoyu). Cat: 豆豆 (Doudou).\n"
    chinese = "- 住在杭州。养了一只猫叫豆豆。\n"
    user.write_text(f"# USER\n\n## Identity\n\n{family}", encoding="utf-8")
    done = memory.forget("Doudou").done
    assert (done.mode, done.lines) == ("deprecated", (5, 5))
    lines = user.read_text(encoding="utf-8").splitlines()
    assert lines[4] == "- Manager: 陈姐 (Chen Jing). Partner: 小雨 (Xiaoyu)."
    assert lines[5].startswith("- ~~Cat: 豆豆 (Doudou).~~ (forgotten ")
    assert memory.recall("Xiaoyu partner").hits  # what was kept is still recalled
    user.write_text(f"# USER\n\n## Identity\n\n{family}{chinese}", encoding="utf-8")
    assert memory.forget("Partner Xiaoyu", hard=True).done.mode == "deleted"
    memory.forget("杭州", hard=True)
    assert user.read_text(encoding="utf-8").splitlines()[4:] == [
        "- Manager: 陈姐 (Chen Jing). Cat: 豆豆 (Doudou).",
        "- 养了一只猫叫豆豆。",
    ]
    user.write_text(f"# USER\n\n## Identity\n\n{family}", encoding="utf-8")
    memory.forget("USER.md:5")  # a place, not words: the whole line
    assert user.read_text(encoding="utf-8").splitlines()[4].startswith("- ~~Manager: 陈姐")


def test_an_abbreviation_or_a_mistyped_place_never_cuts_or_strikes_a_line(memory):
    """An outside audit: `forget Okafor` left "- Sees Dr. Mary's clinic." (a false fact) and
    `forget Vim` "- Uses e.g. Likes Go."; `forget USER.md:8:1` and `MEMORY.md:+1` were read
    as the words "user", "md" and struck AGENTS.md's rules."""
    user = memory.root / "USER.md"
    user.write_text(
        "# USER\n\n## Identity\n\n- Sees Dr. Okafor at St. Mary's clinic. Takes aspirin daily.\n"
        "- Uses e.g. Vim. Likes Go.\n",
        encoding="utf-8",
    )
    memory.forget("Okafor")
    memory.forget("Vim")
    lines = user.read_text(encoding="utf-8").splitlines()
    assert lines[4] == "- Takes aspirin daily."
    assert lines[5].startswith("- ~~Sees Dr. Okafor at St. Mary's clinic.~~ (forgotten ")
    assert "- Likes Go." in lines and any(x.startswith("- ~~Uses e.g. Vim.~~") for x in lines)
    before = {p.name: p.read_bytes() for p in memory.root.glob("*.md")}
    for spec in (
        "USER.md:8:1",
        "MEMORY.md:+1",
        "USER.md#8",
        "USER.md:L8",
        "AGENTS.md",
        "USER.md 8",
    ):
        with pytest.raises(UsageError, match="not a place"):
            memory.forget(spec)
    assert {p.name: p.read_bytes() for p in memory.root.glob("*.md")} == before


@pytest.mark.parametrize(
    ("line", "facts"),
    [
        ("Uses Python 3. Likes green tea.", ["Uses Python 3.", "Likes green tea."]),
        ("Takes vitamin D. Likes tea.", ["Takes vitamin D.", "Likes tea."]),
        ("Likes apples, pears, etc. Hates tea.", ["Likes apples, pears, etc.", "Hates tea."]),
        ("Reads J. K. Rowling. Likes tea.", ["Reads J. K. Rowling.", "Likes tea."]),
    ],
)
def test_a_full_stop_after_a_digit_a_letter_or_etc_still_ends_a_fact(line, facts):
    from openclaw_mem.upkeep.forgetting import facts_of

    assert facts_of(line) == facts


def test_a_secret_on_a_curated_line_is_never_written_by_its_forget(ws):
    """A review: the secret check read log entries only. A password on a curated line was
    written into HISTORY.md's record and the commit; a forget by another word of the line
    recorded the password among the line's words."""
    user = ws.root / "USER.md"
    text = user.read_text(encoding="utf-8").replace(
        "## Preferences\n",
        "## Preferences\n\n- My wifi password is Tr0ub4dor&3xyz\n"
        "- Home wifi is CasaNet, password: Tr0ub4dor&3xyz!Qq\n",
    )
    user.write_text(text, encoding="utf-8")
    ws("commit", "-m", "profile")
    assert ws("forget", "Tr0ub4dor&3xyz", ok=False).exit_code == 2
    ws("forget", "CasaNet")
    history = (ws.root / "HISTORY.md").read_text(encoding="utf-8").lower()
    assert "tr0ub4dor" not in history and "3xyz" not in history
    assert "Tr0ub4dor" not in git.Repo(ws.root).head.commit.message


def test_a_key_a_wrap_cut_in_two_is_hidden_when_the_bullet_is_joined(ws):
    """A review: joining a wrapped bullet ("ghp_…wx" / "  yz01…") made the key's halves one
    line with a space, which no family finds: the profile showed it whole, and a forget
    wrote it into USER.md unsplit."""
    user = ws.root / "USER.md"
    key = ("ghp_abcdefghijklmnopqrstuvwx", "yz0123456789ABCD")
    text = user.read_text(encoding="utf-8").replace(
        "## Preferences\n", f"## Preferences\n\n- GitHub token {key[0]}\n  {key[1]}\n"
    )
    user.write_text(text, encoding="utf-8")
    ws("commit", "-m", "profile")
    brief = ws("context", "github token").stdout
    assert key[0] not in brief and key[1] not in brief
    ws("forget", "GitHub token")
    after = user.read_text(encoding="utf-8") + (ws.root / "HISTORY.md").read_text(encoding="utf-8")
    assert all(half.lower() not in after.lower() for half in key)


WRAPPED = (
    "# USER\n\n## Identity\n\n- Works at Tidewater Pay as a backend engineer;\n"
    "  lives in Hangzhou with partner Xiaoyu. <!-- fact i=0.7 c=0.9 2026-11-02 -->\n"
    "- Has a cat.\n"
)


@pytest.mark.parametrize("target", ["Xiaoyu", "USER.md:6", "USER.md:5", "USER.md#L5-L6"])
def test_a_wrapped_bullet_is_one_fact_to_forget(memory, target):
    """An outside audit: the fact on a wrapped bullet's second line could not be forgotten
    (by its words, its line or the citation recall gives) while recall served it, and a
    forget of the first line left the second unstruck."""
    user = memory.root / "USER.md"
    user.write_text(WRAPPED, encoding="utf-8")
    done = memory.forget(target).done
    assert (done.mode, done.lines) == ("deprecated", (5, 6))
    lines = user.read_text(encoding="utf-8").splitlines()
    assert lines[4].startswith(
        "- ~~Works at Tidewater Pay as a backend engineer; lives in Hangzhou with partner "
        "Xiaoyu.~~ (forgotten "
    )
    assert lines[5] == "- Has a cat."


def test_the_profile_states_a_wrapped_bullet_whole(ws):
    (ws.root / "USER.md").write_text(WRAPPED, encoding="utf-8")
    ws("commit", "-m", "profile")
    text = ws("context", "partner").stdout
    assert "Works at Tidewater Pay as a backend engineer; lives in Hangzhou with partner" in text
    assert "<!--" not in text


def test_undo_of_a_consolidation_or_a_forget_keeps_what_a_person_saved_before_it(ws):
    """A hand edit saved and not committed went into the consolidation's (or the forget's)
    commit, and `mem undo` of that commit took the edit away with it."""
    user = ws.root / "USER.md"
    ws("log", "--at", "2026-11-01T09:00", "--role", "user", "I live in Hangzhou.")
    ws("consolidate", "--provider", "offline", "--now", "2026-11-01T10:00")
    user.write_text(user.read_text(encoding="utf-8") + "- Likes green tea.\n", encoding="utf-8")
    ws("log", "--at", "2026-11-10T20:00", "--role", "user", "My cat is called Miso.")
    ws("consolidate", "--provider", "offline", "--now", "2026-11-10T21:00")
    assert "Miso" in user.read_text(encoding="utf-8")
    ws("undo")
    text = user.read_text(encoding="utf-8")
    assert "- Likes green tea." in text and "Miso" not in text, text
    user.write_text(text + "- Plays the cello.\n", encoding="utf-8")
    ws("forget", "Hangzhou")
    ws("undo")
    text = user.read_text(encoding="utf-8")
    assert "- Plays the cello." in text and "- Likes green tea." in text, text
    subjects = [c["subject"] for c in ws.json("history", "-n", "20")["commits"]]
    assert sum(s.startswith("edit: USER.md") for s in subjects) == 2, subjects


@pytest.mark.parametrize("name", ["projects/notes.md", "项目/笔记.md"])
def test_a_note_under_memory_that_is_no_daily_log_is_forgotten(ws, name):
    """An outside audit: recall and context served a line of memory/projects/notes.md,
    and neither `mem forget WORDS` nor `mem forget PATH:LINE` could hide it."""
    note = ws.root / "memory" / name
    note.parent.mkdir(parents=True)
    note.write_text("# notes\n\n- Project codename: bluedragon\n- Budget: 40k\n", encoding="utf-8")
    ws("commit", "-m", "notes")
    assert "bluedragon" in ws("recall", "bluedragon").stdout
    ws("forget", "bluedragon")
    assert ws("recall", "bluedragon", ok=False).exit_code == 1
    assert "bluedragon" not in ws("context", "project codename").stdout
    ws("forget", f"memory/{name}:4")
    assert ws("recall", "Budget 40k", ok=False).exit_code == 1
    ws("forget", "--hard", "bluedragon")
    assert "bluedragon" not in note.read_text(encoding="utf-8")
