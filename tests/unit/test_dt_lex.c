/*
 * test_dt_lex.c: the D lexer on its own.  Drives the generated dt_yylex()
 * with a parser control block set up as dt_cc.c sets one up, and checks
 * the exact tokens, their values (integer value and D type, string bytes,
 * identifier text), the line numbers, the start-condition switches
 * between probe descriptions, predicates and clause bodies, and the
 * error tags and messages of what it refuses.  Expected values are D's
 * rules as illumos's lexer applies them.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dt_impl.h"
#include "dt_grammar.h"
#include "tap.h"

int	dt_yylex(DT_YYSTYPE *, void *);

static dtrace_hdl_t *g_dtp;

#define MAXTOK	64

typedef struct lex_tok {
	int		lt_tok;
	char		lt_str[64];	/* ident, pspec, string, agg */
	size_t		lt_len;		/* strlen() of a string */
	uint64_t	lt_value;	/* DT_TOK_INT */
	const char	*lt_type;	/* DT_TOK_INT: D type name */
	int		lt_line;	/* line after the token */
} lex_tok_t;

static lex_tok_t g_toks[MAXTOK];
static int g_ntok;

/* src fit for a one-line TAP description: controls as escapes */
static const char *
show(const char *src)
{
	static char buf[4][256];
	static int next;
	char *b = buf[next++ % 4], *q = b;

	for (; *src != '\0' && q < b + sizeof(buf[0]) - 5; src++) {
		if (*src == '\n') {
			*q++ = '\\';
			*q++ = 'n';
		} else if ((unsigned char)*src < ' ') {
			q += sprintf(q, "\\x%02x", (unsigned char)*src);
		} else {
			*q++ = *src;
		}
	}
	*q = '\0';
	return b;
}

/*
 * Lex src to the end; 0 with g_toks[0..g_ntok) (the last is the end of
 * input, token 0) or -1 with the handle's error tag and message.
 */
static int
lex_flags(const char *src, unsigned int cflags, int argc, char *const argv[])
{
	dt_pcb_t pcb;
	DT_YYSTYPE val;
	lex_tok_t *t;
	int tok;

	if (dt_ident_init(g_dtp) != 0)
		return -1;
	memset(&pcb, 0, sizeof(pcb));
	pcb.pcb_hdl = g_dtp;
	pcb.pcb_cflags = cflags;
	pcb.pcb_pspec = DTRACE_PROBESPEC_NAME;
	pcb.pcb_argc = argc;
	pcb.pcb_argv = argv;
	pcb.pcb_gen = 1;
	g_dtp->dt_errtag = NULL;
	g_dtp->dt_errmsg[0] = '\0';
	g_ntok = 0;
	if ((pcb.pcb_argref = calloc(argc + 1, 1)) == NULL)
		return -1;
	if (setjmp(pcb.pcb_jmpbuf) != 0) {
		dt_lex_fini(&pcb);
		dt_parser_free(&pcb);
		free(pcb.pcb_argref);
		return -1;
	}
	if (dt_lex_init(&pcb, src, NULL) != 0)
		abort();
	do {
		memset(&val, 0, sizeof(val));
		tok = dt_yylex(&val, pcb.pcb_scanner);
		if (g_ntok == MAXTOK)
			abort();
		t = &g_toks[g_ntok++];
		memset(t, 0, sizeof(*t));
		t->lt_tok = tok;
		t->lt_line = dt_lex_lineno(&pcb);
		switch (tok) {
		case DT_TOK_INT:
			t->lt_value = val.l_node->dn_value;
			t->lt_type = val.l_node->dn_type->dt_name;
			break;
		case DT_TOK_STRING:
			t->lt_len = strlen(val.l_str);
			snprintf(t->lt_str, sizeof(t->lt_str), "%s", val.l_str);
			break;
		case DT_TOK_PSPEC: case DT_TOK_IDENT: case DT_TOK_TNAME:
		case DT_TOK_AGG:
			snprintf(t->lt_str, sizeof(t->lt_str), "%s", val.l_str);
			break;
		}
	} while (tok != 0);
	dt_lex_fini(&pcb);
	dt_parser_free(&pcb);
	free(pcb.pcb_argref);
	return 0;
}

static int
lex(const char *src)
{
	return lex_flags(src, 0, 0, NULL);
}

/* src lexes to exactly the tokens given (ending with the end, 0). */
static void
check_toks(const char *src, ...)
{
	int want[MAXTOK], n = 0, i, ok;
	va_list ap;

	va_start(ap, src);
	do {
		want[n] = va_arg(ap, int);
	} while (want[n++] != 0 && n < MAXTOK);
	va_end(ap);
	if (lex(src) != 0) {
		tap_ok(0, "lex \"%s\": %s", show(src), g_dtp->dt_errmsg);
		return;
	}
	ok = n == g_ntok;
	for (i = 0; ok && i < n; i++)
		ok = want[i] == g_toks[i].lt_tok;
	if (!ok) {
		printf("# got:");
		for (i = 0; i < g_ntok; i++)
			printf(" %d", g_toks[i].lt_tok);
		printf("\n# want:");
		for (i = 0; i < n; i++)
			printf(" %d", want[i]);
		printf("\n");
	}
	tap_ok(ok, "tokens of \"%s\"", show(src));
}

