"""Proposals and `mem review`, the tool modes, the strict-mode schema, the cost ledger."""

from __future__ import annotations

import json
import shlex
import sys

import git
from helpers import settings, snapshot
from llm_server import tool_call
from test_consolidate import GOOD, mem, run  # noqa: F401


def test_propose_then_review_with_a_rejected_and_a_reworded_edit(mem, llm, monkeypatch):  # noqa: F811
    llm.push(tool_call(GOOD))
    before = snapshot(mem.root)
    out = run(mem, llm, "--propose").stdout
    assert "kept for review: mem review " in out
    assert snapshot(mem.root) == before  # nothing written, nothing committed
    waiting = mem.json("review")["proposals"]
    # The batch, and apart from it the edit the provenance check held (E1 says nothing of tea)
    assert len(waiting) == 2
    batch = next(p for p in waiting if p["historyEntry"])
    held = next(p for p in waiting if not p["historyEntry"])
    assert len(batch["edits"]) == 2 and held["edits"][0]["text"] == "Likes tea, maybe."
    ident = batch["id"]
    assert mem.json("status")["consolidation"]["proposals"] == 2
    assert "wait for the user's review" in mem("context", "backend").stdout
    assert "nothing to do" in run(mem, llm).stdout  # the entries wait in the proposal

    shown = mem("review", ident).stdout
    assert "+- Go code is checked with golangci-lint" in shown and "--accept-all" in shown
    # An action that says nothing or two things at once is refused, not shown or guessed.
    for wrong in (("--reject", "1"), ("--accept", "--drop"), ("--accept-all", "--reject", "1")):
        refused = mem("review", ident, *wrong, ok=False)
        assert refused.exit_code == 2 and refused.stdout == "", (wrong, refused.stdout)
    assert snapshot(mem.root) == before
    # Reword edit 2 in "the editor": a script that writes the new wording into the file.
    script = (
        "import sys; open(sys.argv[1], 'w').write('Go style: golangci-lint + gofumpt, always.')"
    )
    monkeypatch.setenv("EDITOR", f"{sys.executable} -c {shlex.quote(script)}")
    monkeypatch.delenv("VISUAL", raising=False)
    mem("review", ident, "--edit", "2")
    result = mem("review", ident, "--reject", "1", "--accept")
    assert "committed" in result.stdout
    user = (mem.root / "USER.md").read_text(encoding="utf-8")
    memory = (mem.root / "MEMORY.md").read_text(encoding="utf-8")
    assert "~~Mainly uses Python" not in user  # edit 1 rejected
    assert "- Go style: golangci-lint + gofumpt, always." in memory  # edit 2 reworded
    head = git.Repo(mem.root).head.commit
    assert head.message.startswith("consolidate: +1")
    assert [p["id"] for p in mem.json("review")["proposals"]] == [held["id"]]
    # E1, whose only edit the person rejected, was deliberately dropped; E3 curated.
    assert mem.json("status")["consolidation"]["pending"] == 0


def test_a_dropped_proposal_is_proposed_again(mem, llm):  # noqa: F811
    llm.push(tool_call(GOOD))
    run(mem, llm, "--propose")
    # The batch, not the edit held apart from it: ids order by a digest that holds the
    # scripted server's port, so [0] is the held one in about one run in seven.
    ident = next(p["id"] for p in mem.json("review")["proposals"] if p["historyEntry"])
    mem("review", ident, "--drop")
    llm.push(tool_call(GOOD))
    assert "committed" in run(mem, llm).stdout


def test_auto_with_review_on_proposes(mem, llm):  # noqa: F811
    settings(mem.root, "[consolidate]\nreview = true\nmemory_window = 1\nkeep_recent = 0\n")
    llm.push(tool_call(GOOD))
    assert "kept for review" in run(mem, llm, "--auto").stdout


def test_an_endpoint_without_tools_gets_the_json_in_its_message(mem, llm):  # noqa: F811
    llm.push(
        ("status", 400, "tools are not supported by this model"),
        ("text", "```json\n" + json.dumps(GOOD) + "\n```"),
    )
    run(mem, llm)
    assert "tools" in llm.requests[0] and "tools" not in llm.requests[1]
    assert "Answer with that one JSON object" in llm.requests[1]["messages"][0]["content"]
    assert "~~Mainly uses Python" in (mem.root / "USER.md").read_text(encoding="utf-8")


def test_tool_mode_json_never_sends_tools_and_tools_never_falls_back(mem, llm, monkeypatch):  # noqa: F811
    monkeypatch.setenv("MEM_LLM_TOOL_MODE", "json")
    llm.push(("text", json.dumps(GOOD)))
    run(mem, llm)
    assert "tools" not in llm.requests[-1]
    monkeypatch.setenv("MEM_LLM_TOOL_MODE", "tools")
    mem("log", "--at", "2026-11-24T12:00", "--role", "user", "I'm using Neovim now")
    llm.push(("status", 400, "tools are not supported by this model"))
    result = run(mem, llm, ok=False)
    assert result.exit_code == 7 and "llm.tool_mode = tools" in result.stderr


def test_the_schema_is_valid_in_openai_strict_mode():
    from openclaw_mem.consolidate.schema import SCHEMA, TOOL

    assert TOOL["function"]["strict"] is True

    def check(node):
        if node.get("type") == "object" or "properties" in node:
            assert node.get("additionalProperties") is False
            assert set(node["required"]) == set(node["properties"])
            for sub in node["properties"].values():
                check(sub)
        if "items" in node:
            check(node["items"])
        for word in ("minimum", "maximum", "pattern", "format", "default", "minItems"):
            assert word not in node, word

    check(SCHEMA)


