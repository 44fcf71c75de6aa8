/*
 * strtok() sequences: leading and repeated delimiters are skipped, the
 * state carries across statements of one firing, and the end of the
 * string yields NULL for good.
 */
#pragma D option quiet

BEGIN
{
	this->s = ",,,Carrots,,Barley,Oatmeal,,,Beans,";
	printf("[%s]", strtok(this->s, ","));
	printf("[%s]", strtok(0, ","));
	printf("[%s]", strtok(0, ","));
	printf("[%s]", strtok(0, ","));
	printf("\n");
	this->t = "a b;c";
	printf("[%s]", strtok(this->t, " ;"));
	printf("[%s]", strtok(0, ";"));
	printf("[%s]\n", strtok(0, ";"));
	exit(0);
}