/* A clause body holding src lexes to one integer of that value and type. */
static void
check_int(const char *src, uint64_t value, const char *type)
{
	char buf[256];
	int ok;

	snprintf(buf, sizeof(buf), "{%s}", src);
	if (lex(buf) != 0) {
		tap_ok(0, "%s: %s", show(src), g_dtp->dt_errmsg);
		return;
	}
	ok = g_ntok == 4 && g_toks[1].lt_tok == DT_TOK_INT &&
	    g_toks[1].lt_value == value && strcmp(g_toks[1].lt_type, type) == 0;
	if (!ok && g_ntok > 1)
		printf("# got tok %d value %#" PRIx64 " type %s\n",
		    g_toks[1].lt_tok, g_toks[1].lt_value,
		    g_toks[1].lt_type ? g_toks[1].lt_type : "-");
	tap_ok(ok, "%s is (%s)%#" PRIx64, show(src), type, value);
}

/* A clause body holding src lexes to one string of len bytes s. */
static void
check_str(const char *src, const char *s, size_t len)
{
	char buf[256];
	int ok;

	snprintf(buf, sizeof(buf), "{%s}", src);
	if (lex(buf) != 0) {
		tap_ok(0, "%s: %s", show(src), g_dtp->dt_errmsg);
		return;
	}
	ok = g_ntok == 4 && g_toks[1].lt_tok == DT_TOK_STRING &&
	    g_toks[1].lt_len == len && memcmp(g_toks[1].lt_str, s, len) == 0;
	tap_ok(ok, "string %s", show(src));
}

/* Lexing src fails with tag and, if msg, exactly that message. */
static void
check_err_flags(const char *src, unsigned int cflags, const char *tag,
    const char *msg)
{
	int ok;

	if (lex_flags(src, cflags, 0, NULL) == 0) {
		tap_ok(0, "\"%s\" should fail with %s", show(src), tag);
		return;
	}
	ok = g_dtp->dt_errtag != NULL && strcmp(g_dtp->dt_errtag, tag) == 0 &&
	    (msg == NULL || strcmp(g_dtp->dt_errmsg, msg) == 0);
	if (!ok)
		printf("# got %s: %s\n", g_dtp->dt_errtag ? g_dtp->dt_errtag :
		    "(no tag)", g_dtp->dt_errmsg);
	tap_ok(ok, "\"%s\": %s", show(src), tag);
}

static void
check_err(const char *src, const char *tag, const char *msg)
{
	check_err_flags(src, 0, tag, msg);
}

/* The whole compiler's message for src (the parser's view of a token). */
static void
check_compile_err(const char *src, const char *tag, const char *msg)
{
	dtrace_prog_t *pgp;
	int ok;

	pgp = dtrace_program_strcompile(g_dtp, src, DTRACE_PROBESPEC_NAME,
	    DTRACE_C_ZDEFS, 0, NULL);
	ok = pgp == NULL && g_dtp->dt_errtag != NULL &&
	    strcmp(g_dtp->dt_errtag, tag) == 0 &&
	    strcmp(g_dtp->dt_errmsg, msg) == 0;
	if (!ok)
		printf("# got %s: %s\n", g_dtp->dt_errtag ? g_dtp->dt_errtag :
		    "(no tag)", g_dtp->dt_errmsg);
	tap_ok(ok, "compile \"%s\": %s", show(src), msg);
}

