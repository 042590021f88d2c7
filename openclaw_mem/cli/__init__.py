"""The `mem` command line: parses, calls the library, renders. Nothing else.

Command modules may import the facade (`memory`), its transport (`serve`), `errors`,
`text`, and this package's `app` and `render` (tests/test_structure.py holds them to it).

Command modules do not use `from __future__ import annotations`: typer would then eval
every parameter's annotation string on each run, ~25 ms of every `mem log`.
"""

# isort: skip_file
# Import order is the order `mem --help` lists the commands in.
from .app import app
from . import workspace_cmds
from . import log_cmds
from . import recall_cmds
from . import eval_cmds
from . import living_cmds
from . import consolidate_cmds
from . import git_cmds
from . import demo_cmd

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
