#pragma D option quiet
/*
 * A probe id stands for a probe description, as in illumos's grammar:
 * 1 is dtrace:::BEGIN and 2 dtrace:::END; ids mix with names in a list.
 */
1, dtrace:::END
{
	printf("%s %s\n", probeprov, probename);
}

1
{
	exit(0);
}

2
/probeprov == "dtrace"/
{
	printf("end by id\n");
}