static void
test_ints(void)
{
	/* an unsuffixed decimal constant: int, long, long long */
	check_int("0", 0, "int");
	check_int("2147483647", 0x7fffffff, "int");
	check_int("2147483648", 0x80000000, "long");
	check_int("4294967295", 0xffffffff, "long");
	check_int("9223372036854775807", 0x7fffffffffffffffULL, "long");
	/* octal and hexadecimal: int, unsigned int, long, unsigned long */
	check_int("0x7fffffff", 0x7fffffff, "int");
	check_int("0x80000000", 0x80000000, "unsigned int");
	check_int("0XFFFFFFFF", 0xffffffff, "unsigned int");
	check_int("0x100000000", 0x100000000ULL, "long");
	check_int("0xffffffffffffffff", UINT64_MAX, "unsigned long");
	check_int("0xDeadBeef", 0xdeadbeef, "unsigned int");
	check_int("017", 15, "int");
	check_int("020000000000", 0x80000000, "unsigned int");
	check_int("01777777777777777777777", UINT64_MAX, "unsigned long");
	/* suffixes restrict the list */
	check_int("1u", 1, "unsigned int");
	check_int("1U", 1, "unsigned int");
	check_int("1l", 1, "long");
	check_int("1L", 1, "long");
	check_int("1ul", 1, "unsigned long");
	check_int("1ll", 1, "long long");
	check_int("1LL", 1, "long long");
	check_int("1ull", 1, "unsigned long long");
	check_int("4294967296u", 0x100000000ULL, "unsigned long");
	check_int("18446744073709551615u", UINT64_MAX, "unsigned long");
	check_int("0x10L", 16, "long");
	check_int("0xffffffffffffffffL", UINT64_MAX, "unsigned long");

	/* illumos's wording: the whole constant and the first bad digit */
	check_err("{09}", "D_INT_DIGIT",
	    "constant 09 contains invalid digit 9");
	check_err("{0778}", "D_INT_DIGIT",
	    "constant 0778 contains invalid digit 8");
	/*
	 * As illumos's lexer: a constant is digits (or 0x and hex digits)
	 * and a suffix of u, l, ll in that order; what follows is the next
	 * token, so these are syntax errors of the parser's.
	 */
	check_compile_err("BEGIN { x = 0x; }", "D_SYNTAX",
	    "syntax error near \"x\"");
	check_compile_err("BEGIN { x = 12a; }", "D_SYNTAX",
	    "syntax error near \"a\"");
	check_compile_err("BEGIN { x = 0x1g; }", "D_SYNTAX",
	    "syntax error near \"g\"");
	check_compile_err("BEGIN { x = 1uu; }", "D_SYNTAX",
	    "syntax error near \"u\"");
	check_compile_err("BEGIN { x = 1lll; }", "D_SYNTAX",
	    "syntax error near \"l\"");
	check_compile_err("BEGIN { x = 1LU; }", "D_SYNTAX",
	    "syntax error near \"U\"");
	check_err("{18446744073709551616}", "D_INT_OFLOW",
	    "constant 18446744073709551616 results in integer overflow");
	check_err("{0x10000000000000000}", "D_INT_OFLOW", NULL);
	/* a decimal constant is never unsigned unless it says so */
	check_err("{9223372036854775808}", "D_INT_OFLOW",
	    "integer constant 0x8000000000000000 cannot be represented in "
	    "any built-in integral type");
	check_err("{18446744073709551615LL}", "D_INT_OFLOW", NULL);
	check_int("9223372036854775808u", 0x8000000000000000ULL,
	    "unsigned long");
}

static void
test_chars(void)
{
	check_int("'a'", 'a', "int");
	check_int("'\\n'", '\n', "int");
	check_int("'\\t'", '\t', "int");
	check_int("'\\r'", '\r', "int");
	check_int("'\\a'", '\a', "int");
	check_int("'\\b'", '\b', "int");
	check_int("'\\f'", '\f', "int");
	check_int("'\\v'", '\v', "int");
	check_int("'\\\\'", '\\', "int");
	/* as illumos: \' and \? are no escapes, the backslash stays */
	check_int("'\\''", 0x5c27, "int");
	check_int("'\\\"'", '"', "int");
	check_int("'\"'", '"', "int");
	check_int("'\\?'", 0x5c3f, "int");
	check_int("'\\0'", 0, "int");
	check_int("'\\x41'", 'A', "int");
	check_int("'\\101'", 'A', "int");
	check_int("'\\7'", 7, "int");
	/* bytes are unsigned, as illumos stores them in a 64-bit int */
	check_int("'\\377'", 255, "int");
	check_int("'\\xff'", 255, "int");
	/* multi-character constants: the first byte most significant */
	check_int("'ab'", 0x6162, "int");
	check_int("'\\1\\2'", 0x0102, "int");
	check_int("'abcd'", 0x61626364, "int");
	check_int("'abcde'", 0x6162636465ULL, "long");
	check_int("'abcdefgh'", 0x6162636465666768ULL, "long");
	check_int("'\\x7f\\xff\\xff\\xff\\xff\\xff\\xff\\xff'",
	    0x7fffffffffffffffULL, "long");
	check_err("{'\\x80\\0\\0\\0\\0\\0\\0\\0'}", "D_INT_OFLOW",
	    "integer constant 0x8000000000000000 cannot be represented in "
	    "any built-in integral type");
	check_err("{'abcdefghi'}", "D_CHR_OFLOW",
	    "character constant is too long");
	check_err("{''}", "D_CHR_NULL", "empty character constant");
	check_err("{'a\n'}", "D_CHR_NL",
	    "newline encountered in character constant");
	check_err("{'a", "D_CHR_NL", NULL);
}

static void
test_strings(void)
{
	check_str("\"\"", "", 0);
	check_str("\"abc\"", "abc", 3);
	check_str("\"a\\nb\\tc\"", "a\nb\tc", 5);
	check_str("\"\\\\\\\"\\'\"", "\\\"\\'", 4);
	check_str("\"\\x41\\101\\60\"", "AA0", 3);
	/* three octal digits at most; a NUL ends a D string */
	check_str("\"\\1012\"", "A2", 2);
	check_str("\"it's\"", "it's", 4);
	check_str("\"/* no comment */\"", "/* no comment */", 16);
	check_str("\"a\\0b\"", "a", 1);
	/* D does not paste adjacent literals: two tokens */
	check_toks("{\"a\" \"b\"}", DT_TOK_LBRACE, DT_TOK_STRING,
	    DT_TOK_STRING, DT_TOK_RBRACE, 0);
	check_err("{\"abc\n\"}", "D_STR_NL",
	    "newline encountered in string literal");
	check_err("{\"abc", "D_STR_NL",
	    "newline encountered in string literal");
	/* a string in a predicate and in a declaration */
	check_toks("BEGIN /\"x\"/ {}", DT_TOK_PSPEC, DT_TOK_DIV,
	    DT_TOK_STRING, DT_TOK_EPRED, DT_TOK_LBRACE, DT_TOK_RBRACE, 0);
}

