"""The subjects mem's own commits start with: how `mem history`, `mem undo` and
consolidation progress tell mem's commits from a person's."""

COMMIT_INIT = "mem init:"
COMMIT_LOG = "mem log:"
COMMIT_INGEST = "mem ingest:"
COMMIT_CONSOLIDATE = "consolidate:"
COMMIT_FORGET = "forget:"
COMMIT_CLEANUP = "cleanup:"
COMMIT_SYNC = "mem sync:"
# What a person saved in a curated file, committed on its own before mem changes that file:
# not one of mem's kinds, so `mem undo` never takes it away with mem's change.
COMMIT_HAND = "edit:"
