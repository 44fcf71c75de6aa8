/* a program (not a D library) may not depend on a library */
#pragma D depends_on library util.d
BEGIN { exit(0); }
