#pragma D option quiet
/*
 * bcopy() takes a string as its source (as dtrace-utils does), and a
 * pointer cast to string reads the string at its address.
 */
BEGIN
{
	word = "tracing";
	buf = alloca(16);
	bcopy(word, buf, 5);
	((char *)buf)[5] = '\0';
	printf("[%s]", (string)buf);
	bcopy(probename, buf, 2);
	printf(" [%s]\n", (string)buf);
	exit(0);
}
