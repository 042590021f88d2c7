"""I/O: the workspace on disk, atomic writes and locked appends, git, the access record.

Every path resolves inside the workspace and never through a symlink (`fsutil`,
`workspace`). May import only `errors` and `text`: it knows files and commits, not what is
in them.
"""
