"""Consolidation against a scripted OpenAI-compatible server (the real openai client talks to
it on 127.0.0.1) and with the offline provider; every failure leaves the workspace as it was."""

from __future__ import annotations

import json
import time

import git
import pytest
from helpers import record, settings, snapshot
from llm_server import skipping_all, tool_call

from openclaw_mem.consolidate.progress import PROGRESS_FILE, pending_entries, taken_ids
from openclaw_mem.format.logs import read_entries
from openclaw_mem.format.markdown import core, covered_lines, is_live_bullet, sources
from openclaw_mem.store.workspace import Workspace

GOOD = {
    "history_entry": "[2026-11-24 09:05] Lin Wei switched his backend work from Python to Go; "
    "Python stays for scripts and tests. He uses golangci-lint with gofumpt.",
    "edits": [
        {
            "file": "USER",
            "op": "deprecate",
            "target": "Mainly uses Python for backend work.",
            "text": "Mainly uses Go for backend work; Python only for scripts and tests.",
            "type": "identity",
            "importance": 0.8,
            "confidence": 0.9,
            "sources": [1],
        },
        {
            "file": "MEMORY",
            "op": "add",
            "section": "Projects",
            "text": "Go code is checked with golangci-lint and gofumpt.",
            "type": "fact",
            "importance": 0.6,
            "confidence": 0.9,
            "sources": [3],
        },
        {
            "file": "USER",
            "op": "add",
            "section": "Preferences",
            "text": "Likes tea, maybe.",
            "type": "preference",
            "importance": 0.2,
            "confidence": 0.3,
            "sources": [1],
        },
    ],
    "skip": [2],  # the assistant's acknowledgement: nothing durable
}


@pytest.fixture
def mem(ws, monkeypatch):
    """A workspace with a few logged turns and a hand-written USER.md."""
    (ws.root / "USER.md").write_text(
        "# USER\n\n## Identity\n\n- Lin Wei, backend engineer in Hangzhou.\n"
        "- Mainly uses Python for backend work.\n\n## Preferences\n\n- Short answers.\n",
        encoding="utf-8",
    )
    ws("commit", "-m", "hand-written profile")
    turns = [
        (
            "2026-11-24T09:05",
            "user",
            "Quick update: 我现在主要用Go写后端了，Python 只用来写脚本和测试。",
        ),
        ("2026-11-24T09:06", "assistant", "好的，更新：主力语言从 Python 换成 Go。"),
        ("2026-11-24T09:07", "user", "好的"),
        (
            "2026-11-24T11:30",
            "user",
            "I'm using golangci-lint with gofumpt; my key is sk-proj-abcdefghijklmnopqrstuvwx",
        ),
    ]
    for at, role, text in turns:
        ws("log", "--at", at, "--role", role, text)
    monkeypatch.setenv("MEM_LLM_TIMEOUT", "2")
    monkeypatch.setenv("MEM_LLM_MAX_RETRIES", "1")
    return ws


def run(ws, llm, *args, ok=True, now="2026-11-24T12:00", model="test-model"):
    """`mem consolidate` against the scripted server."""
    return ws(
        "consolidate",
        "--provider",
        "openai",
        "--base-url",
        llm.url,
        "--model",
        model,
        "--now",
        now,
        *args,
        ok=ok,
    )


