/*
 * tap.h: a minimal Test Anything Protocol writer for the C unit tests.
 * Each test program prints "1..N" at the end (tap_done) and one
 * "ok N - name" / "not ok N - name" line per check.
 */
#ifndef TAP_H
#define TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_n;
static int tap_failed;

static inline int
tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond)
		tap_failed++;
	fflush(stdout);
	return cond;
}

#define tap_is(got, want, ...) do {					\
	long long tap_g_ = (long long)(got), tap_w_ = (long long)(want);	\
	if (!tap_ok(tap_g_ == tap_w_, __VA_ARGS__))			\
		printf("#   got %lld, want %lld\n", tap_g_, tap_w_);	\
} while (0)

#define tap_str(got, want, ...) do {					\
	const char *tap_g_ = (got), *tap_w_ = (want);			\
	int tap_c_ = tap_g_ != NULL && strcmp(tap_g_, tap_w_) == 0;	\
	if (!tap_ok(tap_c_, __VA_ARGS__))				\
		printf("#   got \"%s\", want \"%s\"\n",			\
		    tap_g_ ? tap_g_ : "(null)", tap_w_);		\
} while (0)

static inline void
tap_skip_all(const char *why)
{
	printf("1..0 # SKIP %s\n", why);
}

static inline int
tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif /* TAP_H */
