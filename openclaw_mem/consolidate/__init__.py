"""Consolidation: daily-log entries distilled into MEMORY.md, USER.md, AGENTS.md and one
HISTORY.md paragraph, through a provider's save_memory tool call."""
