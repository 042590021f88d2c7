"""Keeping the curated files as people want them: forgetting a line on request
(`forgetting`), archiving what is stale by the design notes' rules (`cleanup`), and undoing
mem's own last change (`undo`).

May import `format`, `safety`, `search`, `store`, `errors` and `text`; not `consolidate`,
`recall`, the services or any front end.
"""
