"""Transport: how one process serves a `Memory` to others, and how a client asks it.

- `resident`: a thread per connection on .mem/mem.sock, answering recall, context and get
  from a warm index (`mem watch`, `mem serve`; `warm`: that index); `socket_client`: the
  per-turn client (standard library only).
- `turns`: the per-turn commands (log, recall, context, get) declared once, for the fast
  path and the full CLI, with the request each builds and how it asks a resident.
- `autostart`: a resident started on demand when the embedding model is slow to load, one
  a user (`pool`: the workspaces it has open).
- `mcp_server`: MCP over stdio; `fast_output`: what recall/context/get print, rendered by
  the process that prints (the resident sends data); `argv`: the one command-line reader
  the per-turn path and the full CLI share.

May import `memory` (the facade), `services`, `recall`, `consolidate`, `index`, `embed`,
`environment`, `format`, `store`, `providers`, `errors`, `text` and the package root
(`openclaw_mem`, for its version); nothing below imports this package. The functions here
are what front ends (cli/, entry.py) call; each imports its module when called, so `import
openclaw_mem.serve` costs nothing on the per-turn path. (No function is named like a module
of this package: importing the module would replace it.)
"""

from __future__ import annotations

TYPE_CHECKING = False  # not `from typing import`: the per-turn client passes through here
if TYPE_CHECKING:
    import os

    from ..index.watch import Watcher
    from ..memory import Memory
    from .resident import Resident


def serving(root: str | os.PathLike[str]) -> bool:
    """Whether a resident process answers for this workspace."""
    from .socket_client import serving as ping

    return ping(root)


def answering_on(root: str | os.PathLike[str]) -> str | None:
    """The socket a resident answers this workspace on: `.mem/mem.sock` (its own `mem
    watch`), the user's resident's socket, or None."""
    from .socket_client import serving as ping
    from .socket_client import user_socket_file

    if ping(root, user=False):
        return ".mem/mem.sock"
    return user_socket_file() if ping(root) else None


def start_resident(mem: Memory, answer=None) -> Resident | None:
    """Serve this memory on .mem/mem.sock; None when another process already does. The
    embedding model is loaded first: the socket says it serves when the first query will
    not wait for the model (a hand-started `mem watch` or `mem serve` included). `answer`:
    how a request is answered, when not by this very memory (`mem.answer`)."""
    from ..environment import Environment
    from ..store import heap
    from .resident import Resident
    from .socket_client import serving as ping

    if ping(mem.root, user=False):  # the user's resident gives way to the workspace's own
        return None
    _load_model(mem)
    server = Resident(mem.root, answer or mem.answer, Environment(dict(mem.env)).settings())
    if not server.start():
        return None
    heap.keep_freed_memory()  # query after query: keep the heap warm (heap.py says why)
    return server


def start_user_resident(mem: Memory, limit: int | None = None) -> Resident | None:
    """Serve every workspace of this user on the user's socket (pool.py), `mem` (the
    workspace that asked for it) open from the start and its model loaded before the
    socket says it serves; None when another user resident already serves."""
    from ..environment import Environment
    from ..store import heap
    from .pool import LIMIT, Pool
    from .resident import Resident
    from .socket_client import greets, user_socket_file

    if greets(user_socket_file()):  # one serves already: no second load of the model
        return None
    _load_model(mem)
    pool = Pool(mem.env, limit or LIMIT)
    pool.add(mem)
    server = Resident(None, settings=Environment(dict(mem.env)).settings(), pool=pool)
    if not server.start():
        return None
    heap.keep_freed_memory()
    return server


def serve_mcp(mem: Memory, *, read_only: bool = False, agent: str | None = None) -> None:
    """Answer MCP requests on stdin/stdout until stdin closes (for one agent, when given);
    meanwhile answer recall, context and get for the CLI over the resident socket, where
    each request says which agent asks. Both answer with the settings as they are now:
    the workspace is opened again when its mem.toml changes (pool.Current)."""
    from ..memory import Memory
    from .mcp_server import serve_stdio
    from .pool import Current

    def reopen() -> Memory:
        return Memory.open(mem.root, env=mem.env, clock=mem.clock)

    current = Current(mem, reopen)  # the resident's: each request says its agent
    served = mem.for_agent(agent)
    mine = current if served is mem else Current(served, lambda: reopen().for_agent(agent))
    resident = start_resident(mem, lambda read, defer: current().answer(read, defer))
    try:
        serve_stdio(mine, read_only=read_only)
    finally:
        if resident is not None:
            resident.stop()


def watcher(mem: Memory, on_refresh, **how) -> Watcher:
    """A file watcher that keeps this memory's recall index warm (warm.py): on_error,
    debounce, consolidate, on_consolidated. Call start() and stop() on it."""
    from .warm import watcher as make

    return make(mem, on_refresh, **how)


def on_demand_idle(mem: Memory) -> int:
    """The idle seconds after which an on-demand resident exits, or 0 when recall would
    start none (for `mem status`)."""
    from .autostart import worth_it

    return int(mem.config["watch.idle"]) if worth_it(mem) else 0


def prepare_on_demand(mem: Memory) -> bool:
    """For a resident started on demand (`mem watch --idle`, `mem resident`): False when
    another one already serves; else the model is loaded before the socket says it serves."""
    from .autostart import started

    if serving(mem.root):
        started()
        return False
    _load_model(mem)
    return True


def _load_model(mem: Memory) -> None:
    """A model that is slow to load (`slow_start`: a local one, not a remote endpoint
    that would bill a call) loaded by embedding one query; one that fails here fails
    again, and says so, at the first query."""
    import contextlib

    from ..embed.base import EmbedError

    if getattr(mem.embedder, "slow_start", False):
        with contextlib.suppress(EmbedError):
            mem.embedder.embed(["warm"], query=True)


def on_demand_started(mem: Memory) -> None:
    """The on-demand resident serves (or gave up): the marker that held others back goes."""
    from .autostart import started

    started()
