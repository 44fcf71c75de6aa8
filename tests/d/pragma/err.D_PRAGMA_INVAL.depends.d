#pragma D depends_on nothing foo
BEGIN { exit(0); }
