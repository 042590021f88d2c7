"""The Markdown grammar: daily logs and their entries, curated files and their metadata
comments, chunks with exact line ranges, citations, the by-entry merge, and the formats
imported into logs (transcripts, chat exports).

May import `store`, `safety`, `errors` and `text`; nothing that ranks or consolidates.
"""
