"""Many processes, several machines, one memory: a randomized history (tests/history.py)
of agents logging all along while syncs, consolidations, forgets, redactions, undos and
hand edits run on any of three clones; every acknowledged entry must end on every clone
exactly once, byte for byte, and every citation on the entry that says it.
`python bench/sync_history.py` runs longer histories and more seeds."""

from __future__ import annotations

import pytest
from history import CHURN, check, run


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_a_random_history_of_three_clones_keeps_every_entry_once_and_every_citation(tmp_path, seed):
    history = run(tmp_path, seed, steps=50)
    assert len(history.acknowledged) > 50  # the agents really logged all along
    check(history)


@pytest.mark.slow
def test_a_history_heavy_in_undos_forgets_and_redactions_keeps_every_citation(tmp_path):
    # Where citations have the most to follow (bench/sync_history.py --churn): the bugs
    # tests/test_sync_together.py now pins down each showed up first in such a history.
    history = run(tmp_path, 9001, steps=50, weights=CHURN)
    assert history.actions.get("undo", 0) >= 5 and history.actions.get("redact", 0) >= 5
    check(history)
