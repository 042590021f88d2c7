"""No secret reaches a model, a curated file, HISTORY.md, a commit message, the terminal,
`mem context` or MCP; daily logs stay verbatim, `mem status` says where a secret sits, and
`mem forget --hard` takes it out. (The patterns themselves: tests/test_secrets.py.)"""

from __future__ import annotations

import json

import git
import pytest
from helpers import settings
from llm_server import tool_call

SECRETS = {
    "aws": "aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "stripe": "sk_live_51HxExampleExampleExample00",
    "url": "postgres://admin:S3cretPassw0rd@db.internal/app",
    "openai": "sk-proj-abcdefghijklmnopqrstuvwx",
    "pem": "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA1234567890abcdef\n"
    "-----END RSA PRIVATE KEY-----",
}
NEEDLES = ("wJalrXUtnFEMI", "sk_live_51Hx", "S3cretPassw0rd", "sk-proj-abcdef", "MIIEpAIBAAK")


def _clean(text: str) -> bool:
    return not any(n in text for n in NEEDLES)


@pytest.fixture
def leaky(ws):
    turns = [
        f"Remember: the staging database is {SECRETS['url']}",
        f"I'm using Stripe with {SECRETS['stripe']} for the shop",
        f"my aws keys: {SECRETS['aws']} and AKIAIOSFODNN7EXAMPLE",
        f"Remember: the deploy key is\n{SECRETS['pem']}",
    ]
    for i, text in enumerate(turns):
        ws("log", "--at", f"2026-11-30T09:0{i}", "--role", "user", text)
    return ws


def _everything_but_logs(root) -> str:
    repo = git.Repo(root)
    messages = "\n".join(c.message for c in repo.iter_commits())
    files = "\n".join(
        (root / name).read_text(encoding="utf-8")
        for name in ("MEMORY.md", "USER.md", "AGENTS.md", "HISTORY.md")
    )
    return messages + files


def test_the_offline_provider_writes_no_secret(leaky):
    out = leaky("consolidate", "--provider", "offline", "--now", "2026-11-30T10:00")
    assert _clean(out.stdout + out.stderr)
    assert _clean(_everything_but_logs(leaky.root))
    log = (leaky.root / "memory" / "2026-11-30.md").read_text(encoding="utf-8")
    assert SECRETS["stripe"] in log  # the log itself stays verbatim


def test_nothing_secret_is_sent_to_the_model(leaky, llm):
    llm.push(tool_call({"history_entry": "[2026-11-30 09:03] Infra notes.", "edits": []}))
    result = leaky(
        "consolidate",
        "--provider",
        "openai",
        "--base-url",
        llm.url,
        "--now",
        "2026-11-30T10:00",
        ok=False,
    )
    assert result.exit_code == 12  # an answer with nothing to use (issue 41)
    assert _clean(json.dumps(llm.requests, ensure_ascii=False))


def test_a_secret_in_the_models_answer_is_never_quoted(leaky, llm):
    answer = {
        "history_entry": f"[2026-11-30 09:03] Stored {SECRETS['openai']} for the team.",
        "edits": [
            {
                "file": "MEMORY",
                "op": "add",
                "section": "Facts",
                "text": f"Stripe API key is {SECRETS['openai']}",
                "type": "fact",
                "importance": 0.9,
                "confidence": 0.9,
                "sources": [2],
            },
            {
                "file": "MEMORY",
                "op": "add",
                "section": "Facts",
                "text": "AKIAIOSFODNN7EXAMPLE and password=hunter2hunter2",
                "type": "fact",
                "importance": 0.9,
                "confidence": 0.9,
                "sources": [1],
            },
            {
                "file": "MEMORY",
                "op": "add",
                "section": "Facts",
                "text": "The shop uses Stripe.",
                "type": "fact",
                "importance": 0.7,
                "confidence": 0.9,
                "sources": [2],
            },
            {  # cites nothing: refused by the reader, and still not quoted
                "file": "MEMORY",
                "op": "add",
                "text": f"Backup key {SECRETS['stripe']}",
                "type": "fact",
                "importance": 0.7,
                "confidence": 0.9,
            },
        ],
    }
    for flag in ("", "--json"):
        llm.push(tool_call(answer))
        args = ["consolidate", "--provider", "openai", "--base-url", llm.url]
        args += ["--now", "2026-11-30T10:00", "--dry-run"] + ([flag] if flag else [])
        out = leaky(*args)
        assert _clean(out.stdout + out.stderr) and "hunter2" not in out.stdout
        # The secret-quoting line is held (E1 as sent says only [REDACTED]) or withheld.
        assert any(w in out.stdout for w in ("withheld", "held for review", '"review"'))
    llm.push(tool_call(answer))
    leaky("consolidate", "--provider", "openai", "--base-url", llm.url, "--now", "2026-11-30T10:00")
    everything = _everything_but_logs(leaky.root)
    assert _clean(everything) and "hunter2" not in everything and "AKIAIOSFODNN7" not in everything
    assert "The shop uses Stripe." in (leaky.root / "MEMORY.md").read_text(encoding="utf-8")


