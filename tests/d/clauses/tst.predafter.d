/*
 * A predicate naming a variable its own clause's actions declare is
 * compiled after them, as illumos retries it: here n is an int, 0 in
 * the first firing.
 */
#pragma D option quiet
tick-1ms /n < 3/ { printf("n %d\n", n++); }
tick-1ms /n == 3/ { exit(0); }
