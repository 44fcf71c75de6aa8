/* @@args: -F */
/*
 * -F: probes that are neither entry nor return print "| func:name" at
 * the current depth under a FUNCTION header.  (entry/return indentation
 * needs pid probes; the consumer's rule is the same for every probe.)
 */
BEGIN
{
	trace(1);
}

BEGIN
{
	exit(0);
}

END
{
	trace("end");
}
