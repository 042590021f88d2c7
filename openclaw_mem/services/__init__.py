"""The services `Memory` is composed of, each working on one `Place` (a workspace with its
settings, environment and clock): `writing` (log, ingest, import), `reading` (recall,
context, get: one typed `Read`), `curating` (consolidate, review, undo, forget, cleanup),
`keeping` (sync, doctor, trust, status, audit, index, git's record); `evaluating` (mem
eval) sits above reading; `scaffold` (mem init) and `status` are what keeping and the
facade call; `background` is the one way work starts detached.

May import `recall`, `consolidate`, `upkeep`, `index`, `search`, `embed`, `config`, `environment`,
`format`, `safety`, `store`, `errors`, `text` and `providers`; not `memory` or any
front end.
"""
