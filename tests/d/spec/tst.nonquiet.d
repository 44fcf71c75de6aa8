/* without -q the commit clause's own line comes before the committed data */
BEGIN { s = speculation(); }
BEGIN { speculate(s); trace(42); }
BEGIN { commit(s); }
BEGIN { exit(0); }