@pytest.mark.slow
def test_a_good_tool_call_becomes_one_reviewable_commit(mem, llm):
    llm.push(tool_call(GOOD))
    out = run(mem, llm).stdout
    assert "openai test-model" in out
    user = (mem.root / "USER.md").read_text(encoding="utf-8")
    assert "- Lin Wei, backend engineer in Hangzhou.\n" in user  # the person's line stays
    assert (
        "- ~~Mainly uses Python for backend work.~~ (deprecated 2026-11-24 → Mainly uses Go "
        "for backend work; Python only for scripts and tests.)"
    ) in user
    assert (
        "- Mainly uses Go for backend work; Python only for scripts and tests. "
        "[2026-11-24](memory/2026-11-24.md#L3-L4)\n" in user
    )
    said = "Mainly uses Go for backend work; Python only for scripts and tests."
    known = record(mem.root, "USER", said)
    assert (known.type, known.importance, known.confidence) == ("identity", 0.8, 0.9)
    assert str(known.day) == "2026-11-24" and len(known.ids) == 1
    # E1 says nothing of tea: the line is held for review, never written with a wrong src=
    assert "Likes tea" not in user and "held for review (E1 does not say this" in out
    memory = (mem.root / "MEMORY.md").read_text(encoding="utf-8")
    assert "- Go code is checked with golangci-lint and gofumpt. [2026-11-24](" in memory
    history = (mem.root / "HISTORY.md").read_text(encoding="utf-8")
    # Stamped with the batch's last entry (11:30), whatever time the model wrote.
    assert history.rstrip().endswith("-->") and "[2026-11-24 11:30] Lin Wei switched" in history
    assert "<!-- consolidated: 4 entries of memory/2026-11-24.md; tokens 100+20" in history
    assert covered_lines(history) == {}  # progress is recorded by entry id, not by line
    assert len(taken_ids(Workspace(mem.root))) == 4  # 2 cited, 1 skipped, 1 noise
    head = git.Repo(mem.root).head.commit
    # Two lines added as git diff shows them: the new fact and the deprecated one's replacement.
    assert head.message.startswith("consolidate: +2 ~0 -0, 1 deprecated")
    assert set(head.stats.files) == {"USER.md", "MEMORY.md", "HISTORY.md", PROGRESS_FILE}
    # The log it read is committed just before, on its own, so the committed marker never
    # points at uncommitted lines and `mem undo` never reverts the log.
    assert head.parents[0].message.startswith("mem log: memory/2026-11-24.md")
    assert mem.json("status")["git"]["clean"]

    request = llm.requests[0]
    assert request["tool_choice"] == {"type": "function", "function": {"name": "save_memory"}}
    assert request["tools"][0]["function"]["name"] == "save_memory"
    sent = json.dumps(request, ensure_ascii=False)
    assert "sk-proj-abcdefghijklmnopqrstuvwx" not in sent and "[REDACTED]" in sent
    assert "我现在主要用Go写后端了" in sent and "09:07 user: 好的" not in sent  # noise dropped
    assert mem.json("status")["consolidation"]["pending"] == 0


@pytest.mark.parametrize(
    "step, fragment",
    [
        (tool_call("{not json"), "parse as JSON"),
        (tool_call({"history_entry": "", "edits": []}), "neither a history entry nor edits"),
        (tool_call({"history_entry": "[2026-11-24 09:05] x.", "edits": 5}), "neither a list"),
        (("status", 500, "upstream exploded"), "HTTP 500"),
        (("status", 401, "bad key"), "refused the API key"),
        (("hang", 1.5), "did not answer within 0.5 s"),
    ],
)
def test_every_failure_leaves_the_workspace_byte_identical(mem, llm, step, fragment, monkeypatch):
    if step[0] == "hang":  # a short timeout and no retry: the suite should not wait long
        monkeypatch.setenv("MEM_LLM_TIMEOUT", "0.5")
        monkeypatch.setenv("MEM_LLM_MAX_RETRIES", "0")
    before = snapshot(mem.root)
    llm.push(step, step, step)  # enough for the client's retries
    result = run(mem, llm, ok=False)
    assert result.exit_code == 7, result.stderr
    assert result.stderr.startswith("mem: error: ") and result.stderr.count("\n") == 1
    assert fragment in result.stderr
    assert snapshot(mem.root) == before
    llm.script.clear()
    llm.push(tool_call(GOOD))
    run(mem, llm)  # running it again works
    assert snapshot(mem.root) != before


