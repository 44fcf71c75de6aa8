# fasttrap/: user-space instrumentation (ELF symbols, x86-64 decoding,
# the target model, the site table, the ptrace backend and its
# out-of-line steps, the uprobe backend and its inline patches, perf sampling, the system call
# capture, crash-time restore).
# ft.h is its one header; it includes nothing else of ours.
noinst_LIBRARIES += fasttrap/libft.a
fasttrap_libft_a_SOURCES = fasttrap/ft.h fasttrap/ft_elf.c fasttrap/ft_isa_x86.c \
	fasttrap/ft_proc.c fasttrap/ft_site.c fasttrap/ft_ptrace.c \
	fasttrap/ft_ool.c fasttrap/ft_guard.c fasttrap/ft_unwind.c \
	fasttrap/ft_uprobe.c fasttrap/ft_inline.c fasttrap/ft_bpf.c fasttrap/ft_btf.c \
	fasttrap/ft_procfs.c fasttrap/ft_perf.c fasttrap/ft_sdt.c
# no -I of ours: ft.h is found beside the sources
fasttrap_libft_a_CPPFLAGS = $(AM_CPPFLAGS) $(LIBELF_CFLAGS) $(LIBDW_CFLAGS)
FT_LIBS = fasttrap/libft.a $(LIBELF_LIBS) $(ZYDIS_LIBS) $(PTHREAD_LIBS)
