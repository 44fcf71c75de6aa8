/* @@args: -x nolibs */
/* curpsinfo comes from procfs.d: with no libraries, there is none */
BEGIN { trace(curpsinfo->pr_pid); }
