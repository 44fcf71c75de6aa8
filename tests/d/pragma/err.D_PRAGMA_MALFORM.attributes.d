#pragma D attributes Evolving/Bogus/Common foo
BEGIN { exit(0); }
