"""The recall index, a rebuildable cache in .mem/index/: segments made from the Markdown
(`segments`), a streamed build for large workspaces (`stream`), the on-disk store and its
refresh (`cache`), and the file watcher that keeps it fresh (`watch`).

May import `format`, `search`, `embed`, `config` (its parameters' defaults, kept in one
place), `store`, `errors` and `text`.
"""
