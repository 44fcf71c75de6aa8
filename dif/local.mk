# dif/: the DIF instruction set, VM, verifier and disassembler.  It
# includes nothing of ours (dif.h beside its sources needs no -I).
noinst_LIBRARIES += dif/libdif.a
dif_libdif_a_SOURCES = dif/dif.h dif/dif_vm.c dif/dif_verify.c \
	dif/dif_dis.c dif/dif_subr.c dif/dif_dvar.c