def test_text_without_a_call_is_asked_again_for_json_then_an_error(mem, llm):
    """auto decides by the answer's shape: a text with no call in it is followed by a
    JSON-only request (no tools), never by waiting for an HTTP error."""
    before = snapshot(mem.root)
    llm.push(("text", "Sure! Here is a summary."), ("text", "Still just text."))
    result = run(mem, llm, ok=False)
    assert result.exit_code == 7 and "parse as JSON" in result.stderr
    # Asked once more (the batch is asked twice before it is left pending): the second
    # time the server has nothing scripted left.
    assert len(llm.requests) == 4 and "asked again" in result.stderr
    assert "tools" in llm.requests[0] and "tools" not in llm.requests[1]
    assert "Answer with that one JSON object" in llm.requests[1]["messages"][0]["content"]
    assert snapshot(mem.root) == before
    llm.push(("text", "oops"), ("text", json.dumps(GOOD)))
    run(mem, llm)
    assert len(llm.requests) == 6
    assert mem.json("status")["consolidation"]["pending"] == 0


def test_tools_mode_gets_one_corrective_retry_then_an_error(mem, llm, monkeypatch):
    monkeypatch.setenv("MEM_LLM_TOOL_MODE", "tools")
    before = snapshot(mem.root)
    llm.push(("text", "Sure! Here is a summary."), ("text", "Still just text."))
    result = run(mem, llm, ok=False)
    assert result.exit_code == 7 and "without calling save_memory" in result.stderr
    assert len(llm.requests) >= 3 and "tools" in llm.requests[1]  # then the batch once more
    assert "Call the save_memory tool now" in llm.requests[1]["messages"][-1]["content"]
    assert snapshot(mem.root) == before


def test_429_is_retried_with_backoff(mem, llm):
    llm.push(("status", 429, "slow down"), tool_call(GOOD))
    run(mem, llm)
    assert len(llm.requests) == 2
    assert git.Repo(mem.root).head.commit.message.startswith("consolidate:")


def test_a_refused_forced_tool_choice_is_retried_with_auto(mem, llm):
    llm.push(
        ("status", 400, "tool_choice 'required'/named function is not supported by this server"),
        tool_call(GOOD),
    )
    run(mem, llm)
    assert llm.requests[0]["tool_choice"] != "auto" and llm.requests[1]["tool_choice"] == "auto"


@pytest.mark.slow
def test_dry_run_prints_the_diff_and_writes_nothing(mem, llm):
    before = snapshot(mem.root)
    llm.push(tool_call(GOOD))
    out = run(mem, llm, "--dry-run").stdout
    assert "+- Go code is checked with golangci-lint" in out and "--- a/USER.md" in out
    marker = "+<!-- consolidated: 4 entries of memory/2026-11-24.md; tokens 100+20 on 2026-11-24"
    assert marker in out
    assert "dry run" in out
    assert snapshot(mem.root) == before


def test_a_file_saved_meanwhile_keeps_the_persons_edit(mem, llm):
    def save_in_vscode_then_answer(request):
        with (mem.root / "USER.md").open("a", encoding="utf-8") as f:
            f.write("- Drinks oolong tea every afternoon.\n")
        return tool_call(GOOD)

    llm.push(save_in_vscode_then_answer)
    out = run(mem, llm).stdout
    assert "changed while consolidating" in out
    user = (mem.root / "USER.md").read_text(encoding="utf-8")
    assert "- Drinks oolong tea every afternoon." in user
    assert "~~Mainly uses Python for backend work.~~" in user


def test_a_file_saved_twice_meanwhile_stops_the_batch_with_nothing_written(mem, llm, monkeypatch):
    """Saved again while the edits were re-applied: mem does not chase the file, it writes
    nothing and says to run it again."""
    from openclaw_mem.consolidate import write

    def save_in_vscode_then_answer(request):
        with (mem.root / "USER.md").open("a", encoding="utf-8") as f:
            f.write("- Drinks oolong tea every afternoon.\n")
        return tool_call(GOOD)

    def apply_while_saved_again(*args, **kwargs):
        with (mem.root / "MEMORY.md").open("a", encoding="utf-8") as f:
            f.write("- The office moved to the fifth floor.\n")
        return apply_edits(*args, **kwargs)

    apply_edits = write.apply_edits
    monkeypatch.setattr(write, "apply_edits", apply_while_saved_again)
    history = (mem.root / "HISTORY.md").read_bytes()
    head = git.Repo(mem.root).head.commit.hexsha
    llm.push(save_in_vscode_then_answer)
    result = run(mem, llm, ok=False)
    assert result.exit_code != 0 and "changed twice while consolidating" in result.stderr
    user = (mem.root / "USER.md").read_text(encoding="utf-8")
    assert "oolong" in user and "~~Mainly uses Python" not in user  # no edit applied
    assert "fifth floor" in (mem.root / "MEMORY.md").read_text(encoding="utf-8")
    assert (mem.root / "HISTORY.md").read_bytes() == history
    assert not (mem.root / PROGRESS_FILE).exists()  # no entry taken
    assert git.Repo(mem.root).head.commit.hexsha == head


