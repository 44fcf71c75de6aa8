/*
 * A whole psinfo_t: each member the translator defines, a string cut to
 * its char array, the others 0.
 */
#pragma D option quiet

psinfo_t p;
lwpsinfo_t l;

BEGIN
{
	p = *curpsinfo;
	l = xlate <lwpsinfo_t> ((struct task_struct *)0);
	printf("%d %d %d %d\n", p.pr_pid == pid, p.pr_fname == execname,
	    strlen(p.pr_psargs) < 80, p.pr_zoneid);
	printf("%d %c %s %d\n", l.pr_lwpid == tid, l.pr_sname,
	    l.pr_clname == curlwpsinfo->pr_clname ? "same" : "differ",
	    l.pr_nice);
	exit(0);
}
