"""A randomized history of several machines sharing one memory, for the test suite
(tests/test_sync_history.py) and the bench (bench/sync_history.py).

Three clones of one bare remote. On each clone, agent processes log all along (each entry a
`Memory.log` in a process of its own kind, acknowledged to a record file only once it
returned); meanwhile this process runs, in an order drawn from the seed, syncs,
consolidations, forgets (curated lines deprecated, log entries redacted), undos and a
person's hand edits, on any clone. Afterwards the agents stop, every clone syncs twice, and
`check` demands:
- every acknowledged entry is on every clone exactly once, byte for byte (an entry a hard
  forget redacted: once, redacted, under its id);
- the clones agree (one commit, identical files) and no file holds a conflict marker;
- every `src=` resolves, through its `eid=`, to the entry that says its line;
- every entry is either consolidated or pending, never both.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from helpers import Mem, clones, src_problems

CURATED = ("MEMORY.md", "USER.md", "AGENTS.md")

# What agents say: some of it is the kind of thing consolidation keeps.
_SAID = [
    "I prefer {w} tea in the morning",
    "My cat is called {W}",
    "I'm planning a trip to {W} next spring",
    "We decided to use {W} for the billing service",
    "ok thanks",
    "Remind me that the {w} report is due on Friday",
    "I live in {W} now",
    "The deploy of {w} went fine",
]
_WORDS = ["green", "black", "jasmine", "oolong", "mint", "lisbon", "osaka", "kiel", "oslo"]

_AGENT = """
import json, sys, time
from pathlib import Path
from openclaw_mem.memory import Memory
root, record, stop = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
pause, said, most = float(sys.argv[4]), json.loads(sys.argv[5]), int(sys.argv[6])
env = {"MEM_EMBED_PROVIDER": "none", "MEM_WATCH_IDLE": "0"}
n = 0
while not stop.exists() and n < most:
    text = said[n % len(said)].replace("{n}", str(n))
    Memory.open(root, env=env).log(text, role="user")
    with record.open("a", encoding="utf-8") as f:  # acknowledged: the call returned
        f.write(json.dumps(text, ensure_ascii=False) + "\\n")
    n += 1
    time.sleep(pause)
