# fasttrap/: user-space instrumentation (process control, ELF symbols,
# x86-64 decoding, the ptrace and uprobe backends).  The pid provider
# issue fills it; ft.h will be its one header.
