"""Domain errors and the exit codes the CLI maps them to.

Every failure a user can cause or fix is a `MemError` whose message says what went wrong
and what to do; the CLI prints it as one line on stderr and exits with its code.

May import nothing from the package.
"""

from __future__ import annotations

from os import PathLike


class ExitCode(int):
    """Documented exit codes of `mem` (docs/commands.md, "Errors and exit codes"). An int
    with a name, like an IntEnum member, without `enum`: every `mem log` imports this
    module, and enum costs it more than its append."""

    __slots__ = ()

    def __new__(cls, value: int) -> ExitCode:
        if value not in _NAMES:
            raise ValueError(f"{value!r} is not a mem exit code")
        return int.__new__(cls, value)

    @property
    def name(self) -> str:
        return _NAMES[int(self)]

    @property
    def value(self) -> int:
        return int(self)

    def __repr__(self) -> str:
        return f"<ExitCode.{self.name}: {int(self)}>"

    __str__ = int.__repr__

    OK = 0
    ERROR = 1  # unexpected failure (a bug): rerun with --debug
    USAGE = 2  # bad arguments or input
    NO_WORKSPACE = 3  # no memory workspace could be found
    NOT_FOUND = 4  # a file, line, revision or commit that does not exist
    GIT = 5  # no git repository, or git refused
    CONFIG = 6  # mem.toml or a MEM_* variable holds a bad value
    PROVIDER = 7  # the LLM provider failed; nothing was written
    CONFLICT = 8  # a file changed under us, a merge conflicts or is in progress; nothing written
    UNWRITABLE = 9  # the workspace cannot be written (permissions, read-only, disk full)
    FINDINGS = 10  # mem audit found lines to look at (not an error: like a linter's exit 1)
    PARTIAL = 11  # mem consolidate saved some batches and left others pending, each with why
    UNUSED = 12  # mem consolidate: the model answered, nothing in any answer could be used
    INTERRUPTED = 130  # Ctrl-C


_NAMES = {v: k for k, v in vars(ExitCode).items() if k.isupper()}
for _value, _name in _NAMES.items():
    setattr(ExitCode, _name, ExitCode(_value))


class MemError(Exception):
    """An error with a message a user can act on."""

    exit_code: ExitCode = ExitCode.ERROR

    def __init__(self, message: str, *, exit_code: ExitCode | None = None) -> None:
        super().__init__(message)
        self.message = message
        if exit_code is not None:
            self.exit_code = exit_code


class UsageError(MemError):
    exit_code = ExitCode.USAGE


class WorkspaceNotFound(MemError):
    exit_code = ExitCode.NO_WORKSPACE


class NotFound(MemError):
    exit_code = ExitCode.NOT_FOUND


class GitError(MemError):
    exit_code = ExitCode.GIT


class ConfigError(MemError):
    exit_code = ExitCode.CONFIG


class ProviderError(MemError):
    exit_code = ExitCode.PROVIDER


class UnusableAnswer(ProviderError):
    """The model answered, but nothing can be read from the answer (or none came in time):
    consolidation asks once more (in two halves when it was `cut` at the token cap or the
    time limit), then leaves that batch pending and goes on."""

    def __init__(
        self, message: str, *, cut: bool = False, silent: bool = False, final: bool = False
    ) -> None:
        super().__init__(message)
        self.cut = cut
        self.silent = silent  # no answer came at all in llm.timeout
        self.final = final  # already asked again (per entry): the batch is not asked anew


class ConflictError(MemError):
    exit_code = ExitCode.CONFLICT


# What a long wait says while it waits (a lock another process holds, a model slow to
# answer): the one error funnel sets it to print a warning; the library alone stays silent.
waiting = None  # Callable[[str], None] | None


def say_waiting(message: str) -> None:
    if waiting is not None:
        waiting(message)


class WriteError(MemError):
    """The workspace (or .mem/) cannot be written: nothing was changed."""

    exit_code = ExitCode.UNWRITABLE

    def __init__(self, path: PathLike[str] | str, exc: OSError) -> None:
        import errno

        reason = {
            errno.EACCES: "permission denied",
            errno.EPERM: "not permitted",
            errno.EROFS: "read-only file system",
            errno.ENOSPC: "no space left on the device",
        }
        why = reason.get(exc.errno or 0, exc.strerror or str(exc))
        super().__init__(f"cannot write {path}: {why}; nothing was changed")


class BadEncoding(MemError):
    """A memory file that is not valid UTF-8: reported by path, skipped, never rewritten."""

    exit_code = ExitCode.USAGE

    def __init__(self, path: PathLike[str] | str, rel: str | None = None) -> None:
        self.path = path
        name = rel or str(path)
        super().__init__(
            f"{name} is not valid UTF-8; skipped (convert it, e.g. "
            f"`iconv -f GBK -t UTF-8 {name} > tmp && mv tmp {name}`)"
        )
