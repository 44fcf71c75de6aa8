/* a probe id is 32 bits */
4294967296
{
	exit(0);
}
