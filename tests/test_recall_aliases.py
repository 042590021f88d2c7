"""A question's category word matches its slot's values (recall/aliases.py): "what
exercise do I do" finds "I climb twice a week"; a value never stands for its category."""

from __future__ import annotations

from datetime import datetime

from openclaw_mem.index.cache import IndexParams
from openclaw_mem.recall.aliases import aliases

NOW = datetime.fromisoformat("2026-11-30T12:00")


def _said(memory, when: str, text: str) -> None:
    memory.log(text, role="user", at=datetime.fromisoformat(when))


def _texts(memory, question: str) -> list[str]:
    hits = memory.recall(question, now=NOW).hits
    return [h.snippet.split("\n")[-1] for h in hits]


def test_a_category_finds_the_statements_of_its_values(memory):
    _said(memory, "2026-11-02T09:00", "I climb at Boulderwerk twice a week.")
    _said(memory, "2026-11-03T09:00", "I do everything in IntelliJ, keybindings and all.")
    _said(memory, "2026-11-04T09:00", "周末我基本都在练书法，主要写楷书。")
    _said(memory, "2026-11-05T09:00", "The standup moved to the big room.")
    assert _texts(memory, "what exercise do I do") == ["I climb at Boulderwerk twice a week."]
    assert _texts(memory, "which editor do I use") == [
        "I do everything in IntelliJ, keybindings and all."
    ]
    assert _texts(memory, "我周末的爱好是什么")[0] == "周末我基本都在练书法，主要写楷书。"


def test_a_value_never_stands_for_its_category(memory):
    _said(memory, "2026-11-02T09:00", "Rust is the language of the new billing service.")
    _said(memory, "2026-11-03T09:00", "I wrote a Python script for the invoices.")
    assert _texts(memory, "do I like Python") == ["I wrote a Python script for the invoices."]


def test_only_a_category_words_own_token_is_read_and_changes_are_no_values():
    p = IndexParams()
    assert aliases(p.tokens, p.tokens("我们今天好好吃饭")) == {}  # 好 of 爱好 is no category
    found = aliases(p.tokens, p.tokens("where do I live"))
    (values,) = found.values()
    assert "apartment" in values and "mover" in values
    assert not {"relocat", "moved", "move"} & set(values)
    assert aliases(p.tokens, p.tokens("do I like Python")) == {}
    # A three-character Chinese category by its last pair: 编辑器 is asked, 编辑 "to edit" is not.
    assert "vim" in aliases(p.tokens, p.tokens("我用什么编辑器"))["辑器"]
    assert aliases(p.tokens, p.tokens("我编辑了文章")) == {}


def test_scores_stay_shares_of_the_question(memory):
    _said(memory, "2026-11-02T09:00", "I climb at Boulderwerk twice a week.")
    hits = memory.recall("what exercise do I do", now=NOW).hits
    assert len(hits) == 1 and 0 < hits[0].score <= 1.0
    assert memory.recall("zzqxv qqwwzzk exercise", now=NOW).hits[0].score < hits[0].score
