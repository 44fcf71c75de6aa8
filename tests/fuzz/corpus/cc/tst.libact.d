#pragma D option quiet

BEGIN
{
	@a["a"] = sum(100);
	@a["b"] = sum(200);
	@a["c"] = sum(300);
	@a["d"] = sum(400);
	@b["a"] = count();
	@b["b"] = count();
	@c["x"] = sum(1000);
	@c["y"] = sum(2000);
	@d[1] = sum(1);
	@d[2] = sum(2);
	@d[3] = sum(3);
	@e = min(3);
	@f = quantize(4);
	trunc(@a, 2);
	printa(@a);
	trunc(@d, -1);
	clear(@b);
	clear(@e);
	clear(@f);
	normalize(@c, 10);
	printa(@c);
	denormalize(@c);
	printa(@c);
	normalize(@c, 100);
	exit(0);
}
