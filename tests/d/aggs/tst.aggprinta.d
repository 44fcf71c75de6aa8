#pragma D option quiet
/*
 * agghist and aggpack set by setopt() while tracing apply to the
 * printa() that follow: printa() of one aggregation without a format
 * prints the header each time; printa() with a format, and printa() of
 * several aggregations, print as usual.
 */
BEGIN
{
	@c[1] = count();
	@c[2] = count();
	@c[2] = count();
	@q["x"] = quantize(4);
	@q["y"] = quantize(-4);
	@q["y"] = quantize(64);
	@s[1] = sum(5);
	@s[2] = sum(7);
	printa(@c);
	setopt("agghist");
	printa(@c);
	printa(@c);
	printa("%d %@d\n", @c);
	printa(@c, @s);
	setopt("aggpack");
	setopt("encoding", "ascii");
	printa(@q);
	printa("%s %@d\n", @q);
	exit(0);
}
