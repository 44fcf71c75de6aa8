BEGIN
{
	notset++;
}
