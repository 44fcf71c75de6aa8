/* only the providers a user-space DTrace has */
#pragma D depends_on provider syscall
BEGIN { exit(0); }
