/* op= reads its left side first: a global no statement has assigned */
BEGIN
{
	total *= 3;
	exit(0);
}