def test_secrets_never_reach_the_memory_files(mem, llm):
    sneaky = {
        "history_entry": "[2026-11-24 11:30] The key is sk-proj-abcdefghijklmnopqrstuvwx now.",
        "edits": [
            {
                "file": "MEMORY",
                "op": "add",
                "section": "Facts",
                "text": "Uses golangci-lint with gofumpt; key sk-proj-abcdefghijklmnopqrstuvwx",
                "type": "fact",
                "importance": 0.9,
                "confidence": 0.9,
                "sources": [3],
            }
        ],
    }
    llm.push(tool_call(sneaky))
    result = run(mem, llm, ok=False)
    out = result.stdout
    assert result.exit_code == 12  # nothing in the answer could be used
    assert "skipped (secret" in out
    for name in ("MEMORY.md", "USER.md", "AGENTS.md", "HISTORY.md"):
        assert "abcdefghijklmnopqrstuvwx" not in (mem.root / name).read_text(encoding="utf-8")


def test_undo_reverts_with_a_new_commit(mem, llm):
    before = (mem.root / "USER.md").read_bytes()
    llm.push(tool_call(GOOD))
    run(mem, llm)
    out = mem("undo").stdout
    assert out.startswith("reverted ") and "committed " in out
    assert (mem.root / "USER.md").read_bytes() == before
    assert mem.json("status")["consolidation"]["pending"] == 4
    assert len(read_entries(mem.root / "memory" / "2026-11-24.md")) == 4  # the log stays
    repo = git.Repo(mem.root)
    assert repo.head.commit.message.startswith('Revert "consolidate:')
    assert mem("undo", ok=False).exit_code == 4  # nothing left to undo


def test_undo_of_the_first_consolidation_leaves_an_older_workspace_as_it_was(example):
    """workspace.example records what was consolidated with HISTORY.md markers of the older
    kind; the first run writes memory/.consolidated in their place. Its undo left the record
    with its header alone, which stands for "nothing consolidated": 20 pending became 79."""
    before = example.json("status")["consolidation"]["pending"]
    example("consolidate", "--provider", "offline")
    example("undo")
    assert example.json("status")["consolidation"]["pending"] == before
    assert not (example.root / "memory" / ".consolidated").exists()


def test_auto_respects_the_window_and_keeps_the_newest(mem, llm):
    settings(mem.root, "[consolidate]\nmemory_window = 5\nkeep_recent = 2\n")
    assert "within the window of 5" in run(mem, llm, "--auto").stdout
    for i in range(4):
        mem("log", "--at", f"2026-11-25T10:0{i}", f"Shadow comparison note number {i} for Atlas")
    llm.push(skipping_all("[2026-11-25 10:01] Shadow notes."))
    run(mem, llm, "--auto")
    left = pending_entries(Workspace(mem.root))
    assert [e.entry.text[-13:] for e in left] == ["r 2 for Atlas", "r 3 for Atlas"]
    sent = llm.requests[-1]["messages"][1]["content"]
    assert "number 1" in sent and "number 2" not in sent


def test_a_large_backlog_goes_in_batches_one_commit_each(mem, llm, monkeypatch):
    # The instructions, the tool's schema and the chat template take ~2,000 tokens of the
    # prompt, the answer 2,000: 5,000 leaves room for about ten of these entries a batch.
    monkeypatch.setenv("MEM_LLM_CONTEXT_TOKENS", "5000")
    for i in range(30):
        mem("log", "--at", f"2026-11-26T10:{i:02d}", f"Entry {i}: " + "settlement detail " * 30)
    answers = [skipping_all(f"[2026-11-26 10:{i:02d}] Batch {i}.") for i in range(20)]
    llm.push(*answers)
    out = run(mem, llm).stdout
    n = len(llm.requests)
    assert n >= 3 and f"{n} batches" in out
    subjects = [c.message for c in git.Repo(mem.root).iter_commits(max_count=n)]
    assert all(s.startswith("consolidate:") for s in subjects)
    assert mem.json("status")["consolidation"]["pending"] == 0


