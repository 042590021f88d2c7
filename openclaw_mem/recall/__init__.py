"""Finding what matters: the typed request (`reads`) converted once to options
(`options`), the ranking pipeline (`pipeline`) over stages that each score and explain
themselves (`stages`), and the context block for a model (`context`).

May import `index`, `config`, `format`, `search`, `embed`, `safety`, `store`, `errors` and
`text`; not `consolidate`, `upkeep`, the services or any front end.
"""
