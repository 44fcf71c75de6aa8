/*
 * test_dt_json.c: the JSON writer of -x oformat=json (dt_json.c), byte
 * for byte: commas between members and elements at every depth, keys,
 * numbers, the quoting of strings (UTF-8 kept, other bytes and control
 * characters escaped), values spliced from another writer, lines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dt_impl.h"
#include "tap.h"

static char *buf;
static size_t len;
static FILE *mf;

static void
start(dt_json_t *j)
{
	mf = open_memstream(&buf, &len);
	dt_json_init(j, mf);
}

/* What was written since start(), as a C string (freed by the next). */
static const char *
got(void)
{
	static char *last;

	fclose(mf);
	free(last);
	last = buf;
	return buf;
}

int
main(void)
{
	dt_json_t j, r;
	const unsigned char bytes[] = { 0, 7, 255 };
	char *rb;
	size_t rl;
	FILE *rf;

	start(&j);
	dt_json_object_begin(&j);
	dt_json_object_end(&j);
	dt_json_newline(&j);
	dt_json_array_begin(&j);
	dt_json_array_end(&j);
	tap_str(got(), "{}\n[]", "empty object and array");

	start(&j);
	dt_json_object_begin(&j);
	dt_json_kstring(&j, "type", "probe");
	dt_json_kint(&j, "n", -5);
	dt_json_kuint(&j, "u", 18446744073709551615ULL);
	dt_json_key(&j, "a");
	dt_json_array_begin(&j);
	dt_json_int(&j, 1);
	dt_json_array_begin(&j);
	dt_json_array_end(&j);
	dt_json_object_begin(&j);
	dt_json_kint(&j, "x", 0);
	dt_json_object_end(&j);
	dt_json_double(&j, 1.5);
	dt_json_array_end(&j);
	dt_json_key(&j, "b");
	dt_json_bytes(&j, bytes, sizeof(bytes));
	dt_json_object_end(&j);
	dt_json_newline(&j);
	dt_json_object_begin(&j);
	dt_json_kint(&j, "next", 2);
	dt_json_object_end(&j);
	dt_json_newline(&j);
	tap_str(got(), "{\"type\":\"probe\",\"n\":-5,"
	    "\"u\":18446744073709551615,\"a\":[1,[],{\"x\":0},1.500000],"
	    "\"b\":[0,7,255]}\n{\"next\":2}\n",
	    "members, elements and lines, commas at every depth");

	start(&j);
	dt_json_string(&j, "q\"b\\s\nt\tc\001d\177", SIZE_MAX);
	dt_json_string(&j, "caf\303\251|a\377b|\300\257|\355\240\200",
	    SIZE_MAX);
	dt_json_string(&j, "abcdef", 3);
	dt_json_string(&j, "ab\0cd", 5);
	dt_json_string(&j, "\303\251", 1);
	tap_str(got(), "\"q\\\"b\\\\s\\nt\\tc\\u0001d\\u007f\","
	    "\"café|a\\u00ffb|\\u00c0\\u00af|\\u00ed\\u00a0\\u0080\","
	    "\"abc\",\"ab\",\"\\u00c3\"",
	    "strings: escapes, UTF-8 kept, other bytes as code points, "
	    "bounded by n and by NUL");

	/* records made apart, then spliced into an array */
	rf = open_memstream(&rb, &rl);
	dt_json_init(&r, rf);
	dt_json_object_begin(&r);
	dt_json_kint(&r, "v", 1);
	dt_json_object_end(&r);
	dt_json_object_begin(&r);
	dt_json_kint(&r, "v", 2);
	dt_json_object_end(&r);
	fclose(rf);
	start(&j);
	dt_json_array_begin(&j);
	dt_json_values(&j, rb, rl);
	dt_json_int(&j, 3);
	dt_json_array_end(&j);
	dt_json_array_begin(&j);
	dt_json_values(&j, "", 0);
	dt_json_int(&j, 4);
	dt_json_array_end(&j);
	tap_str(got(), "[{\"v\":1},{\"v\":2},3],[4]",
	    "values spliced from another writer; an empty splice adds none");
	free(rb);

	start(&j);
	dt_json_key(&j, "k\"");
	dt_json_int(&j, 1);
	tap_is(dt_json_error(&j), 0, "no error on a good stream");
	tap_str(got(), "\"k\\\"\":1", "a key is quoted like any string");
	return tap_done();
}