def test_the_ledger_counts_tokens_and_the_budget_stops_auto(mem, llm, monkeypatch):  # noqa: F811
    llm.push(tool_call(GOOD))
    run(mem, llm)
    history = (mem.root / "HISTORY.md").read_text(encoding="utf-8")
    assert "tokens 100+20 on 2026-11-24 (openai test-model @" in history
    tokens = mem.json("status")["consolidation"]["tokens"]
    assert tokens["byDay"]["2026-11-24"] == {"prompt": 100, "completion": 20, "runs": 1}
    assert next(iter(tokens["byModel"].values()))["prompt"] == 100
    settings(
        mem.root,
        "[consolidate]\nmemory_window = 1\nkeep_recent = 0\n[llm]\ndaily_token_budget = 500\n",
    )
    for i in range(3):
        mem("log", "--at", f"2026-11-24T12:0{i}", "--role", "user", f"I plan to ship Atlas v{i}")
    before = snapshot(mem.root)
    out = run(mem, llm, "--auto").stdout
    assert "llm.daily_token_budget = 500" in out and snapshot(mem.root) == before


def test_an_endpoint_that_reports_no_usage_gets_an_estimate_marked_so(mem, llm, monkeypatch):  # noqa: F811
    import llm_server

    reported = llm_server.completion

    def without_usage(message: dict) -> dict:
        return {k: v for k, v in reported(message).items() if k != "usage"}

    monkeypatch.setattr(llm_server, "completion", without_usage)
    llm.push(tool_call(GOOD))
    run(mem, llm)
    history = (mem.root / "HISTORY.md").read_text(encoding="utf-8")
    assert "tokens ~" in history and "tokens 100+20" not in history
    (day,) = mem.json("status")["consolidation"]["tokens"]["byDay"].values()
    assert day["prompt"] > 0 and day["runs"] == 1


def test_proposals_of_one_second_are_listed_in_the_order_they_were_made(tmp_path):
    """Their ids end in a digest of the batch, which sorts any way: the list goes by when
    each was made, not by id."""
    from openclaw_mem.consolidate.review import Pending, load_all, save
    from openclaw_mem.store.workspace import Workspace

    ws = Workspace(tmp_path)
    made = []
    for suffix, paragraph in (("9999", "the batch"), ("0001", "")):  # the later id sorts first
        pending = Pending(f"20261124-120000-{suffix}", "2026-11-24T12:00:00", "x", paragraph)
        made.append(save(ws, pending, new=True))
    assert [p.id for p in load_all(ws)] == made


def test_a_batch_with_nothing_to_review_is_recorded_not_proposed(ws):
    """Issue 44: a --propose run whose batch held no edit (only acknowledgements) left a
    proposal of 0 edits waiting in `mem review`; its paragraph and marks are written as a
    run writes them, and nothing waits."""
    ws("log", "--at", "2026-11-29T10:00", "--role", "user", "ok thanks")
    ws("log", "--at", "2026-11-29T10:01", "--role", "user", "好的")
    done = ws("consolidate", "--provider", "offline", "--propose")
    assert "kept for review" not in done.stdout and "committed" in done.stdout
    assert ws.json("review")["proposals"] == []
    assert "0 entries pending" in ws("status").stdout
    assert "held nothing to keep" in (ws.root / "HISTORY.md").read_text(encoding="utf-8")


def test_two_accepts_of_one_proposal_at_once_apply_it_once(ws):
    """Two `mem review ID --accept-all` at once both applied the proposal: a second commit,
    and HISTORY.md held its paragraph twice. The second reads again under the lock and
    finds no such proposal."""
    import os
    import subprocess

    ws("log", "--at", "2026-11-29T10:00", "--role", "user", "I'm allergic to peanuts.")
    ws("consolidate", "--provider", "offline", "--propose")
    (proposal,) = ws.json("review")["proposals"]
    env = {**os.environ, "MEM_EMBED_PROVIDER": "none"}
    cmd = [sys.executable, "-m", "openclaw_mem", "review", proposal["id"], "--accept-all"]
    both = [subprocess.Popen(cmd, cwd=ws.root, env=env, stdout=subprocess.PIPE) for _ in "ab"]
    codes = sorted(p.wait(60) for p in both)
    assert codes == [0, 4], codes
    history = (ws.root / "HISTORY.md").read_text(encoding="utf-8")
    assert history.count("[2026-11-29 10:00]") == 1, history


def test_a_stray_file_among_the_proposals_is_skipped_not_an_error(ws):
    """A byte that is not UTF-8 in .mem/proposals/y.json made status, context, consolidate
    and review fail ("… is not valid UTF-8; skipped"), though .mem/ is derived state."""
    (ws.root / ".mem" / "proposals").mkdir(parents=True, exist_ok=True)
    (ws.root / ".mem" / "proposals" / "y.json").write_bytes(b"\xff")
    assert ws.json("review")["proposals"] == []
    ws("status")


def test_an_editor_command_that_cannot_be_read_or_saves_other_bytes_is_one_line(ws, monkeypatch):
    ws("log", "--at", "2026-11-29T10:00", "--role", "user", "I'm allergic to peanuts.")
    ws("consolidate", "--provider", "offline", "--propose")
    (proposal,) = ws.json("review")["proposals"]
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", 'vi -x "')
    done = ws("review", proposal["id"], "--edit", "1", ok=False)
    assert done.exit_code == 2 and "cannot read the editor command" in done.stderr
    script = "import sys; open(sys.argv[1], 'wb').write(bytes([206, 210]))"
    monkeypatch.setenv("EDITOR", f"{sys.executable} -c {shlex.quote(script)}")
    done = ws("review", proposal["id"], "--edit", "1", ok=False)
    assert done.exit_code == 2 and "not UTF-8" in done.stderr
