"""`mem eval`: recall@k and MRR of the user's own queries against their own workspace."""

from __future__ import annotations

import json

import pytest

from openclaw_mem.errors import UsageError
from openclaw_mem.services.evaluating import (
    EvalQuery,
    EvalRun,
    Expected,
    QueryOutcome,
    parse_expected,
    parse_overrides,
    parse_queries,
)

NOW = "2026-11-28T09:00"

QUERIES = """\
k: 3
queries:
  - query: "backup schedule"
    expect: memory/2026-11-24.md
  - query: "什么时候去杭州出差"
    expect: ["MEMORY.md#L999", "memory/2026-11-25.md#L3"]
  - query: "green tea"
    expect: memory/2026-11-24.md#L3-L4
  - query: "quantum chromodynamics"
    expect: memory/2026-11-26.md
"""


@pytest.fixture
def logged(ws):
    ws("log", "--role", "user", "--at", "2026-11-24T09:00", "Nightly backup schedule: 03:00.")
    ws("log", "--role", "user", "--at", "2026-11-25T10:00", "下周五去杭州出差，见客户。")
    ws("log", "--role", "user", "--at", "2026-11-26T11:00", "I prefer green tea to coffee.")
    return ws


def write(ws, text: str, name: str = "eval/queries.yaml"):
    path = ws.root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def fails(ws, *args: str) -> str:
    """The command exits 2 with one line on stderr, no traceback; that line."""
    result = ws(*args, ok=False)
    assert result.exit_code == 2, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mem: error: "), result.stderr
    assert "Traceback" not in result.stderr
    return lines[0]


# ----------------------------------------------------------------- figures


def test_table_gives_rank_top_hit_and_summary(logged):
    write(logged, QUERIES)
    out = logged("eval", "--now", NOW).stdout
    # Piped (CliRunner is no terminal): tab-separated rows under a header.
    rows = {line.split("\t")[0]: line.split("\t")[1:] for line in out.splitlines() if "\t" in line}
    assert rows["query"] == ["rank", "top hit"]
    assert rows["backup schedule"] == ["1", "memory/2026-11-24.md#L3-L4"]
    assert rows["什么时候去杭州出差"] == ["1", "memory/2026-11-25.md#L3-L4"]
    # Found, but in the wrong place: a miss, with the hit that came first instead.
    assert rows["green tea"] == ["miss", "memory/2026-11-26.md#L3-L4"]
    assert rows["quantum chromodynamics"] == ["miss", "-"]
    assert out.rstrip().splitlines()[-1] == "recall@3 0.50 (2/4), MRR 0.50"


def test_json_shape(logged):
    write(logged, QUERIES)
    data = logged.json("eval", "--now", NOW)
    assert data["file"] == "eval/queries.yaml"
    assert data["k"] == 3 and data["settings"] == {}
    assert (data["queries"], data["found"]) == (4, 2)
    assert data["recallAtK"] == 0.5 and data["mrr"] == 0.5
    assert data["misses"] == ["green tea", "quantum chromodynamics"]
    first, second, third, fourth = data["results"]
    assert first == {
        "query": "backup schedule",
        "expect": ["memory/2026-11-24.md"],
        "rank": 1,
        "hit": "memory/2026-11-24.md#L3-L4",
        "hits": ["memory/2026-11-24.md#L3-L4"],
    }
    assert second["expect"] == ["MEMORY.md#L999", "memory/2026-11-25.md#L3"]
    assert second["rank"] == 1 and second["hit"] == "memory/2026-11-25.md#L3-L4"
    assert third["rank"] is None and third["hit"] is None
    assert third["hits"][0] == "memory/2026-11-26.md#L3-L4"
    assert fourth == {**fourth, "rank": None, "hits": []}


def test_k_from_the_command_line_then_the_file_then_recall_k(logged):
    write(logged, QUERIES)
    assert logged.json("eval", "--now", NOW, "-k", "1")["k"] == 1
    write(logged, QUERIES.replace("k: 3\n", ""))
    assert logged.json("eval", "--now", NOW)["k"] == 6  # recall.k's default


def test_a_hit_must_overlap_the_expected_lines(logged):
    write(
        logged,
        'queries:\n  - query: "backup schedule"\n    expect: memory/2026-11-24.md#L5-L9\n'
        '  - query: "backup schedule"\n    expect: memory/2026-11-24.md#L4\n',
    )
    data = logged.json("eval", "--now", NOW)
    assert [r["rank"] for r in data["results"]] == [None, 1]


def test_evaluating_does_not_record_access(logged):
    write(logged, QUERIES)
    access = logged.root / ".mem" / "access.json"
    before = access.read_bytes() if access.exists() else None
    logged("eval", "--now", NOW)
    assert (access.read_bytes() if access.exists() else None) == before
    logged("recall", "--no-daemon", "backup schedule")
    assert access.exists() and access.read_bytes() != before  # recall itself does record