def test_offline_provider_on_the_example_workspace(example):
    before = (example.root / "USER.md").read_text(encoding="utf-8")
    data = example.json("consolidate", "--provider", "offline", "--now", "2026-11-28T09:00")
    assert data["provider"].startswith("offline")
    edits = [e for b in data["batches"] for e in b["edits"] if e["status"] == "applied"]
    ops = {(e["file"], e["op"]) for e in edits}
    assert ("USER", "deprecate") in ops and ("MEMORY", "deprecate") in ops
    user = (example.root / "USER.md").read_text(encoding="utf-8")
    assert (
        "~~Mainly uses Python for backend work (主要用 Python 写后端).~~ (deprecated 2026-11-24"
        in user
    )
    # In the third person: the line is about the user, not spoken by them (issue 34).
    assert "现在主要用Go写后端了" in user and "我现在主要用Go" not in user
    assert "Saturday mornings" in user and "Makefile" in user
    # "I plan to write a blog series … after it ships" names no time: a passing thought.
    assert "blog series" not in user
    for line in before.splitlines():  # every hand-written line survives, or was struck through
        assert line in user or f"~~{line[2:].split(' <!--')[0]}~~" in user
    memory = (example.root / "MEMORY.md").read_text(encoding="utf-8")
    assert "December 15" in memory and "~~2026-11-18: the settlement worker moves to Go" in memory
    assert "sk-proj" not in memory + user
    assert data["redacted"] == 1


def test_auto_consolidate_runs_in_the_background_after_mem_log(mem):
    settings(
        mem.root,
        "[consolidate]\nauto_consolidate = true\nmemory_window = 3\nkeep_recent = 1\n"
        'provider = "offline"\n',
    )
    mem("commit", "-m", "settings")
    mem("log", "--at", "2026-11-25T09:00", "--role", "user", "I plan to run a marathon in spring.")
    repo = git.Repo(mem.root)
    for _ in range(150):
        if repo.head.commit.message.startswith("consolidate:"):
            break
        time.sleep(0.1)
    else:
        log = mem.root / ".mem" / "consolidate.log"
        pytest.fail(log.read_text(encoding="utf-8") if log.exists() else "no background run")
    assert "I plan to run a marathon" not in (mem.root / "USER.md").read_text(encoding="utf-8")
    assert mem.json("status")["consolidation"]["pending"] == 1  # the newest waits its turn


@pytest.mark.slow
def test_mem_log_never_waits_for_the_model_auto_consolidate_asks(mem, llm, monkeypatch):
    for key, value in {
        "CONSOLIDATE_AUTO_CONSOLIDATE": "true",
        "CONSOLIDATE_MEMORY_WINDOW": "3",
        "CONSOLIDATE_KEEP_RECENT": "1",
        "CONSOLIDATE_PROVIDER": "openai",
        "LLM_BASE_URL": llm.url,
        "LLM_MODEL": "slow-model",
        "LLM_MAX_RETRIES": "0",
    }.items():
        monkeypatch.setenv(f"MEM_{key}", value)
    llm.push(("hang", 4))  # the model takes 4 s; the background run gives up after 2
    start = time.monotonic()
    mem("log", "--at", "2026-11-25T09:00", "--role", "user", "I plan to run a marathon.")
    assert time.monotonic() - start < 2  # the turn is acknowledged, the model still thinking
    for _ in range(100):  # the background run did ask it
        if llm.requests:
            break
        time.sleep(0.05)
    assert llm.requests and llm.requests[0]["model"] == "slow-model"
    log = mem.root / ".mem" / "consolidate.log"
    for _ in range(100):  # let it end before the workspace is removed
        if "did not answer" in (log.read_text(encoding="utf-8") if log.exists() else ""):
            break
        time.sleep(0.1)