static void
test_operators(void)
{
	check_toks("{ ^^ -> ++ -- <<= >>= << >> <= >= == != && || }",
	    DT_TOK_LBRACE, DT_TOK_LXOR, DT_TOK_PTR, DT_TOK_INC, DT_TOK_DEC,
	    DT_TOK_LSH_EQ, DT_TOK_RSH_EQ, DT_TOK_LSH, DT_TOK_RSH, DT_TOK_LE,
	    DT_TOK_GE, DT_TOK_EQU, DT_TOK_NEQ, DT_TOK_LAND, DT_TOK_LOR,
	    DT_TOK_RBRACE, 0);
	check_toks("{ += -= *= /= %= &= |= ^= = }", DT_TOK_LBRACE,
	    DT_TOK_ADD_EQ, DT_TOK_SUB_EQ, DT_TOK_MUL_EQ, DT_TOK_DIV_EQ,
	    DT_TOK_MOD_EQ, DT_TOK_AND_EQ, DT_TOK_OR_EQ, DT_TOK_XOR_EQ,
	    DT_TOK_ASGN, DT_TOK_RBRACE, 0);
	check_toks("{ + - * / % & | ^ ~ ! < > ? : . ... ( ) [ ] , ; }",
	    DT_TOK_LBRACE, DT_TOK_ADD, DT_TOK_SUB, DT_TOK_MUL, DT_TOK_DIV,
	    DT_TOK_MOD, DT_TOK_BAND, DT_TOK_BOR, DT_TOK_XOR, DT_TOK_BNEG,
	    DT_TOK_LNEG, DT_TOK_LT, DT_TOK_GT, DT_TOK_QUESTION, DT_TOK_COLON,
	    DT_TOK_DOT, DT_TOK_ELLIPSIS, DT_TOK_LPAR, DT_TOK_RPAR,
	    DT_TOK_LBRAC, DT_TOK_RBRAC, DT_TOK_COMMA, DT_TOK_SEMI,
	    DT_TOK_RBRACE, 0);
	/* longest match, with no spaces */
	check_toks("{a+++b}", DT_TOK_LBRACE, DT_TOK_IDENT, DT_TOK_INC,
	    DT_TOK_ADD, DT_TOK_IDENT, DT_TOK_RBRACE, 0);
	check_toks("{a--->b}", DT_TOK_LBRACE, DT_TOK_IDENT, DT_TOK_DEC,
	    DT_TOK_PTR, DT_TOK_IDENT, DT_TOK_RBRACE, 0);
	check_toks("{a<<=b>>=c^^d}", DT_TOK_LBRACE, DT_TOK_IDENT,
	    DT_TOK_LSH_EQ, DT_TOK_IDENT, DT_TOK_RSH_EQ, DT_TOK_IDENT,
	    DT_TOK_LXOR, DT_TOK_IDENT, DT_TOK_RBRACE, 0);
	check_toks("{x....y}", DT_TOK_LBRACE, DT_TOK_IDENT, DT_TOK_ELLIPSIS,
	    DT_TOK_DOT, DT_TOK_IDENT, DT_TOK_RBRACE, 0);

	/* self-> and this-> are a keyword, ->, an identifier */
	check_toks("{self->x = this->y;}", DT_TOK_LBRACE, DT_KEY_SELF,
	    DT_TOK_PTR, DT_TOK_IDENT, DT_TOK_ASGN, DT_KEY_THIS, DT_TOK_PTR,
	    DT_TOK_IDENT, DT_TOK_SEMI, DT_TOK_RBRACE, 0);

	/* aggregations: @ and @name, the name without its @ */
	if (lex("{@[1] = count(); @foo_1 = sum(2);}") == 0) {
		tap_ok(g_toks[1].lt_tok == DT_TOK_AGG &&
		    strcmp(g_toks[1].lt_str, "") == 0 &&
		    g_toks[2].lt_tok == DT_TOK_LBRAC, "@ is the anonymous "
		    "aggregation");
		tap_ok(g_toks[10].lt_tok == DT_TOK_AGG &&
		    strcmp(g_toks[10].lt_str, "foo_1") == 0, "@foo_1");
	} else {
		tap_ok(0, "aggregations: %s", g_dtp->dt_errmsg);
		tap_ok(0, "@foo_1");
	}
}

