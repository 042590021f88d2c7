"""A run's third stage: the provider's answer judged before anything is applied. Each edit
is checked against the entries it cites (checks.py), given the lines and ids of those
entries, held when it draws on an entry that reads like an instruction (the memory
firewall), and kept within the limits on what one answer may write (limits.py). What
cannot be written waits for review with its reason, redacted like everything a model
wrote."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from ..format.markdown import without_comments
from .checks import check
from .edits import Outcome
from .limits import distinct, first_edits, within
from .proposal import Edit, PromptEntry, Proposal, Usage
from .redaction import Redaction
from .write import Options


@dataclass
class Judged:
    history: str  # the answer's paragraph, redacted, no comment of mem's grammar in it
    edits: list[Edit]  # to apply
    review: list[tuple[Edit, str]]  # wait for a person: a check or a limit said why
    held: list[tuple[Edit, str]]  # wait for a person: the firewall said why
    rejected: list[Outcome]  # what the reader could not take at all
    skip: tuple[int, ...] = ()  # the entries the answer says hold nothing durable
    usage: Usage = field(default_factory=lambda: Usage(0, 0))
    skip_as: str = "dropped"  # how skipped entries are taken (progress.py)


def judge(
    proposal: Proposal,
    prompt: Sequence[PromptEntry],
    opts: Options,
    grown: dict[str, int],
    shown: Redaction,
) -> Judged:
    # HISTORY.md's markers are mem's grammar: a summary quoting one would forge one.
    history = without_comments(shown.text(proposal.history_entry))
    skip = proposal.skip
    if _parrots(proposal):
        # The instructions' example said back says nothing about these entries: neither
        # its summary nor its skip list is read as the answer's word on them.
        history, skip = "", ()
    answered, too_many = first_edits(proposal.edits, opts)
    checked, unsure = check(answered, prompt)
    unsure += too_many
    instructions = _flagged_entries(prompt, opts.firewall_model)
    edits, held = _hold_flagged(resolve(checked, prompt), instructions)
    # An edit a check holds, drawn from an entry that reads like an instruction, waits for
    # the firewall's reason: it is the one a person must see.
    review = []
    reasons = [w for _, w in unsure]
    for edit, why in zip(resolve([e for e, _ in unsure], prompt), reasons, strict=True):
        _, flagged = _hold_flagged([edit], instructions)
        if flagged:
            held += flagged
        else:
            review.append((shown.edit(edit), why))
    edits, repeats = distinct(edits)  # before the cap counts them
    review += [(shown.edit(e), why) for e, why in repeats]
    edits, over = within(edits, opts, grown)
    review += [(shown.edit(e), why) for e, why in over]
    return Judged(
        history,
        edits,
        review,
        [(shown.edit(e), why) for e, why in held],
        _rejected(proposal, shown),
        skip,
        proposal.usage or Usage(0, 0),
        proposal.skip_as,
    )


def _parrots(proposal: Proposal) -> bool:
    """Whether an answer is the instructions' example given back (its summary, or every
    edit it makes)."""
    from .checks import repeats_example

    summary = proposal.history_entry.split("]", 1)[-1]
    texts = [e.text for e in proposal.edits if e.text]
    return repeats_example(summary) or (bool(texts) and all(map(repeats_example, texts)))


def resolve(edits: Sequence[Edit], prompt: Sequence[PromptEntry]) -> list[Edit]:
    """Each edit with the log lines its sources name (`origin`) and the newest one's date."""
    by_number = {e.number: e for e in prompt}
    out = []
    for edit in edits:
        cited = [by_number[n] for n in edit.sources if n in by_number]
        origin = ",".join(e.cite for e in cited)  # path#Lx-Ly: `mem get` opens it as cited
        dates = [e.when.date() for e in cited if e.when]
        agents = {e.agent for e in cited}
        agent = agents.pop() if len(agents) == 1 else None
        ids = tuple(e.id for e in cited if e.id)
        out.append(
            replace(
                edit, origin=origin, on=max(dates) if dates else None, agent=agent or "", ids=ids
            )
        )
    return out


def _flagged_entries(prompt: Sequence[PromptEntry], model: object | None) -> dict[int, str]:
    """Why each entry that reads like an instruction does (firewall.py, and the local
    model's second opinion when the workspace embeds with it: safety/meaning.py)."""
    from ..safety.meaning import scan_many

    flags = scan_many([entry.text for entry in prompt], model)
    return {
        entry.number: ", ".join(f.kind for f in found)
        for entry, found in zip(prompt, flags, strict=True)
        if found
    }


def _hold_flagged(
    edits: Sequence[Edit], why: dict[int, str]
) -> tuple[list[Edit], list[tuple[Edit, str]]]:
    """The memory firewall: an edit drawn from an entry that reads like an instruction
    (`why`, by entry number) is held for review, never written by itself. Every curated file
    counts: a planted "fact" in MEMORY.md is recalled into the prompt as surely as an AGENTS
    rule. A rule or profile line that would hand over privileges, an endpoint, a secret or
    the user's authority waits too, whoever asked for it (safety/grants.py)."""
    from ..safety.firewall import scan

    keep, held = [], []
    for edit in edits:
        reasons = [why[n] for n in (edit.sources or edit.claimed) if n in why]
        own = scan(f"{edit.text}\n{edit.target}")
        if own:  # the edit is itself an instruction, whatever it cites
            reasons.insert(0, ", ".join(f.kind for f in own))
        handed = _grants(edit)
        if handed and not reasons:
            reasons.append(f"{HANDS_OVER} {_HANDED[handed]}, whoever asked")
        if reasons:
            held.append((edit, reasons[0]))
        else:
            keep.append(edit)
    return keep, held


HANDS_OVER = "a rule that hands over"  # a held reason of its own (settle.py words the rest)
_HANDED = {
    "privilege": "root or admin rights",
    "endpoint": "where the agent's calls go",
    "secret": "a secret",
    "authority": "the user's authority",
}


def _grants(edit: Edit) -> str | None:
    """What an AGENTS.md rule or a USER.md line the edit writes would hand over; a
    MEMORY.md fact counts when it also tells the agent to use it (a rule in disguise)."""
    from ..safety.grants import grants, tells_the_agent

    if edit.op not in ("add", "update"):
        return None
    if not (edit.file in ("AGENTS", "USER") or edit.type == "rule"):
        return grants(edit.text, rule=False) if tells_the_agent(edit.text) else None
    return grants(edit.text, rule=edit.file == "AGENTS" or edit.type == "rule")


def _rejected(proposal: Proposal, shown: Redaction) -> list[Outcome]:
    """The edits the reader refused, as outcomes; what they said passes the secret filter
    like everything else a model wrote."""
    return [
        Outcome(
            Edit(
                file="?",
                op="?",
                type="fact",
                importance=0,
                confidence=0,
                text=shown.text(r.summary),
                claimed=r.sources,
            ),
            "invalid",
            shown.text(r.reason),
        )
        for r in proposal.rejected
    ]
