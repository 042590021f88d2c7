"""Consolidation: daily-log entries distilled into MEMORY.md, USER.md, AGENTS.md and one
HISTORY.md paragraph, through a provider's save_memory tool call (`providers/`: offline
rules and any OpenAI-compatible server), checked, written and committed; the review queue
(`review`), progress by entry id (`progress`), forgetting and cleanup (`forgetting`).

May import `format`, `safety`, `search`, `store`, `providers`, `errors` and `text`; not
`recall`, `memory` or any front end.
"""
