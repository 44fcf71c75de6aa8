BEGIN
{
	s = "a";
	s++;
}
