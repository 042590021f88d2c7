"""The `mem` command line: parses, calls the library, renders. Nothing else.

May import `memory`, `serve`, `environment`, `funnel`, `providers`, `errors`, `text` and the package
root (`openclaw_mem`, for its version), and, to show
what the facade returns, `recall.reads`, `services.status`, `consolidate.run` (a
consolidation's report), `consolidate.review` (a proposal), `store.gitrepo`,
`format.markdown` (a citation's form), `format.when` (dates typed on the command line) and
`search.tokenize` (the words to highlight).

Command modules (`*_cmds`, `demo_cmd`) may import only `memory`, `serve`, `recall.reads`,
`providers`, `errors`, `text`, `cli.app`, `cli.render` and `cli.turn_cmds`: they adapt the facade.
(tests/test_structure.py reads these sentences and holds every module to them.)

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
from . import hooks_cmds
from . import demo_cmd

COMMAND_MODULES = (
    workspace_cmds,
    log_cmds,
    recall_cmds,
    eval_cmds,
    living_cmds,
    consolidate_cmds,
    git_cmds,
    hooks_cmds,
    demo_cmd,
)
__all__ = ["COMMAND_MODULES", "app"]
