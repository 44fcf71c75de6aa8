/* @@args: -C */
/*
 * The system's own headers: what D can express of them (typedefs,
 * structs, unions, enums) is declared, the rest (prototypes, inline
 * functions, attributes, unnamed members) is skipped.
 */
#include <stdint.h>
#include <time.h>
#include <sys/types.h>
#include <signal.h>
#include <netinet/in.h>
#include <stdio.h>

#pragma D option quiet

BEGIN
{
	this->u = (uint_fast8_t)258;
	this->m = (mode_t)0755;
	printf("%d %d %d %d %o\n", sizeof (struct timespec),
	    sizeof (struct in6_addr), sizeof (struct sockaddr_in), this->u,
	    this->m);
	printf("%d %d\n", sizeof (sigset_t), sizeof (int64_t));
	exit(0);
}