def test_file_option_and_a_bare_list(logged):
    write(logged, '- query: "green tea"\n  expect: memory/2026-11-26.md\n', "eval/tea.yml")
    data = logged.json("eval", "--file", "eval/tea.yml", "--now", NOW)
    assert data["file"] == "eval/tea.yml" and data["found"] == 1
    absolute = str(logged.root / "eval" / "tea.yml")
    assert logged.json("eval", "-f", absolute, "--now", NOW)["file"] == "eval/tea.yml"


def test_an_expected_file_that_does_not_exist_is_a_warning(logged):
    write(logged, QUERIES)
    result = logged("eval", "--now", NOW)
    assert "query 4 expects memory/2026-11-26.md" not in result.stderr  # it exists
    write(logged, 'queries:\n  - query: "green tea"\n    expect: memory/2026-12-01.md\n')
    result = logged("eval", "--now", NOW)
    assert "mem: warning: eval/queries.yaml: query 1 expects memory/2026-12-01.md" in (
        result.stderr
    )
    assert result.stdout.rstrip().endswith("recall@6 0.00 (0/1), MRR 0.00")


# ----------------------------------------------------------------- --compare


def test_compare_prints_both_runs_and_rank_changes(logged):
    write(logged, QUERIES)
    out = logged("eval", "--now", NOW, "--compare", "recall.k=1").stdout
    lines = out.rstrip().splitlines()
    assert "recall.k=1" in lines[0] and "base" in lines[0]
    assert lines[-2] == "base        recall@3 0.50 (2/4), MRR 0.50"
    assert lines[-1] == "recall.k=1  recall@1 0.50 (2/4), MRR 0.50"


def test_compare_json_and_changes(logged):
    # Both weights 0 and a floor above 0: nothing scores enough, every query misses.
    write(logged, QUERIES)
    flags = ("--compare", "recall.vector_weight=0", "--compare", "recall.text_weight=0")
    flags += ("--compare", "recall.min_score=0.01")
    data = logged.json("eval", "--now", NOW, *flags)
    assert set(data) == {"base", "compare", "changes"}
    assert data["base"]["found"] == 2 and data["base"]["settings"] == {}
    assert data["compare"]["settings"] == {
        "recall.vector_weight": 0.0,
        "recall.text_weight": 0.0,
        "recall.min_score": 0.01,
    }
    assert data["compare"]["found"] == 0
    assert data["changes"] == [
        {"query": "backup schedule", "before": 1, "after": None},
        {"query": "什么时候去杭州出差", "before": 1, "after": None},
    ]
    out = logged("eval", "--now", NOW, *flags).stdout
    rows = {
        cells[0]: cells[1:]
        for line in out.splitlines()
        if "\t" in line
        for cells in [line.split("\t")]
    }
    assert rows["backup schedule"] == ["1", "miss", "lost"]
    assert rows["green tea"] == ["miss", "miss", ""]


@pytest.mark.parametrize(
    ("pair", "message"),
    [
        ("recall.vector_wieght=0.5", "unknown setting 'recall.vector_wieght'"),
        ("recall.vector_weight", "--compare takes KEY=VALUE"),
        ("=3", "--compare takes KEY=VALUE"),
        ("recall.k=many", "recall.k on the command line must be a int"),
        ("recall.vector_weight=-1", "must be at least 0"),
        ("recall.similarity=cosine", "must be one of membership, containment, jaccard"),
        ("index.chunk_tokens=20", "would rebuild this workspace's index"),
        ("recall.similarity=containment", "would rebuild this workspace's index"),
    ],
)
def test_compare_errors(logged, pair, message):
    write(logged, QUERIES)
    assert message in fails(logged, "eval", "--compare", pair)


def test_parse_overrides_keeps_text_for_the_registry_to_type():
    assert parse_overrides(["recall.k=3", " recall.vector_weight = 0.5 ", "recall.k=4"]) == {
        "recall.k": "4",
        "recall.vector_weight": "0.5",
    }


