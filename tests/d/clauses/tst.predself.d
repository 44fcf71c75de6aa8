/*
 * A predicate may test a thread-local before the clause that assigns it:
 * it is an int, 0 until then.
 */
#pragma D option quiet
BEGIN /self->seen == 0/ { printf("first %d\n", self->seen); }
BEGIN /!self->seen/ { self->seen = 42; }
BEGIN /self->seen/ { printf("seen %d\n", self->seen); exit(0); }
