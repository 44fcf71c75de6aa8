BEGIN
{
	usym("main");
}