static void
test_macros(void)
{
	char *const argv[] = { "prog", "42", "-7", "walk", "0x10", "1a" };

	/* $N: an integer, or an identifier; $$N: a string */
	if (lex_flags("{$1 $2 $3 $$1 $4 $$3}", 0, 6, argv) == 0) {
		tap_ok(g_ntok == 9, "six macro tokens");
		tap_ok(g_toks[1].lt_tok == DT_TOK_INT &&
		    g_toks[1].lt_value == 42 &&
		    strcmp(g_toks[1].lt_type, "int") == 0, "$1 is 42");
		tap_ok(g_toks[2].lt_tok == DT_TOK_INT &&
		    g_toks[2].lt_value == (uint64_t)-7 &&
		    strcmp(g_toks[2].lt_type, "int") == 0, "$2 is -7");
		tap_ok(g_toks[3].lt_tok == DT_TOK_IDENT &&
		    strcmp(g_toks[3].lt_str, "walk") == 0, "$3 is walk");
		tap_ok(g_toks[4].lt_tok == DT_TOK_STRING &&
		    strcmp(g_toks[4].lt_str, "42") == 0, "$$1 is \"42\"");
		tap_ok(g_toks[5].lt_tok == DT_TOK_INT &&
		    g_toks[5].lt_value == 16, "$4 0x10 is 16");
		tap_ok(g_toks[6].lt_tok == DT_TOK_STRING &&
		    strcmp(g_toks[6].lt_str, "walk") == 0, "$$3 is \"walk\"");
	} else {
		tap_ok(0, "macros: %s", g_dtp->dt_errmsg);
	}
	check_err("{$1}", "D_MACRO_UNDEF", "macro argument $1 is not defined");
	check_err("{$$2}", "D_MACRO_UNDEF",
	    "macro argument $$2 is not defined");
	/* neither a number nor an identifier: a string, as in illumos */
	if (lex_flags("{$5}", 0, 6, argv) == 0)
		tap_ok(g_toks[1].lt_tok == DT_TOK_STRING &&
		    strcmp(g_toks[1].lt_str, "1a") == 0, "$5 1a is \"1a\"");
	else
		tap_ok(0, "$5 = 1a: %s", g_dtp->dt_errmsg);
	/* -x defaultargs: unset arguments are 0 and "" */
	if (lex_flags("{$3 $$3}", DTRACE_C_DEFARG, 0, NULL) == 0)
		tap_ok(g_toks[1].lt_tok == DT_TOK_INT &&
		    g_toks[1].lt_value == 0 && g_toks[2].lt_tok ==
		    DT_TOK_STRING && g_toks[2].lt_str[0] == '\0',
		    "defaultargs: $3 is 0, $$3 is \"\"");
	else
		tap_ok(0, "defaultargs: %s", g_dtp->dt_errmsg);

	/* $pid is ours, $target needs -c/-p (or defaultargs) */
	if (lex("{$pid}") == 0)
		tap_ok(g_toks[1].lt_tok == DT_TOK_INT &&
		    g_toks[1].lt_value == (uint64_t)getpid(), "$pid");
	else
		tap_ok(0, "$pid: %s", g_dtp->dt_errmsg);
	check_err("{$target}", "D_MACRO_UNDEF", NULL);
	if (lex_flags("{$target}", DTRACE_C_DEFARG, 0, NULL) == 0)
		tap_ok(g_toks[1].lt_tok == DT_TOK_INT &&
		    g_toks[1].lt_value == 0, "defaultargs: $target is 0");
	else
		tap_ok(0, "$target: %s", g_dtp->dt_errmsg);
	check_err("{$nosuch}", "D_MACRO_UNDEF", NULL);
}

