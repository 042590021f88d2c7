"""The `mem` command line: parses, calls the library, renders. Nothing else."""

from . import git_cmds, log_cmds, workspace_cmds  # noqa: F401  (register commands)
from .app import app

__all__ = ["app"]
