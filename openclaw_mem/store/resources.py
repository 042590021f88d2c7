"""Files shipped with the tool: templates/ and workspace.example/.

They sit at the top of the repository (an editable install reads them there) and inside
the wheel under openclaw_mem/_data/ (see pyproject's force-include).
"""

from __future__ import annotations

from pathlib import Path

from ..errors import MemError

_PACKAGE = Path(__file__).resolve().parent.parent  # openclaw_mem/


def data_dir(name: str) -> Path:
    for candidate in (_PACKAGE / "_data" / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise MemError(f"{name}/ is missing from this installation of openclaw-mem; reinstall it")


def templates_dir() -> Path:
    return data_dir("templates")


def example_workspace() -> Path:
    return data_dir("workspace.example")
