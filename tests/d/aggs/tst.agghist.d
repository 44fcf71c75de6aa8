#pragma D option quiet
#pragma D option agghist
/*
 * agghist draws count(), sum(), avg() and stddev() as one histogram a
 * aggregation, a row a key: "key" heads the keys' columns, a string
 * key is right-aligned, a bar is the entry's share of the sum of all
 * magnitudes, and negative sums draw to the left of the axis.  Without
 * keys the column is "value".  normalize() divides the counts shown,
 * not the bars; min(), max() and quantize() print as usual.
 */
BEGIN
{
	@c["read"] = count();
	@c["write"] = count();
	@c["write"] = count();
	@c["write"] = count();
	@c["open"] = count();
	@c["open"] = count();
	@s[1, 10] = sum(30);
	@s[2, 10] = sum(-10);
	@s[3, 20] = sum(-60);
	@p[(short)7] = sum(12);
	@p[(short)8] = sum(4);
	@a["x"] = avg(10);
	@a["x"] = avg(30);
	@a["y"] = avg(60);
	@n = count();
	@n = count();
	@z["k"] = count();
	@z["k"] = count();
	@z["k"] = count();
	@z["k"] = count();
	@z["j"] = count();
	@z["j"] = count();
	normalize(@z, 2);
	@m["a"] = max(5);
	@q = quantize(3);
	exit(0);
}
