"""Finding what matters: the ranking pipeline with a stage-by-stage explanation
(`pipeline`), the context block for a model (`context`), and recall@k over a query file
(`evaluate`).

May import `index` and everything below it, and `config`; not `consolidate`, `memory` or
any front end.
"""
