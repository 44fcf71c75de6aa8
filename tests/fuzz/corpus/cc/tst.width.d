#pragma D option quiet

BEGIN
{
	printf("[%5d] [%-5d] [%05d] [%s] [%10s] [%-4s]\n", 42, 42, 42, "a",
	    "right", "l");
	exit(0);
}
