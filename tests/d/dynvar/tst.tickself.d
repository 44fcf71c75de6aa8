/*
 * tick's self-> variables are its timer thread's: they keep their value
 * from one firing to the next, as a thread's do.
 */
#pragma D option quiet
tick-1ms /self->n < 3/ { self->n++; }
tick-1ms /self->n == 3/ { printf("%d\n", self->n); exit(0); }
