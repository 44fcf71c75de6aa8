/*
 * In BEGIN, curpsinfo and curlwpsinfo are dtrace(1)'s own, and agree
 * with the built-in variables of the same meaning; the types have
 * illumos's layout.
 */
#pragma D option quiet

BEGIN
{
	printf("%d %d %d %d %d\n", curpsinfo->pr_pid == pid,
	    curpsinfo->pr_ppid == ppid, curpsinfo->pr_uid == uid,
	    curpsinfo->pr_gid == gid, curpsinfo->pr_fname == execname);
	printf("%d %d %c %d\n", curlwpsinfo->pr_lwpid == tid,
	    curlwpsinfo->pr_state == SONPROC, curlwpsinfo->pr_sname,
	    curlwpsinfo->pr_onpro == cpu);
	printf("%s|%d\n", basename(strtok(curpsinfo->pr_psargs, " ")),
	    curpsinfo->pr_dmodel == PR_MODEL_LP64);
	printf("%d %d %d %d\n", sizeof (psinfo_t), sizeof (lwpsinfo_t),
	    offsetof(psinfo_t, pr_psargs), offsetof(psinfo_t, pr_lwp));
	exit(0);
}
