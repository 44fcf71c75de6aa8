/* no zones on Linux: pr_zoneid is not translated */
#pragma D option quiet
BEGIN
{
	x = curpsinfo->pr_pid;
	y = curpsinfo->pr_zoneid;
}
