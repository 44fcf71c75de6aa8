#pragma D depends_on module genunix
BEGIN { exit(0); }
