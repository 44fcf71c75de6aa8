/*
 * dl: dlopen libm, call its cbrt() N times through dlsym, dlclose it;
 * twice.  Prints the sum; exits 0.  For library-load tracking.
 *
 *	dl N
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int
main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10, i;
	double (*fn)(double), sum = 0;
	void *h;
	int round;

	for (round = 0; round < 2; round++) {
		if ((h = dlopen("libm.so.6", RTLD_NOW)) == NULL ||
		    (fn = (double (*)(double))dlsym(h, "cbrt")) == NULL) {
			fprintf(stderr, "dl: %s\n", dlerror());
			return 1;
		}
		for (i = 0; i < n; i++)
			sum += fn(8.0);
		dlclose(h);
	}
	printf("sum=%.0f\n", sum);
	return 0;
}