# ----------------------------------------------------------------- bad files


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("queries: [\n", "eval/queries.yaml is not valid YAML (line"),
        ("", "eval/queries.yaml is empty"),
        ("just text\n", "must hold `queries:`"),
        ("queries: []\n", "needs a `queries:` list with at least one query"),
        ("k: 3\n", "needs a `queries:` list"),
        ("qeries:\n  - query: a\n", "unknown key 'qeries'"),
        ("k: 0\nqueries:\n  - {query: a, expect: MEMORY.md}\n", "k must be a whole number"),
        ("k: -2\nqueries:\n  - {query: a, expect: MEMORY.md}\n", "k must be a whole number"),
        ("k: 2.5\nqueries:\n  - {query: a, expect: MEMORY.md}\n", "k must be a whole number"),
        ("k: yes\nqueries:\n  - {query: a, expect: MEMORY.md}\n", "k must be a whole number"),
        ("queries:\n  - expect: MEMORY.md\n", "query 1 has no `query:`"),
        ("queries:\n  - {query: '  ', expect: MEMORY.md}\n", "query 1: `query:` is empty"),
        ("queries:\n  - {query: 2026-11-24, expect: MEMORY.md}\n", "must be text"),
        ("queries:\n  - query: a\n", "query 1 ('a') needs `expect:`"),
        ("queries:\n  - {query: a, expect: []}\n", "needs `expect:`"),
        ("queries:\n  - {query: a, expect: ''}\n", "an empty expectation"),
        ("queries:\n  - {query: a, expect: [3]}\n", "`expect:` holds 3"),
        ("queries:\n  - {query: a, expect: 'x.md#L5-L2'}\n", "the range ends before"),
        ("queries:\n  - {query: a, expect: 'x.md#top'}\n", "is not an expectation"),
        ("queries:\n  - {query: a, expect: '../x.md'}\n", "relative to the workspace"),
        ("queries:\n  - {query: a, expect: x.md, k: 3}\n", "unknown key 'k'"),
        ("queries:\n  - a question\n", "query 1 must be a mapping"),
    ],
)
def test_bad_queries_file(logged, text, message):
    write(logged, text)
    assert message in fails(logged, "eval")


def test_missing_and_outside_files(logged, tmp_path):
    assert "eval/queries.yaml does not exist" in fails(logged, "eval")
    assert "nope.yaml does not exist" in fails(logged, "eval", "--file", "nope.yaml")
    assert "`..` is not allowed" in fails(logged, "eval", "--file", "../q.yaml")
    outside = tmp_path / "q.yaml"
    outside.write_text(QUERIES, encoding="utf-8")
    assert "must be inside the workspace" in fails(logged, "eval", "-f", str(outside))
    (logged.root / "eval").mkdir()
    assert "eval is not a file" in fails(logged, "eval", "-f", "eval")


def test_symlinked_and_non_utf8_files_are_refused(logged, tmp_path):
    outside = tmp_path / "q.yaml"
    outside.write_text(QUERIES, encoding="utf-8")
    (logged.root / "eval").mkdir()
    (logged.root / "eval" / "queries.yaml").symlink_to(outside)
    assert "is a symlink" in fails(logged, "eval")
    (logged.root / "eval" / "gbk.yaml").write_bytes("queries: 杭州".encode("gbk"))
    assert "is not valid UTF-8" in fails(logged, "eval", "-f", "eval/gbk.yaml")


def test_utf8_bom_is_accepted(logged):
    (logged.root / "eval").mkdir()
    (logged.root / "eval" / "queries.yaml").write_bytes(b"\xef\xbb\xbf" + QUERIES.encode())
    assert logged.json("eval", "--now", NOW)["found"] == 2


# ----------------------------------------------------------------- the library's pieces


def test_expectations_parse_and_overlap():
    assert parse_expected("./memory/a.md") == Expected("memory/a.md")
    assert parse_expected("MEMORY.md#L12") == Expected("MEMORY.md", 12, 12)
    assert parse_expected("MEMORY.md#L3-L7") == Expected("MEMORY.md", 3, 7)
    assert parse_expected("MEMORY.md#L3-7").spec == "MEMORY.md#L3-L7"
    for bad in ("", "/etc/passwd", "a/../b.md", "x.md#L0", "x.md#12"):
        with pytest.raises(UsageError):
            parse_expected(bad)
    e = Expected("m.md", 5, 8)
    assert e.matches("m.md", 8, 10) and e.matches("m.md", 1, 5) and e.matches("m.md", 6, 7)
    assert not e.matches("m.md", 9, 12) and not e.matches("m.md", 1, 4)
    assert not e.matches("n.md", 5, 8)
    assert Expected("m.md").matches("m.md", 100, 120)


def test_metrics_from_ranks():
    def outcome(rank):
        return QueryOutcome(EvalQuery(f"q{rank}", (Expected("m.md"),)), rank, ())

    run = EvalRun("eval/queries.yaml", 5, tuple(outcome(r) for r in (1, 2, None, 4)))
    assert (run.found, run.total) == (3, 4)
    assert run.recall_at_k == 0.75
    assert run.mrr == pytest.approx((1 + 1 / 2 + 1 / 4) / 4)
    assert run.misses == ["qNone"]
    assert run.summary() == "recall@5 0.75 (3/4), MRR 0.44"
    assert json.loads(json.dumps(run.to_json()))["mrr"] == 0.4375
    empty = EvalRun("eval/queries.yaml", 5, ())
    assert (empty.recall_at_k, empty.mrr) == (0.0, 0.0)


def test_parse_queries_accepts_one_or_many_expectations():
    qs = parse_queries({"k": 2, "queries": [{"query": "a", "expect": "x.md"}]}, "q.yaml")
    assert qs.k == 2 and qs.queries[0].expect == (Expected("x.md"),)
    qs = parse_queries([{"query": "a", "expect": ["x.md", "y.md#L2"]}], "q.yaml")
    assert qs.k is None and [e.spec for e in qs.queries[0].expect] == ["x.md", "y.md#L2"]
