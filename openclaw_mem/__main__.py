from openclaw_mem.entry import main

main()
