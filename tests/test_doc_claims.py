"""The docs' claims and the tests that hold them (issue 44). A behavioural statement in
README.md or docs/*.md names the test that proves it, as docs/trust.md's promises do (which
paragraphs state behaviour, and what each names: tests/doc_claims_lint.py):
`tests/test_x.py`, `tests/test_x.py::test_name`, or, after a file was named, `::test_name`
and a bare `test_name` in backticks for more tests of that file. This harness fails when a
named file or test does not exist, so a claim cannot point at a test that was renamed or
removed; `CLAIMS` below lists the statements issue 44 found false, each with the test
that now holds its corrected wording."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from doc_claims_lint import DOCS, REPO

# A reference in backticks: a test file (and a test in it), `::name`, a bare test name, or
# a script under bench/.
_REF = re.compile(
    r"`(?:(?P<file>tests/test_\w+\.py)(?:::(?P<test>\w+))?|::(?P<more>test_\w+)"
    r"|(?P<bare>test_\w+)|(?P<bench>bench/\w+\.py))(?:\[[^\]`]*\])?`"
)


def _defines(path: Path, name: str) -> bool:
    text = path.read_text(encoding="utf-8")
    return re.search(rf"^(?:async )?def {re.escape(name)}\(", text, re.M) is not None


def references(text: str) -> list[tuple[int, str, str | None]]:
    """(line, test file, test name or None) for every reference, a bare name resolved to
    the file named last before it in the same document ("" when none was)."""
    out: list[tuple[int, str, str | None]] = []
    current = ""
    for m in _REF.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        if m["file"]:
            current = m["file"]
            out.append((line, current, m["test"]))
        elif m["bench"]:
            out.append((line, m["bench"], None))
        else:
            out.append((line, current, m["more"] or m["bare"]))
    return out


def test_every_test_a_document_names_exists():
    missing, count = [], 0
    for doc in DOCS:
        for line, file, name in references(doc.read_text(encoding="utf-8")):
            count += 1
            where = f"{doc.relative_to(REPO)}:{line}"
            path = REPO / file if file else None
            if path is None or not path.is_file():
                missing.append(f"{where}: {file or 'no test file named before'} {name or ''}")
            elif name and not _defines(path, name):
                missing.append(f"{where}: {file} has no {name}")
    assert count > 100  # not vacuous: the documents name their tests
    assert missing == []


def test_the_harness_resolves_bare_names_and_fails_on_a_missing_one(tmp_path):
    text = (
        "A (`tests/test_docs.py::test_block`, `test_block_checked_without_running`), "
        "B `::test_no_such_thing`, C `bench/startup.py`."
    )
    assert references(text) == [
        (1, "tests/test_docs.py", "test_block"),
        (1, "tests/test_docs.py", "test_block_checked_without_running"),
        (1, "tests/test_docs.py", "test_no_such_thing"),
        (1, "bench/startup.py", None),
    ]
    path = REPO / "tests" / "test_docs.py"
    assert _defines(path, "test_block") and not _defines(path, "test_no_such_thing")
    assert references("`test_orphan`") == [(1, "", "test_orphan")]  # no file: a failure


# Statements issue 44 found false, now reworded: (document, words it says now, the test).
CLAIMS = [
    (
        "docs/guide.md",
        "even with an `OPENAI_API_KEY`",
        "tests/test_private_default.py::"
        "test_an_openai_key_alone_sends_memory_nowhere_and_says_how_to_choose",
    ),
    (
        "docs/configuration.md",
        "an `OPENAI_API_KEY` or `OPENAI_BASE_URL` in the environment alone sends nothing",
        "tests/test_private_default.py::test_auto_reads_no_environment",
    ),
    (
        "docs/commands.md",
        "With\nthe same provider its output is the same on every run and machine",
        "tests/test_demo.py::test_the_demo_honours_the_embedding_provider_and_says_which",
    ),
]


CLAIMS += [
    (
        "docs/commands.md",
        "A line ends with a Markdown link to the entries it\n   came from",
        "tests/test_consolidate.py::test_every_line_a_model_writes_names_its_source",
    ),
    (
        "docs/commands.md",
        "`mem recall` matched nothing (as grep and rg do)",
        "tests/test_pipes.py::test_nothing_found_is_exit_1_as_grep_says",
    ),
    (
        "docs/commands.md",
        "`mem hooks status` found no hook installed",
        "tests/test_hooks_install.py::test_install_into_no_settings_then_uninstall_leaves_nothing",
    ),
    (
        "docs/configuration.md",
        "ends with the comment `<!-- agent: ID -->`",
        "tests/test_agents.py::"
        "test_consolidated_facts_keep_their_agent_and_isolation_makes_them_private",
    ),
    (
        "docs/commands.md",
        "An option a command does not have is an error that names the one\n  it was probably "
        "meant to be",
        "tests/test_doc_claims.py::test_a_mistyped_option_is_named_alike_on_every_route",
    ),
]


def test_a_mistyped_option_is_named_alike_on_every_route(ws):
    """The fast path, the typer per-turn command and any other command say the option a
    mistyped one was probably meant to be, in the same words; `--k` is `-k`."""
    import os
    import subprocess
    import sys

    for args, meant in (
        (["recall", "--k", "3", "x"], "-k"),
        (["log", "--rol", "user", "x"], "--role"),
        (["status", "--jsn"], "--json"),
        (["index", "--rebuil"], "--rebuild"),
        (["consolidate", "--dry-rn"], "--dry-run"),
    ):
        said = ws(*args, ok=False)
        fast = subprocess.run(
            [sys.executable, "-m", "openclaw_mem", "-w", str(ws.root), *args],
            capture_output=True,
            text=True,
            env=dict(os.environ),
        )
        for result, code in ((said, said.exit_code), (fast, fast.returncode)):
            lines = result.stderr.strip().splitlines()
            assert code == 2 and len(lines) == 1, (args, result.stderr)
            assert f"no such option: {args[1]} (did you mean {meant}?)" in lines[0], lines
    nothing = ws("status", "--zzzzz", ok=False).stderr
    assert "did you mean" not in nothing and "no such option: --zzzzz" in nothing


def test_the_commit_subject_counts_what_git_shows(example):
    """+A ~U -D, N deprecated: git shows A + U + N lines added and U + D + N removed in the
    curated files (a struck line is rewritten in place)."""
    import git

    example("consolidate", "--now", "2026-11-28T09:00")
    head = git.Repo(example.root).head.commit
    got = re.fullmatch(
        r"consolidate: \+(\d+) ~(\d+) -(\d+), (\d+) deprecated", head.message.splitlines()[0]
    )
    added, updated, deleted, deprecated = map(int, got.groups())
    curated = [s for f, s in head.stats.files.items() if f in ("USER.md", "MEMORY.md", "AGENTS.md")]
    assert deprecated and sum(s["insertions"] for s in curated) == added + updated + deprecated
    assert sum(s["deletions"] for s in curated) == updated + deleted + deprecated


def test_each_corrected_claim_stands_in_its_document_with_its_test():
    for doc, words, test in CLAIMS:
        text = (REPO / doc).read_text(encoding="utf-8")
        assert " ".join(words.split()) in " ".join(text.split()), (doc, words)
        file, _, name = test.partition("::")
        assert _defines(REPO / file, name), test


def test_the_claims_lint_tells_a_claim_that_names_nothing(tmp_path):
    """doc_claims_lint reads a paragraph that states behaviour as held only when it names
    a test or a bench script, or a console block follows it."""
    import doc_claims_lint as lint

    doc = tmp_path / "x.md"
    doc.write_text(
        "# X\n\nIt never writes a file twice.\n\n"
        "It always exits 2 on a bad flag (`tests/test_cli_contracts.py`).\n\n"
        "A figure (`python bench/startup.py --runs 20`) that keeps.\n\n"
        "It refuses a symlink:\n\n```console\n$ mem get link.md\n```\n\n"
        "A plain description of the folders.\n",
        encoding="utf-8",
    )
    lint.REPO = tmp_path
    try:
        found = {c.line: c for c in lint.claims(doc)}
    finally:
        lint.REPO = REPO
    assert sorted(found) == [3, 5, 7, 9]
    assert not found[3].held
    assert found[5].proofs == ("tests/test_cli_contracts.py",)
    assert found[7].proofs == ("bench/startup.py",)
    assert found[9].shown and found[9].held


def test_every_bench_script_a_claim_names_exists():
    import doc_claims_lint as lint

    named = {p for c in lint.all_claims() for p in c.proofs if p.startswith("bench/")}
    assert named and all((REPO / p).is_file() for p in named), sorted(named)


# Found false by the rest of the documents' claims (README.md, docs/ but commands.md and
# benchmarks.md), reworded to what the named test holds.
CLAIMS += [
    (
        "README.md",
        "the profile states only what is current, the memories leave out what was\nsuperseded, "
        "every line dated",
        "tests/test_currency.py::test_the_brief_states_the_current_profile_and_dates_every_line",
    ),
]


@pytest.mark.slow
def test_the_quick_loop_leaves_the_slow_tests_out_and_all_adds_them():
    """README: a plain `python -m pytest` leaves out the tests marked slow; `--all` adds them.
    tests/test_contention.py holds two of each."""
    import subprocess
    import sys

    def collected(*extra: str) -> list[str]:
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-o", "addopts=", "--collect-only", "-q",
             "-p", "no:cacheprovider", "tests/test_contention.py", *extra],
            capture_output=True, text=True, cwd=REPO, check=True,
        )  # fmt: skip
        return [x.split("::")[1] for x in done.stdout.splitlines() if "::" in x]

    quick, every = collected(), collected("--all")
    assert set(quick) == {
        "test_a_commit_that_cannot_be_made_is_a_warning_not_a_failure",
        "test_each_consolidation_commit_holds_its_own_edits",
    }
    assert set(every) - set(quick) == {
        "test_eight_writers_with_autocommit_never_fail_a_landed_write",
        "test_a_commit_waits_for_another_gits_index_lock",
    }


def test_every_behavioural_claim_names_what_proves_it():
    """Issue 44: every paragraph of the docs that states behaviour names the test that
    proves it, the bench script that prints its figure, or shows it in a console block that
    tests/test_docs.py runs; `python tests/doc_claims_lint.py` lists them with their proofs."""
    import doc_claims_lint as lint

    found = lint.all_claims()
    assert len(found) > 100  # not vacuous
    assert [f"{c.doc}:{c.line}" for c in found if not c.held] == []
