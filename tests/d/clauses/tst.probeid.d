#pragma D option quiet
/* probes by their ids, as dtrace -l numbers them: BEGIN and END */
2
{
	printf("%s:%s %d\n", probeprov, probename, id);
}

1, END
{
	printf("%s:%s:%s:%s\n", probeprov, probemod, probefunc, probename);
	exit(0);
}
