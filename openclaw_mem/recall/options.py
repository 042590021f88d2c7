"""How recall ranks, as one frozen value: the request converted once, read by every stage."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from ..config import default


@dataclass(frozen=True)
class RecallOptions:
    """How recall ranks. Fields that are settings take their defaults from config.py (one
    place); the others are the pipeline's own, chosen on LoCoMo's tuning part."""

    k: int = default("recall.k")
    vector_weight: float = default("recall.vector_weight")
    text_weight: float = default("recall.text_weight")
    candidate_multiplier: int = default("recall.candidate_multiplier")
    decay_lambda: float = default("recall.decay_lambda")
    decay_window: float = default("recall.decay_window")
    deprecated_weight: float = default("recall.deprecated_weight")
    mmr_lambda: float = default("recall.mmr_lambda")
    mmr_threshold: float = default("recall.mmr_threshold")
    min_score: float = default("recall.min_score")
    similarity: str = default("recall.similarity")
    normalization: str = "max"  # or "minmax"
    mode: str = "hybrid"  # hybrid | bm25 | lsh (the benchmark compares them)
    access_boost: float = default("recall.access_boost")
    context_cap: float = default("recall.context_cap")
    vector_z: float = 2.0  # a chunk matches by meaning this many spreads above unrelated text
    context_alone: float = 0.0  # a match by borrowed words alone scores this share of them
    meaning_alone: float = 0.0  # a match by meaning alone: this strength at least (benchmarks.md)
    vector_mix: float = 0.3  # with embeddings, the vector half is words + this x meaning
    meaning_pool: int = 200  # chunks nominated by their signatures, re-ranked by exact cosine
    cross_script: int = 3  # the best this many by meaning count in full across scripts
    dates: bool = True  # read the question's time expressions (format/dates.py)
    date_miss: float = 0.5  # a dated chunk outside the days a question names scores this share
    date_slack: float = 7.0  # days either side of a question's days that still count
    date_words: bool = False  # a question's time words are also matched as words
    when_boost: float = 0.5  # a question that asks when: a chunk naming a time gains this share
    refer_share: float = 0.7  # a turn that refers back scores this share of the one it refers to
    refer_hops: int = 2  # along how many such links in a row (the second counts 0.7 x 0.7)
    question_share: float = 0.5  # the turn a reply refers back to (its question): this share
    follow_top: int = 3  # a second pass asks again with words of the first pass's best this many:
    follow_terms: int = 3  # the rarest this many of their words that the question does not hold;
    follow_weight: float = 0.3  # what it finds adds this share of its score (recall/follow.py)
    speaker_boost: float = 0.5  # named in the question: others' log entries count 1 / (1 + this)
    aliases: bool = True  # a question's category word matches its slot's values (aliases.py)
    supersede: bool = True  # a later entry that updates a statement ranks above it
    superseded_weight: float = 0.9  # a superseded statement scores this share of its update
    decay: bool = True
    use_mmr: bool = True
    now: datetime | None = None
    since: date | None = None
    until: date | None = None
    path_glob: str | None = None
    as_of: date | None = None  # memory as it stood at the end of this day
    current: bool = False  # leave out what was deprecated or superseded (by as_of, when given)
    include_forgotten: bool = False  # show what `mem forget` hid (for a person who asks)
    agent: str | None = None  # recall for this agent: its own log entries and shared ones
    isolated: bool = False  # agents.isolation = isolated: other agents' private facts too
    role: str | None = None  # only log entries of this role or speaker (user, assistant, a name)
    redact_extra: tuple[str, ...] = ()  # consolidate.redact_patterns: hidden in snippets too

    @classmethod
    def from_config(cls, cfg, **overrides) -> RecallOptions:
        """Options from checked settings (config.py holds their constraints)."""
        values = {
            "k": cfg["recall.k"],
            "vector_weight": cfg["recall.vector_weight"],
            "text_weight": cfg["recall.text_weight"],
            "candidate_multiplier": cfg["recall.candidate_multiplier"],
            "decay_lambda": cfg["recall.decay_lambda"],
            "decay_window": cfg["recall.decay_window"],
            "deprecated_weight": cfg["recall.deprecated_weight"],
            "mmr_lambda": cfg["recall.mmr_lambda"],
            "mmr_threshold": cfg["recall.mmr_threshold"],
            "min_score": cfg["recall.min_score"],
            "similarity": cfg["recall.similarity"],
            "access_boost": cfg["recall.access_boost"],
            "context_cap": cfg["recall.context_cap"],
            "redact_extra": tuple(cfg["consolidate.redact_patterns"]),
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)