def test_recall_context_get_and_mcp_show_no_secret(leaky):
    assert _clean(leaky("recall", "--json", "staging database stripe aws").stdout)
    assert _clean(leaky("recall", "staging database stripe aws").stdout)
    assert _clean(leaky("context", "staging database").stdout)
    assert _clean(leaky("get", "memory/2026-11-30.md").stdout)
    assert "[REDACTED]" in leaky("get", "memory/2026-11-30.md").stdout


def test_status_says_where_a_secret_sits_and_forget_hard_takes_it_out(leaky):
    warnings = leaky("status").stderr
    assert "memory/2026-11-30.md:4 holds what looks like" in warnings and _clean(warnings)
    leaky("forget", "--hard", "memory/2026-11-30.md:4")
    log = (leaky.root / "memory" / "2026-11-30.md").read_text(encoding="utf-8")
    assert SECRETS["url"] not in log and "[forgotten" in log


def test_log_redact_redacts_at_append_time(ws):
    settings(ws.root, "[log]\nredact = true\n")
    ws("log", "--at", "2026-11-30T09:00", f"key {SECRETS['stripe']}")
    log = (ws.root / "memory" / "2026-11-30.md").read_text(encoding="utf-8")
    assert SECRETS["stripe"] not in log and "[REDACTED]" in log


def test_an_error_never_echoes_a_key(ws, runner):
    from openclaw_mem.cli import app

    result = runner.invoke(app, ["status", SECRETS["pem"].replace("\n", " ")])
    assert result.exit_code == 2 and "MIIEpAIBAAK" not in result.stderr
    result = runner.invoke(app, ["-w", str(ws.root), "config", SECRETS["openai"]])
    assert result.exit_code == 6 and "sk-proj-abcdef" not in result.stderr


def test_half_a_secret_is_still_a_secret(leaky, tmp_path):
    # The middle lines of a private key, asked for without its BEGIN line.
    log = (leaky.root / "memory" / "2026-11-30.md").read_text(encoding="utf-8").splitlines()
    body = next(n for n, line in enumerate(log, 1) if line.startswith("MIIEpAIBAAK"))
    shown = leaky("get", f"memory/2026-11-30.md:{body}:1").stdout
    assert "MIIEpAIBAAK" not in shown and "[REDACTED]" in shown
    # mem context cuts long entries: the key is hidden before the cut, never half of it.
    long = "note " * 35 + "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789"
    leaky("log", "--at", "2026-11-30T09:09", "--role", "user", long)
    out = leaky("context", "--now", "2026-11-30T10:00", "note").stdout
    assert "sk-proj-abcdef" not in out and "sk-proj" not in out


def test_an_embedding_request_carries_no_secret(ws, llm, monkeypatch):
    monkeypatch.setenv("MEM_EMBED_PROVIDER", "openai")
    monkeypatch.setenv("MEM_EMBED_BASE_URL", llm.url)
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    ws("log", "--at", "2026-11-30T09:00", f"deploy uses {SECRETS['stripe']} for payments")
    ws("recall", "payments", ok=False)
    sent = "".join(str(r) for r in llm.embed_requests)
    assert llm.embed_requests and "sk_live_51Hx" not in sent and "[REDACTED]" in sent


def test_one_endless_line_is_recalled_by_its_head_with_its_secrets_hidden(ws):
    """A log of one 46 MB line took minutes a recall: supersession and the secret scan read
    the whole chunk for a snippet of 700 characters. They read its head now; a key at the
    head is still hidden, and the line states nothing that supersedes."""
    from openclaw_mem.search.currency import MAX_STATEMENT, read_statement

    key = "ghp_" + "a1B2c3D4" * 5
    words = " ".join(
        f"w{i % 997} uniqbigword" if i % 50 == 0 else f"w{i % 997}" for i in range(60_000)
    )
    line = f"I moved to Porto, token {key} " + words
    (ws.root / "memory" / "2026-10-06.md").write_text(
        f"# 2026-10-06\n\n## 09:00 · user\n{line}\n", encoding="utf-8"
    )
    hits = ws.json("recall", "-k", "3", "uniqbigword")["results"]
    assert hits and hits[0]["path"] == "memory/2026-10-06.md"
    assert all(key[:12] not in h["snippet"] for h in hits)
    assert "I moved to Porto" in hits[0]["snippet"]
    said = read_statement(line)
    assert len(line) > MAX_STATEMENT and not said.changes and said.sentences == ()
