"""`Place`: one workspace with its settings, its environment and its clock, resolved once:
what every service works on, and the rules every service shares about what follows a
write (commit it or not, what a failed commit means) and what may be shown (secrets
hidden)."""

from __future__ import annotations

from ..environment import local_now
from ..errors import ConfigError, GitError, UsageError

TYPE_CHECKING = False  # `mem log` builds a Place on every agent turn: typing stays out
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from datetime import datetime
    from typing import Any

    from ..config import Config
    from ..consolidate.proposal import Provider
    from ..consolidate.write import Options
    from ..embed import Embedder
    from ..index.cache import IndexParams
    from ..store.workspace import Workspace


# What decides where a consolidation's text goes and what it hides: one of these that was set
# (by a MEM_* variable, or a trusted mem.toml) and cannot be read stops a consolidation
# rather than letting the default send the text elsewhere or unredacted.
GUARDED = ("consolidate.provider", "llm.base_url", "consolidate.redact_patterns")


class Place:
    def __init__(
        self,
        ws: Workspace,
        config: Config,
        env: Mapping[str, str],
        clock: Callable[[], datetime] = local_now,
    ) -> None:
        self.ws = ws
        self.config = config
        self.env = env
        self.clock = clock
        self._index_params: IndexParams | None = None
        self._embedder: Embedder | bool | None = False  # False: not created yet

    @property
    def root(self):
        return self.ws.root

    def now(self) -> datetime:
        return self.clock()

    @property
    def replayed(self) -> bool:
        """A clock that is not the wall's (MEM_NOW, a test's): ids are drawn replayably."""
        return self.clock is not local_now

    @property
    def agent(self) -> str | None:
        """The agent this process works for (MEM_AGENT): its log entries carry the id, and
        its recall sees its own entries and what is shared (agents.isolation)."""
        from ..format.appending import check_agent

        return check_agent(self.env.get("MEM_AGENT") or None)

    def with_settings(self, flags: Mapping[str, Any]) -> Place:
        """This place with some settings given on the command line (None: not given)."""
        if all(v is None for v in flags.values()):
            return self
        return Place(self.ws, self.config.override(flags), self.env, self.clock)

    def for_agent(self, agent: str | None) -> Place:
        """This place working for one agent (as MEM_AGENT=agent would)."""
        from ..format.appending import check_agent

        if not agent:
            return self
        env = {**self.env, "MEM_AGENT": check_agent(agent)}
        return Place(self.ws, self.config, env, self.clock)

    @property
    def embedder(self) -> Embedder | None:
        """The embedding provider embed.provider names (None: MinHash only)."""
        if self._embedder is False:
            from .. import embed

            cfg = self.config
            settings = {name: cfg[f"embed.{name}"] for name in embed.SETTINGS}
            self._embedder = embed.create(cfg["embed.provider"], settings, self.env)
        return self._embedder  # type: ignore[return-value]

    @property
    def firewall_model(self) -> Embedder | None:
        """The model the firewall's second opinion reads with (safety/meaning.py): the
        embedder when it is the local `use` model, else None. A remote embedder that cannot
        be set up costs the firewall nothing: it never reads with one."""
        from ..safety.meaning import usable

        try:
            embedder = self.embedder
        except ConfigError:
            return None
        return embedder if usable(embedder) else None

    @property
    def index_params(self) -> IndexParams:
        if self._index_params is None:
            from ..index.cache import IndexParams

            space = self.embedder.key if self.embedder is not None else ""
            self._index_params = IndexParams.from_config(self.config, embed=space)
        return self._index_params

    # ------------------------------------------------------------- what may be shown

    @property
    def redact_extra(self) -> tuple[str, ...]:
        return tuple(self.config["consolidate.redact_patterns"])

    def redact(self, text: str) -> str:
        """The text with every secret replaced by [REDACTED]: the built-in credential
        families and consolidate.redact_patterns."""
        from ..safety.secrets import redact

        return redact(text, self.redact_extra)[0]

    # ------------------------------------------------------------- consolidation's setup

    def consolidation_options(self, now: datetime | None = None) -> Options:
        from ..consolidate.write import Options

        cfg = self.config
        cfg.require(*GUARDED)
        return Options(
            now=now or self.now(),
            min_confidence=cfg["consolidate.min_confidence"],
            memory_window=cfg["consolidate.memory_window"],
            keep_recent=cfg["consolidate.keep_recent"],
            redact_extra=self.redact_extra,
            commit=cfg["git.autocommit"] != "never",
            daily_token_budget=cfg["llm.daily_token_budget"],
            user_budget=cfg["consolidate.user_budget"],
            max_edits=cfg["consolidate.max_edits"],
            max_line_chars=cfg["consolidate.max_line_chars"],
            max_new_lines=cfg["consolidate.max_new_lines"],
            max_offers=cfg["consolidate.max_offers"],
            firewall_model=self.firewall_model,
        )

    def provider(
        self, chosen: str | Provider | None, model: str | None, base_url: str | None
    ) -> tuple[Provider, str | None]:
        """The provider a consolidation uses, and one line when `auto` left an OpenAI key or
        URL in the environment unused (how to choose a provider), else None."""
        from ..consolidate import providers

        if chosen is not None and not isinstance(chosen, str):
            return chosen, None
        if chosen is not None and chosen not in providers.names():
            raise UsageError(
                f"unknown provider {chosen!r}; use one of {', '.join(providers.names())}"
            )
        cfg = self.config
        cfg.require(*GUARDED)
        settings: dict[str, Any] = {
            "model": model or cfg["llm.model"],
            "base_url": base_url or cfg["llm.base_url"],
            "timeout": cfg["llm.timeout"],
            "max_retries": cfg["llm.max_retries"],
            "context_tokens": cfg["llm.context_tokens"],
            "tool_mode": cfg["llm.tool_mode"],
            "structured_output": cfg["llm.structured_output"],
            "strategy": cfg["llm.strategy"],
            "batch_entries": cfg["llm.batch_entries"],
        }
        name = chosen or cfg["consolidate.provider"]
        made = providers.create(name, settings, self.env)
        return made, providers.unchosen(name, settings, self.env)

    # ------------------------------------------------------------- write rules

    def check_writable_state(self) -> None:
        """Before rewriting curated files: no merge, rebase, cherry-pick or revert in
        progress, and no conflict markers in a memory file (writing into one would stage
        it, and git would take the conflict as resolved)."""
        from ..errors import ConflictError
        from ..format.markdown import has_conflict_markers
        from ..store import gitrepo
        from ..store.fsutil import read_text
        from ..store.workspace import CURATED_FILES, HISTORY_FILE

        what = gitrepo.operation_in_progress(self.root)
        if what:
            raise ConflictError(
                f"{what} is in progress in this repository; finish or abort it first "
                "(git status says how); nothing was written"
            )
        for name in (*CURATED_FILES, HISTORY_FILE):
            path = self.root / name
            if path.is_file() and has_conflict_markers(read_text(path, name)):
                raise ConflictError(
                    f"{name} holds conflict markers (<<<<<<< … >>>>>>>); resolve them and "
                    "commit, then run this again; nothing was written"
                )

    def check_logs_unmarked(self) -> None:
        """Before a consolidation: no daily log holds committed conflict markers, which it
        would read as words of its entries (`mem doctor` names them)."""
        from ..errors import ConflictError
        from ..format.markdown import has_conflict_markers
        from ..store.fsutil import read_bytes

        for path in self.ws.day_files():
            rel = self.ws.rel(path)
            data = read_bytes(path, rel)
            if b"<<<<<<<" in data and has_conflict_markers(data.decode("utf-8", "replace")):
                raise ConflictError(
                    f"{rel} holds conflict markers (<<<<<<< … >>>>>>>); keep the entries you "
                    "mean, delete the markers and commit, then consolidate; nothing was written"
                )

    def finish_killed(self) -> None:
        """Finish a consolidation a kill interrupted (its journal in .mem/) and commit it as
        mem's, before anything else is written or committed: otherwise the next `mem commit`
        or forget commits its half-written files as a person's edit, which `mem undo`
        cannot revert. Inside the caller's transaction; free when there is no journal."""
        from ..store import journal

        if not journal.is_pending(self.ws.state_dir, journal.CONSOLIDATION):
            return
        from ..consolidate.write import finish

        finish(self.ws)

    def after_append(self, paths: list[str], message: str) -> tuple[str | None, list[str]]:
        """git.autocommit = "log": commit what was appended."""
        if self.config["git.autocommit"] != "log":
            return None, []
        from ..store import gitrepo

        if gitrepo.open_repo(self.root) is None:
            return None, [
                "git.autocommit is 'log' but the workspace has no git repository; "
                "`mem init` adds one"
            ]
        return self.commit(paths, message)

    def commit_change(self, paths: list[str], message: str) -> tuple[str | None, list[str]]:
        """A forget, a cleanup or a repair commits unless git.autocommit = "never" (or there
        is no repository)."""
        if self.config["git.autocommit"] == "never":
            return None, []
        from ..store import gitrepo

        if gitrepo.open_repo(self.root) is None:
            return None, []
        return self.commit(paths, message)

    def keep_hand_edits(self, paths: list[str]) -> None:
        """Before a forget or a cleanup changes `paths`: what a person saved in them since
        the last commit is committed on its own (gitrepo.commit_hand_edits), under the rule
        commit_change follows. A commit git refuses here leaves the edit to go with mem's
        change, as before; the change's own commit says what git refused."""
        if self.config["git.autocommit"] == "never":
            return
        from ..store import gitrepo

        if gitrepo.open_repo(self.root) is None:
            return
        try:
            gitrepo.commit_hand_edits(self.root, paths)
        except GitError:
            return

    def commit(self, paths: list[str], message: str) -> tuple[str | None, list[str]]:
        """(short sha or None, warnings). The write landed whatever happens here: a commit
        that fails is a warning, never an error (an agent that retried would write twice)."""
        from ..store import gitrepo

        try:
            info = gitrepo.commit_memory(self.root, message, paths)
        except GitError as exc:
            return None, [f"written but not committed ({exc.message}); `mem commit` later"]
        return (info.short if info else None), []
