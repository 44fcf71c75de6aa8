/*
 * The signal names raise() takes, as illumos's signal.d names them,
 * with Linux's numbers.
 */
#pragma D option quiet

BEGIN
{
	printf("%d %d %d %d %d %d\n", SIGHUP, SIGINT, SIGKILL, SIGUSR1,
	    SIGTERM, SIGCHLD);
	printf("%d %d %d %d\n", SIGCLD, SIGSTOP, SIGPOLL == SIGIO, SIGSYS);
	exit(0);
}
