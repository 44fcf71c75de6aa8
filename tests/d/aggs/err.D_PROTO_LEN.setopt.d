/* setopt() takes one or two arguments */
BEGIN
{
	setopt("quiet", "1", "2");
}
