#!/usr/sbin/dtrace -qs
/* An interpreter line on line 1 is not a control line. */
BEGIN
{
	printf("ran\n");
	exit(0);
}
