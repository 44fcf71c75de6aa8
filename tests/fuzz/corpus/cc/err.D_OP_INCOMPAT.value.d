/* An array value keeps the type of its first assignment. */
BEGIN
{
	a["k"] = "v";
	a["k"] = 2;
}