def test_a_keyless_local_endpoint_gets_no_authorization_header(mem, llm):
    llm.push(tool_call(GOOD))
    run(mem, llm)
    assert llm.headers and all("authorization" not in h for h in llm.headers)


def test_a_key_is_sent_when_there_is_one(mem, llm, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-key-not-real")
    llm.push(tool_call(GOOD))
    run(mem, llm)
    assert llm.headers[-1]["authorization"] == "Bearer sk-test-key-not-real"


def test_every_line_a_model_writes_names_its_source(mem, llm):
    llm.push(tool_call(GOOD))
    run(mem, llm)
    for name in ("USER.md", "MEMORY.md"):
        text = (mem.root / name).read_text(encoding="utf-8")
        for line in text.splitlines():
            if is_live_bullet(line) and record(mem.root, name[:-3], core(line)):  # mem's line
                assert sources(line) and sources(line)[0].startswith("memory/2026-11-24.md#L")
    hits = mem.json("recall", "--explain", "golangci-lint gofumpt")["results"]
    curated = [h for h in hits if h["path"] == "MEMORY.md"]
    assert curated and curated[0]["explain"]["src"] == "memory/2026-11-24.md#L12-L13"
    got = mem("get", curated[0]["explain"]["src"]).stdout  # the source opens as it is cited
    assert "golangci-lint" in got
    context = mem.json("context", "golangci-lint gofumpt")
    assert any(m["src"] for group in context["memories"].values() for m in group)


def test_user_md_over_its_budget_names_what_could_go(mem, llm, monkeypatch):
    monkeypatch.setenv("MEM_CONSOLIDATE_USER_BUDGET", "50")
    llm.push(tool_call(GOOD))
    result = run(mem, llm)
    assert "over consolidate.user_budget = 50" in result.stderr
    assert "USER.md:" in result.stderr and "importance" in result.stderr


def _edit(text: str, file: str = "USER") -> dict:
    return {
        "file": file,
        "op": "add",
        "section": "Preferences",
        "text": text,
        "type": "preference",
        "importance": 0.6,
        "confidence": 0.9,
        "sources": [1],
    }


def _name(i: int) -> str:
    """A made-up word for each number: zb, zc, … (letters, so no two lines share it)."""
    word = ""
    while True:
        i, r = divmod(i, 26)
        word += "abcdefghijklmnopqrstuvwxyz"[r]
        if not i:
            return "zq" + word


def test_an_answer_of_two_thousand_edits_writes_within_the_limits_and_holds_the_rest(mem, llm):
    # Lines that all cite one entry that says them (Go), each naming a tool of its own: no
    # two say the same thing (near-duplicates are held before the caps, test_small_round_two).
    edits = [_edit(f"Uses Go with the {_name(i)} tool (note {i})") for i in range(2000)]
    llm.push(tool_call({"history_entry": "[2026-11-24 09:05] Go.", "edits": edits, "skip": []}))
    run(mem, llm)
    user = (mem.root / "USER.md").read_text(encoding="utf-8")
    assert user.count("(note ") == 20  # consolidate.max_new_lines
    waiting = mem.json("review")["proposals"]
    reasons = [e["heldBecause"] for p in waiting for e in p["edits"]]
    assert len(reasons) == 1980  # none silently dropped
    assert sum("consolidate.max_edits = 50" in r for r in reasons) == 1950
    assert sum("consolidate.max_new_lines" in r for r in reasons) == 30


def test_a_line_of_a_megabyte_waits_in_review_instead_of_entering_user_md(mem, llm):
    huge = "Uses Go for backend work " + "and Python for scripts " * 45_000
    llm.push(tool_call({"history_entry": "[2026-11-24 09:05] Go.", "edits": [_edit(huge)]}))
    assert run(mem, llm, ok=False).exit_code == 12  # its one edit waits: nothing written
    assert max(map(len, (mem.root / "USER.md").read_text(encoding="utf-8").splitlines())) < 500
    (waiting,) = mem.json("review")["proposals"]
    assert "over consolidate.max_line_chars = 400" in waiting["edits"][0]["heldBecause"]
