"""A daily log that is not UTF-8 is reported by path and skipped; it is never rewritten."""

from __future__ import annotations

import json

GBK_TEXT = "# 2026-11-29\n\n## 09:00 · user\n我最近在用FastAPI做项目\n\n".encode("gbk")


def test_gbk_log_is_skipped_by_status_and_left_untouched(ws):
    bad = ws.root / "memory" / "2026-11-29.md"
    bad.write_bytes(GBK_TEXT)
    ws("log", "--at", "2026-11-30T09:00", "hello")
    result = ws("status", "--json")
    data = json.loads(result.stdout)
    assert "memory/2026-11-29.md is not valid UTF-8" in result.stderr
    assert data["warnings"] and "memory/2026-11-29.md" in data["warnings"][0]
    assert bad.read_bytes() == GBK_TEXT


def test_log_refuses_to_append_to_a_gbk_day_file(ws):
    bad = ws.root / "memory" / "2026-11-29.md"
    bad.write_bytes(GBK_TEXT)
    result = ws("log", "--at", "2026-11-29T10:00", "more text", ok=False)
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1
    assert "memory/2026-11-29.md is not valid UTF-8" in result.stderr
    assert "Traceback" not in result.stderr
    assert bad.read_bytes() == GBK_TEXT


def test_ingest_skips_nothing_silently_but_never_rewrites(ws, tmp_path):
    bad = ws.root / "memory" / "2026-11-29.md"
    bad.write_bytes(GBK_TEXT)
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(
        json.dumps({"role": "user", "content": "hi", "timestamp": "2026-11-29T11:00:00"}) + "\n",
        encoding="utf-8",
    )
    result = ws("ingest", str(transcript), ok=False)
    assert result.exit_code == 2 and "not valid UTF-8" in result.stderr
    assert bad.read_bytes() == GBK_TEXT


def test_non_utf8_stdin_is_refused(ws):
    result = ws("log", "-", input="中文".encode("gbk"), ok=False)
    assert result.exit_code == 2
    assert "standard input is not valid UTF-8" in result.stderr
    assert not list((ws.root / "memory").glob("*.md"))
