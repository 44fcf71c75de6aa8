#pragma D binding "9.9" foo
BEGIN { exit(0); }