static void
test_keywords(void)
{
	static const struct {
		const char	*name;
		int		tok;
	} kw[] = {
		{ "char", DT_KEY_CHAR }, { "short", DT_KEY_SHORT },
		{ "int", DT_KEY_INT }, { "long", DT_KEY_LONG },
		{ "signed", DT_KEY_SIGNED }, { "unsigned", DT_KEY_UNSIGNED },
		{ "void", DT_KEY_VOID }, { "string", DT_KEY_STRING },
		{ "float", DT_KEY_FLOAT }, { "double", DT_KEY_DOUBLE },
		{ "const", DT_KEY_CONST }, { "volatile", DT_KEY_VOLATILE },
		{ "restrict", DT_KEY_RESTRICT }, { "extern", DT_KEY_EXTERN },
		{ "struct", DT_KEY_STRUCT }, { "union", DT_KEY_UNION },
		{ "enum", DT_KEY_ENUM }, { "typedef", DT_KEY_TYPEDEF },
		{ "sizeof", DT_KEY_SIZEOF }, { "self", DT_KEY_SELF },
		{ "this", DT_KEY_THIS }, { "inline", DT_KEY_INLINE },
		{ "offsetof", DT_KEY_OFFSETOF },
		{ "stringof", DT_KEY_STRINGOF },
		{ "translator", DT_KEY_TRANSLATOR },
		{ "xlate", DT_KEY_XLATE },
		/* reserved in D, not usable as identifiers */
		{ "auto", DT_KEY_AUTO }, { "break", DT_KEY_OTHER },
		{ "case", DT_KEY_OTHER }, { "continue", DT_KEY_OTHER },
		{ "counter", DT_KEY_OTHER }, { "default", DT_KEY_OTHER },
		{ "do", DT_KEY_OTHER }, { "else", DT_KEY_OTHER },
		{ "for", DT_KEY_OTHER }, { "goto", DT_KEY_OTHER },
		{ "if", DT_KEY_OTHER }, { "import", DT_KEY_OTHER },
		{ "probe", DT_KEY_OTHER }, { "provider", DT_KEY_OTHER },
		{ "register", DT_KEY_REGISTER }, { "return", DT_KEY_OTHER },
		{ "static", DT_KEY_STATIC }, { "switch", DT_KEY_OTHER },
		{ "userland", DT_KEY_OTHER }, { "while", DT_KEY_OTHER },
	};
	static const char *const idents[] = { "x", "_", "selfish", "this_",
	    "Int", "int32", "probefunc", "trace", "xlator", "inlined",
	    "stringof_", "__x9" };
	char buf[64];
	size_t i;
	int ok;

	for (i = 0; i < sizeof(kw) / sizeof(kw[0]); i++) {
		snprintf(buf, sizeof(buf), "{%s}", kw[i].name);
		ok = lex(buf) == 0 && g_ntok == 4 && g_toks[1].lt_tok ==
		    kw[i].tok;
		tap_ok(ok, "%s is keyword %d", kw[i].name, kw[i].tok);
	}
	for (i = 0; i < sizeof(idents) / sizeof(idents[0]); i++) {
		snprintf(buf, sizeof(buf), "{%s}", idents[i]);
		ok = lex(buf) == 0 && g_ntok == 4 && g_toks[1].lt_tok ==
		    DT_TOK_IDENT && strcmp(g_toks[1].lt_str, idents[i]) == 0;
		tap_ok(ok, "%s is an identifier", idents[i]);
	}

	/* a declared typedef is a type name, in a body and at the top */
	check_toks("{uint32_t x; size_t y;}", DT_TOK_LBRACE, DT_TOK_TNAME,
	    DT_TOK_IDENT, DT_TOK_SEMI, DT_TOK_TNAME, DT_TOK_IDENT,
	    DT_TOK_SEMI, DT_TOK_RBRACE, 0);
	check_toks("uint64_t g;", DT_TOK_TNAME, DT_TOK_IDENT, DT_TOK_SEMI, 0);
	check_toks("{my_t}", DT_TOK_LBRACE, DT_TOK_IDENT, DT_TOK_RBRACE, 0);
	/* once typedef'd by a compile, the word is a type name */
	if (dtrace_program_strcompile(g_dtp, "typedef int my_t;",
	    DTRACE_PROBESPEC_NAME, DTRACE_C_EMPTY, 0, NULL) == NULL)
		tap_ok(0, "typedef: %s", g_dtp->dt_errmsg);
	else
		check_toks("{my_t}", DT_TOK_LBRACE, DT_TOK_TNAME,
		    DT_TOK_RBRACE, 0);
	/* a kernel symbol (`sym, mod`sym) is refused by name */
	check_err("{trace(`max_ncpus);}", "D_VAR_UNSUP",
	    "kernel symbol `max_ncpus is not available when tracing user "
	    "processes");
	check_err("{genunix`cpu}", "D_VAR_UNSUP", NULL);
}

