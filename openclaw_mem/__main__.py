from openclaw_mem.cli import app

app(prog_name="mem")
