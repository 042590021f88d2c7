"""Pure, seeded, deterministic ranking primitives over numpy arrays: tokenising, BM25
postings, MinHash and SimHash signatures, normalisation, fusion, decay, MMR.

May import only `text`: no files, no index, no settings.
"""