"""


@dataclass
class History:
    seed: int
    steps: int
    machines: list[Mem]
    acknowledged: list[str] = field(default_factory=list)
    redacted: dict[str, str] = field(default_factory=dict)  # entry id -> the words it had
    actions: dict[str, int] = field(default_factory=dict)
    rounds: int = 0  # rounds of syncs in turn it took the clones to agree at the end


ACTIONS = ("sync", "consolidate", "forget", "redact", "undo", "edit")
WEIGHTS = (6, 3, 1, 1, 1, 1)
CHURN = (4, 3, 2, 3, 3, 1)  # undo, forget and redaction much more often: the bench's --churn


def run(
    tmp_path: Path,
    seed: int,
    steps: int,
    agents: int = 2,
    pause: float = 0.05,
    weights: tuple[int, ...] = WEIGHTS,
) -> History:
    """The history: `steps` actions drawn from `seed` (with `weights`, one per ACTIONS),
    while `agents` processes a clone log (each at most 3 entries a step, so a slow machine
    does not pile up the logs)."""
    rng = random.Random(seed)
    machines = clones(tmp_path, 3)
    history = History(seed, steps, machines)
    stop = tmp_path / "stop"
    procs = []
    for i, m in enumerate(machines):
        for j in range(agents):
            said = [
                f"{rng.choice(_SAID).format(w=rng.choice(_WORDS), W=rng.choice(_WORDS).title())}"
                f" (c{i}a{j}-{{n}})"
                for _ in range(6)
            ]
            record = tmp_path / f"acked-{i}-{j}.jsonl"
            record.touch()
            procs.append(
                subprocess.Popen(
                    [
                        sys.executable, "-c", _AGENT, str(m.root), str(record), str(stop),
                        str(pause), json.dumps(said), str(3 * steps),
                    ],
                    stderr=subprocess.PIPE,
                    text=True,
                )
            )  # fmt: skip
    try:
        for _ in range(steps):
            m = rng.choice(machines)
            action = rng.choices(ACTIONS, weights=weights)[0]
            history.actions[action] = history.actions.get(action, 0) + 1
            _act(history, m, action, rng)
    finally:
        stop.touch()
        for p in procs:
            _, err = p.communicate(timeout=60)
            assert p.returncode == 0, err
    for path in sorted(tmp_path.glob("acked-*.jsonl")):
        history.acknowledged += [json.loads(x) for x in path.read_text("utf-8").splitlines()]
    _background_done(machines)
    # Syncs in turn until the clones agree: two rounds carry everything when no sync of the
    # second round commits, but one that does (a repair found only once everything merged)
    # reaches the clones synced before it in the round after. Bounded: a history that never
    # settles still fails check().
    for _ in range(4):
        for m in machines:
            m("sync")
        history.rounds += 1
        if history.rounds >= 2 and len(_heads(machines)) == 1:
            break
    return history


def _heads(machines: list[Mem]) -> set[str]:
    import git

    return {git.Repo(m.root).head.commit.hexsha for m in machines}


def _background_done(machines: list[Mem], timeout: float = 180.0) -> None:
    """Wait until no `mem` the agents' logging started in the background (an automatic
    consolidation) still runs on these clones: one that commits after the last sync would
    leave the clones one commit apart however well they merge (seen on a loaded machine)."""
    roots = {str(m.root) for m in machines}
    proc = Path("/proc")
    deadline = time.monotonic() + timeout
    while proc.is_dir() and time.monotonic() < deadline:
        running = False
        for entry in proc.iterdir():
            if not entry.name.isdigit():
                continue
            try:
                args = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            words = [a.decode("utf-8", "replace") for a in args]
            if "openclaw_mem" in words and any(r in words for r in roots):
                running = True
                break
        if not running:
            return
        time.sleep(0.2)


def _act(history: History, m: Mem, action: str, rng: random.Random) -> None:
    if action == "sync":
        m("sync")
    elif action == "consolidate":
        m("consolidate", "--provider", "offline")
    elif action == "undo":
        result = m("undo", "--yes", ok=False)
        assert result.exit_code in (0, 4, 8), result.stderr  # done, nothing to undo, a rewrite
    elif action == "edit":
        path = m.root / "MEMORY.md"
        text = path.read_text(encoding="utf-8")
        note = f"- A note a person added by hand ({rng.randrange(10**6)})\n"
        path.write_text(text.replace("## Facts\n", "## Facts\n" + note, 1), encoding="utf-8")
    elif action == "forget":
        _forget_a_line(m, rng)
    else:
        _redact_an_entry(history, m, rng)


def _forget_a_line(m: Mem, rng: random.Random) -> None:
    from openclaw_mem.format.markdown import is_live_bullet, sources

    name = rng.choice(CURATED)
    lines = (m.root / name).read_text(encoding="utf-8").splitlines()
    live = [n for n, x in enumerate(lines, 1) if is_live_bullet(x) and sources(x)]
    if live:
        m("forget", f"{name}:{rng.choice(live)}")


def _redact_an_entry(history: History, m: Mem, rng: random.Random) -> None:
    """A hard forget of one entry an agent logged (its lines are read, then forgotten: only
    appends can happen meanwhile, and they never move earlier lines)."""
    from openclaw_mem.format.logs import entry_ids, read_entries

    days = sorted((m.root / "memory").glob("20*.md"))
    if not days:
        return
    entries = read_entries(days[-1])
    ids = entry_ids(entries)
    candidates = [
        (e, i)
        for e, i in zip(entries, ids, strict=True)
        if "(c" in e.text and "[forgotten" not in e.text
    ]
    if not candidates:
        return
    entry, ident = rng.choice(candidates)
    m("forget", "--hard", f"memory/{days[-1].name}#L{entry.start_line}-L{entry.end_line}")
    history.redacted[ident] = entry.text


def check(history: History) -> None:

    from openclaw_mem.consolidate.citations import redacted
    from openclaw_mem.consolidate.progress import all_entries, pending_entries, taken_ids
    from openclaw_mem.format.curated import record_of, workspace_ledger
    from openclaw_mem.format.markdown import has_conflict_markers, sources
    from openclaw_mem.store.workspace import Workspace

    machines = history.machines
    heads = _heads(machines)
    assert len(heads) == 1, f"the clones did not converge in {history.rounds} rounds: {heads}"
    files = [_files(m.root) for m in machines]
    assert files[0] == files[1] == files[2], "the clones hold different files"
    for rel, text in files[0].items():
        assert not has_conflict_markers(text), f"{rel} holds conflict markers"
    ws = Workspace(machines[0].root)
    entries = all_entries(ws)
    texts = [e.entry.text for e in entries]
    for said in history.acknowledged:
        forgotten = [i for i, words in history.redacted.items() if words == said]
        if forgotten:
            assert texts.count(said) == 0, f"a redacted entry came back: {said!r}"
            continue
        assert texts.count(said) == 1, f"{said!r} is there {texts.count(said)} times"
    by_id = {e.id: e for e in entries}
    for ident in history.redacted:
        assert ident in by_id and redacted(by_id[ident]), f"redacted entry {ident} is gone"
    ledger = workspace_ledger(ws)  # the records mem acts on: those an entry here backs
    for name in CURATED:
        text = (ws.root / name).read_text(encoding="utf-8")
        assert not src_problems(ws.root, "", text), src_problems(ws.root, "", text)
        for line in text.splitlines():
            cites = sources(line)
            known = record_of(name.removesuffix(".md"), line, ledger)
            if known is None or not known.ids:
                continue  # a person's line: its links are theirs (src_problems reads them)
            # mem's line: its links are exactly where its entries are now, none redacted.
            live = [by_id[i] for i in known.ids if i in by_id and not redacted(by_id[i])]
            assert cites == [e.cite for e in live], f"{name}: {line!r} links are not its entries"
    ids = {e.id for e in entries}
    taken = taken_ids(ws) or set()
    pending = {e.id for e in pending_entries(ws)}
    assert pending == ids - taken and not (pending & taken)


def _files(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.parts and ".mem" not in p.parts
    }


def timed(tmp_path: Path, seed: int, steps: int) -> tuple[History, float]:
    start = time.perf_counter()
    history = run(tmp_path, seed, steps)
    check(history)
    return history, time.perf_counter() - start
