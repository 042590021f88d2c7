"""The `mem` command line: parses, calls the library, renders. Nothing else.

Command modules do not use `from __future__ import annotations`: typer would then eval
every parameter's annotation string on each run, ~25 ms of every `mem log`.
"""

# isort: skip_file
# Import order is the order `mem --help` lists the commands in.
from .app import app
from . import workspace_cmds, log_cmds, recall_cmds, eval_cmds, living_cmds
from . import consolidate_cmds, git_cmds, demo_cmd

COMMAND_MODULES = (
    workspace_cmds,
    log_cmds,
    recall_cmds,
    eval_cmds,
    living_cmds,
    consolidate_cmds,
    git_cmds,
    demo_cmd,
)
__all__ = ["COMMAND_MODULES", "app"]
