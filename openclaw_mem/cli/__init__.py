"""The `mem` command line: parses, calls the library, renders. Nothing else."""

# isort: skip_file
# Import order is the order `mem --help` lists the commands in.
from .app import app
from . import workspace_cmds, log_cmds, recall_cmds, consolidate_cmds, git_cmds, demo_cmd  # noqa: F401

__all__ = ["app"]
