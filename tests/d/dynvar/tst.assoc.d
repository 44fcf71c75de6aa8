#pragma D option quiet

/*
 * Associative arrays: integer, string and tuple keys, string values,
 * compound assignment, and deletion by assigning 0.
 */
BEGIN
{
	a[1] = 10;
	a[2] = 20;
	a[1] += 5;
	b["x"] = "ex";
	b["y"] = "why";
	c[1, "one"] = 100;
	c[2, "two"]++;
	c[2, "two"]++;
	printf("%d %d %d\n", a[1], a[2], a[3]);
	printf("%s %s %d\n", b["x"], b["y"], b["z"] == NULL);
	printf("%d %d %d\n", c[1, "one"], c[2, "two"], c[1, "two"]);
	a[2] = 0;
	c[1, "one"] = 0;
}

BEGIN
/a[2] == 0 && c[1, "one"] == 0/
{
	printf("deleted\n");
}

BEGIN
/a[1]/
{
	printf("kept %d %d\n", a[1], c[2, "two"]);
	exit(0);
}
