"""What stands between memory and harm: secrets redacted (`secrets`), text that reads
like an instruction to an agent flagged (`firewall`), and both found in history (`audit`).

Pure functions over text (`audit` is handed the history to read); may import only
`errors` and `text`.
"""