static void
test_pdesc(void)
{
	static const char *const specs[] = {
		"pid$target:libc.so.6:malloc:entry",
		"pid123:a.out:main:return", "syscall::read*:entry",
		"pid$1::*alloc?:entry", "pid$target:libc*::[a-z]*",
		"::entry", "pid$target:ld-linux-x86-64.so.2::entry",
		"BEGIN", "profile:::tick-1sec", "pid$target::f:1a",
		"pid$target::!x:entry", "pid$target:a.out:f\\*:entry",
		"pid$target::`x:entry",
	};
	char buf[128];
	size_t i;
	int ok;

	/* a description is one token, globs, $ and - included */
	for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		snprintf(buf, sizeof(buf), "%s {}", specs[i]);
		ok = lex(buf) == 0 && g_ntok == 4 &&
		    g_toks[0].lt_tok == DT_TOK_PSPEC &&
		    strcmp(g_toks[0].lt_str, specs[i]) == 0 &&
		    g_toks[1].lt_tok == DT_TOK_LBRACE;
		tap_ok(ok, "pspec %s", specs[i]);
	}
	/* lists, and a predicate */
	check_toks("BEGIN, END,tick-1 /x/ { y }", DT_TOK_PSPEC, DT_TOK_COMMA,
	    DT_TOK_PSPEC, DT_TOK_COMMA, DT_TOK_PSPEC, DT_TOK_DIV, DT_TOK_IDENT,
	    DT_TOK_EPRED, DT_TOK_LBRACE, DT_TOK_IDENT, DT_TOK_RBRACE, 0);
	/* in a predicate, "/" divides unless {, ; / or the end follow */
	check_toks("a /x / 2 == 1/ {}", DT_TOK_PSPEC, DT_TOK_DIV,
	    DT_TOK_IDENT, DT_TOK_DIV, DT_TOK_INT, DT_TOK_EQU, DT_TOK_INT,
	    DT_TOK_EPRED, DT_TOK_LBRACE, DT_TOK_RBRACE, 0);
	check_toks("a /x/\n\n{}", DT_TOK_PSPEC, DT_TOK_DIV, DT_TOK_IDENT,
	    DT_TOK_EPRED, DT_TOK_LBRACE, DT_TOK_RBRACE, 0);
	check_toks("a /x/", DT_TOK_PSPEC, DT_TOK_DIV, DT_TOK_IDENT,
	    DT_TOK_EPRED, 0);
	/* in a predicate a glob character is an operator */
	check_toks("a /b*c?d:e/ {}", DT_TOK_PSPEC, DT_TOK_DIV, DT_TOK_IDENT,
	    DT_TOK_MUL, DT_TOK_IDENT, DT_TOK_QUESTION, DT_TOK_IDENT,
	    DT_TOK_COLON, DT_TOK_IDENT, DT_TOK_EPRED, DT_TOK_LBRACE,
	    DT_TOK_RBRACE, 0);
	/* back to descriptions after the body's closing brace only */
	check_toks("a { { x:y } } b:c-d:e* {}", DT_TOK_PSPEC, DT_TOK_LBRACE,
	    DT_TOK_LBRACE, DT_TOK_IDENT, DT_TOK_COLON, DT_TOK_IDENT,
	    DT_TOK_RBRACE, DT_TOK_RBRACE, DT_TOK_PSPEC, DT_TOK_LBRACE,
	    DT_TOK_RBRACE, 0);
	if (lex("a{}b:c-d:e*{}") == 0)
		tap_ok(g_ntok == 7 && strcmp(g_toks[3].lt_str, "b:c-d:e*") == 0,
		    "pspec after a body");
	else
		tap_ok(0, "pspec after a body: %s", g_dtp->dt_errmsg);
	/* in a body, a - is subtraction and * multiplication */
	check_toks("{a-b*c}", DT_TOK_LBRACE, DT_TOK_IDENT, DT_TOK_SUB,
	    DT_TOK_IDENT, DT_TOK_MUL, DT_TOK_IDENT, DT_TOK_RBRACE, 0);
	/* a declaration at the top level lexes expressions to its ; */
	check_toks("struct s { int a; }; x:y {}", DT_KEY_STRUCT,
	    DT_TOK_IDENT, DT_TOK_LBRACE, DT_KEY_INT, DT_TOK_IDENT,
	    DT_TOK_SEMI, DT_TOK_RBRACE, DT_TOK_SEMI, DT_TOK_PSPEC,
	    DT_TOK_LBRACE, DT_TOK_RBRACE, 0);
	check_toks("inline int x = 1 - 2; a-b {}", DT_KEY_INLINE, DT_KEY_INT,
	    DT_TOK_IDENT, DT_TOK_ASGN, DT_TOK_INT, DT_TOK_SUB, DT_TOK_INT,
	    DT_TOK_SEMI, DT_TOK_PSPEC, DT_TOK_LBRACE, DT_TOK_RBRACE, 0);
	check_toks("self int x; this int y; a-b", DT_KEY_SELF, DT_KEY_INT,
	    DT_TOK_IDENT, DT_TOK_SEMI, DT_KEY_THIS, DT_KEY_INT, DT_TOK_IDENT,
	    DT_TOK_SEMI, DT_TOK_PSPEC, 0);
	/* a character the program level has no use for */
	check_toks("a ; {}", DT_TOK_PSPEC, DT_KEY_OTHER, DT_TOK_LBRACE,
	    DT_TOK_RBRACE, 0);
}

static void
test_comments_lines(void)
{
	int i, ok;

	check_toks("/* a */ BEGIN /* b\n c */ { /**/ x /***/ } /* { */",
	    DT_TOK_PSPEC, DT_TOK_LBRACE, DT_TOK_IDENT, DT_TOK_RBRACE, 0);
	check_toks("// line\nBEGIN { x // y }\n}", DT_TOK_PSPEC,
	    DT_TOK_LBRACE, DT_TOK_IDENT, DT_TOK_RBRACE, 0);
	check_toks("{ x /*/ y */ }", DT_TOK_LBRACE, DT_TOK_IDENT,
	    DT_TOK_RBRACE, 0);
	check_err("BEGIN { /* x\n\n", "D_SYNTAX",
	    "end-of-file encountered before matching */");
	check_err("/* x", "D_SYNTAX",
	    "end-of-file encountered before matching */");

	/* lines: one per newline, in comments too */
	if (lex("a\n/* 2\n3\n4 */ b\n{\n\"s\"\n\n'c' }") == 0) {
		static const int want[] = { 1, 4, 5, 6, 8, 8, 8 };

		ok = g_ntok == 7;
		for (i = 0; ok && i < 7; i++)
			ok = g_toks[i].lt_line == want[i];
		for (i = 0; !ok && i < g_ntok; i++)
			printf("# token %d line %d\n", i, g_toks[i].lt_line);
		tap_ok(ok, "line numbers across comments and strings");
	} else {
		tap_ok(0, "lines: %s", g_dtp->dt_errmsg);
	}
	/* a cpp line marker and #line: the next line has that number */
	if (lex("a\n# 40 \"f.d\"\nb\n#line 7\nc {}") == 0)
		tap_ok(g_ntok == 6 && g_toks[1].lt_line == 40 &&
		    g_toks[2].lt_line == 7, "line markers (%d %d)",
		    g_toks[1].lt_line, g_toks[2].lt_line);
	else
		tap_ok(0, "line markers: %s", g_dtp->dt_errmsg);
	/* #pragma D line, and a #pragma in a body */
	if (lex("#pragma D line 100\n{\n#pragma ident \"x\"\nx }") == 0)
		tap_ok(g_ntok == 4 && g_toks[0].lt_line == 100 &&
		    g_toks[1].lt_line == 102, "#pragma D line (%d %d)",
		    g_toks[0].lt_line, g_toks[1].lt_line);
	else
		tap_ok(0, "#pragma D line: %s", g_dtp->dt_errmsg);
	check_err("#pragma D error stop here\n", "D_PRAGERR",
	    "#pragma error: stop here");
	check_err("#pragma D nosuch\n", "D_PRAGMA_INVAL", NULL);
	/* a # not at the start of a line is no directive */
	check_toks("{ x # y }", DT_TOK_LBRACE, DT_TOK_IDENT, DT_KEY_OTHER,
	    DT_TOK_IDENT, DT_TOK_RBRACE, 0);
	/* an interpreter line on line 1 */
	check_toks("#!/usr/sbin/dtrace -s\nBEGIN {}", DT_TOK_PSPEC,
	    DT_TOK_LBRACE, DT_TOK_RBRACE, 0);
}

