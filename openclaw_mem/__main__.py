"""`python -m openclaw_mem`: the `mem` command. May import `entry`."""

from openclaw_mem.entry import main

main()
