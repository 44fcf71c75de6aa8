/* an id past nspec is an illegal operation: the clause faults */
#pragma D option quiet
BEGIN { commit(5); }
BEGIN { printf("after\n"); exit(0); }