/* Compiled from a file (-s), a lexer error names its line. */
static void
check_file_err(const char *src, const char *tag, const char *msg)
{
	dtrace_prog_t *pgp = NULL;
	FILE *fp;
	int ok;

	if ((fp = fmemopen((void *)src, strlen(src), "r")) != NULL) {
		pgp = dtrace_program_fcompile(g_dtp, fp, DTRACE_C_ZDEFS, 0,
		    NULL);
		fclose(fp);
	}
	ok = fp != NULL && pgp == NULL && g_dtp->dt_errtag != NULL &&
	    strcmp(g_dtp->dt_errtag, tag) == 0 &&
	    strcmp(g_dtp->dt_errmsg, msg) == 0;
	if (!ok)
		printf("# got %s: %s\n", g_dtp->dt_errtag ? g_dtp->dt_errtag :
		    "(no tag)", g_dtp->dt_errmsg);
	tap_ok(ok, "file \"%s\": %s", show(src), msg);
}

static void
test_invalid(void)
{
	/* as illumos: the line after the newline that ends the literal */
	check_file_err("BEGIN\n{\n/* x\n*/\ttrace(\"abc\n\");\n}\n",
	    "D_STR_NL", "line 5: newline encountered in string literal");
	check_file_err("BEGIN\n{\n\ttrace('ab\n');\n}\n", "D_CHR_NL",
	    "line 4: newline encountered in character constant");
	check_file_err("BEGIN\n{\n\ttrace(epid));\n}\n", "D_SYNTAX",
	    "line 3: extra ) in input stream");
	/* as illumos: read with the blanks after it, at the "{" line */
	check_file_err("BEGIN\n/(epid > 0/\n{\n}\n", "D_SYNTAX",
	    "line 3: closing ) expected in predicate before /");
	check_file_err("BEGIN\n{\n}\n#pragma D option quiet", "D_SYNTAX",
	    "line 4: end-of-file encountered before end of control line");
	check_file_err("BEGIN\n{\n\ttrace(\"a\");\n\ttrace(09);\n}\n",
	    "D_INT_DIGIT", "line 4: constant 09 contains invalid digit 9");
	check_file_err("BEGIN\n{\n/*\n\n", "D_SYNTAX",
	    "line 5: end-of-file encountered before matching */");
	check_file_err("# 20 \"x.d\"\nBEGIN\n{\n\ttrace('');\n}\n",
	    "D_CHR_NULL", "line 22: empty character constant");
	/* characters D has no token for reach the parser as themselves */
	check_toks("{ # }", DT_TOK_LBRACE, DT_KEY_OTHER, DT_TOK_RBRACE, 0);
	check_toks("{ \\ }", DT_TOK_LBRACE, DT_KEY_OTHER, DT_TOK_RBRACE, 0);
	check_toks("{ \x01 }", DT_TOK_LBRACE, DT_KEY_OTHER, DT_TOK_RBRACE, 0);
	check_compile_err("BEGIN { trace(1 # 2); }", "D_SYNTAX",
	    "syntax error near \"#\"");
	check_compile_err("BEGIN { if (1) trace(1); }", "D_SYNTAX",
	    "syntax error near \"if\"");
	check_compile_err("BEGIN { trace(1) \\ }", "D_SYNTAX",
	    "syntax error near \"\\\"");
}

int
main(void)
{
	int err;

	if ((g_dtp = dtrace_open(DTRACE_VERSION, DTRACE_O_NODEV, &err)) ==
	    NULL) {
		printf("Bail out! dtrace_open: %d\n", err);
		return 1;
	}
	test_ints();
	test_chars();
	test_strings();
	test_operators();
	test_macros();
	test_keywords();
	test_pdesc();
	test_comments_lines();
	test_invalid();
	dtrace_close(g_dtp);
	return tap_done();
}
