/*
 * dt_grammar.y: the D grammar.  A reentrant bison parser; its actions do
 * nothing but call the dt_node_* constructors of dt_parser.c.  The lexer
 * (dt_lex.l) switches start conditions between the program level, where
 * probe descriptions are single tokens, predicates and clause bodies.
 */
%code requires {
#include "dt_impl.h"
}

%code provides {
int	dt_yylex(DT_YYSTYPE *, void *);
}

%{
#include <stdlib.h>
#include <string.h>

/*
 * A compile error longjmps out of the parser: its stack must not be
 * malloc'd, or a deeply nested program leaks it.  On the C stack, it
 * goes with the frame; nesting deeper than YYMAXDEPTH is an error.
 */
#define YYSTACK_USE_ALLOCA	1
#define YYMAXDEPTH		2000

#include "dt_impl.h"

static void dt_yyerror(dt_pcb_t *, void *, const char *);
static void dt_grammar_tsmerge(dt_pcb_t *, dt_typespec_t *,
    const dt_typespec_t *);
static dt_declr_t *dt_grammar_declr(dt_pcb_t *, char *);
static dt_declr_t *dt_grammar_dop(dt_pcb_t *, dt_declr_t *, int, uint64_t,
    dt_node_t *);
static dt_declr_t *dt_grammar_declr_list(dt_declr_t *, dt_declr_t *);
static dt_declr_t *dt_grammar_func(dt_pcb_t *, dt_declr_t *, dt_node_t *,
    int);
static dt_typespec_t dt_grammar_ts1(int);
static void dt_grammar_parmclass(dt_pcb_t *);
%}

%define api.pure full
%define api.prefix {dt_yy}
%define parse.error simple
%parse-param {dt_pcb_t *pcb} {void *scanner}
%lex-param {void *scanner}
%expect 0

%union {
	char		*l_str;
	dt_node_t	*l_node;
	const dt_type_t	*l_type;
	dt_typespec_t	l_ts;
	int		l_tok;
	dt_declr_t	*l_declr;
}

%token <l_str>	DT_TOK_PSPEC DT_TOK_IDENT DT_TOK_AGG DT_TOK_STRING
%token <l_str>	DT_TOK_TNAME
%token <l_node>	DT_TOK_INT
%token		DT_TOK_EPRED

%token		DT_KEY_CHAR DT_KEY_SHORT DT_KEY_INT DT_KEY_LONG
%token		DT_KEY_SIGNED DT_KEY_UNSIGNED DT_KEY_VOID DT_KEY_STRING
%token		DT_KEY_SIZEOF DT_KEY_OTHER DT_KEY_SELF DT_KEY_THIS
%token		DT_KEY_STRUCT DT_KEY_UNION DT_KEY_ENUM DT_KEY_TYPEDEF
%token		DT_KEY_INLINE DT_KEY_OFFSETOF DT_KEY_STRINGOF
%token		DT_KEY_TRANSLATOR DT_KEY_XLATE DT_KEY_FLOAT DT_KEY_DOUBLE
%token		DT_KEY_CONST DT_KEY_VOLATILE DT_KEY_RESTRICT DT_KEY_EXTERN
%token		DT_KEY_AUTO DT_KEY_REGISTER DT_KEY_STATIC

%token		DT_TOK_COMMA DT_TOK_SEMI DT_TOK_LBRACE DT_TOK_RBRACE
%token		DT_TOK_LPAR DT_TOK_RPAR DT_TOK_LBRAC DT_TOK_RBRAC
%token		DT_TOK_QUESTION DT_TOK_COLON
%token		DT_TOK_ASGN DT_TOK_ADD_EQ DT_TOK_SUB_EQ DT_TOK_MUL_EQ
%token		DT_TOK_DIV_EQ DT_TOK_MOD_EQ DT_TOK_AND_EQ DT_TOK_XOR_EQ
%token		DT_TOK_OR_EQ DT_TOK_LSH_EQ DT_TOK_RSH_EQ
%token		DT_TOK_LOR DT_TOK_LXOR DT_TOK_LAND
%token		DT_TOK_BOR DT_TOK_XOR DT_TOK_BAND
%token		DT_TOK_EQU DT_TOK_NEQ DT_TOK_LT DT_TOK_LE DT_TOK_GT DT_TOK_GE
%token		DT_TOK_LSH DT_TOK_RSH
%token		DT_TOK_ADD DT_TOK_SUB DT_TOK_MUL DT_TOK_DIV DT_TOK_MOD
%token		DT_TOK_LNEG DT_TOK_BNEG DT_TOK_INC DT_TOK_DEC DT_TOK_PTR
%token		DT_TOK_DOT DT_TOK_ELLIPSIS

/* operators the parse tree uses but the lexer never returns */
%token		DT_TOK_PREINC DT_TOK_POSTINC DT_TOK_PREDEC DT_TOK_POSTDEC
%token		DT_TOK_IPOS DT_TOK_INEG DT_TOK_CAST DT_TOK_SIZEOF
%token		DT_TOK_DEREF DT_TOK_ADDROF DT_TOK_STRINGOF DT_TOK_OFFSETOF
%token		DT_TOK_XLATE

%type <l_node>	clause_list clause pdesc_list pdesc predicate
%type <l_node>	statement_list statement_list_impl statement
%type <l_node>	expression assignment_expression conditional_expression
%type <l_node>	logical_or_expression logical_xor_expression
%type <l_node>	logical_and_expression inclusive_or_expression
%type <l_node>	exclusive_or_expression and_expression equality_expression
%type <l_node>	relational_expression shift_expression additive_expression
%type <l_node>	multiplicative_expression cast_expression unary_expression
%type <l_node>	postfix_expression primary_expression argument_list
%type <l_node>	type_name xlator_members
%type <l_node>	parameter_list parameter_declaration
%type <l_ts>	type_specifiers type_specifier decl_specifiers decl_specifier
%type <l_ts>	sou_specifier enum_specifier
%type <l_declr>	declarator direct_declarator init_declarator_list
%type <l_declr>	member_declarator member_declarator_list
%type <l_declr>	abstract_declarator direct_abstract_declarator
%type <l_str>	tag
%type <l_tok>	sou_keyword pointer
%type <l_tok>	assignment_operator unary_operator

%%

d_program:
		%empty			{ dt_node_program(pcb, NULL); }
	|	clause_list		{ dt_node_program(pcb, $1); }
	;

/* declarations take effect as they are parsed: only clauses remain */
clause_list:
		clause
	|	declaration		{ $$ = NULL; }
	|	clause_list clause	{ $$ = dt_node_link($1, $2); }
	|	clause_list declaration	{ $$ = $1; }
	;

declaration:
		DT_KEY_INLINE decl_specifiers declarator DT_TOK_ASGN
		    assignment_expression DT_TOK_SEMI
			{ dt_node_inline_decl(pcb, &$2, $3, $5); }
	|	DT_KEY_TRANSLATOR type_name DT_TOK_LT type_name DT_TOK_IDENT
		    DT_TOK_GT DT_TOK_LBRACE xlator_members DT_TOK_RBRACE
		    DT_TOK_SEMI
			{ dt_node_xlator_decl(pcb, $2, $4, $5, $8); }
	|	decl_specifiers DT_TOK_SEMI
			{ dt_decl_declare(pcb, &$1, NULL, dt_lex_lineno(pcb)); }
	|	decl_specifiers init_declarator_list DT_TOK_SEMI
			{ dt_decl_declare(pcb, &$1, $2, $2->dd_line); }
	;

xlator_members:
		%empty			{ $$ = NULL; }
	|	xlator_members DT_TOK_IDENT DT_TOK_ASGN expression DT_TOK_SEMI
			{ $$ = dt_node_link($1, dt_node_xlator_member(pcb, $2, $4)); }
	|	xlator_members DT_TOK_TNAME DT_TOK_ASGN expression DT_TOK_SEMI
			{ $$ = dt_node_link($1, dt_node_xlator_member(pcb, $2, $4)); }
	;

decl_specifiers:
		decl_specifier
	|	decl_specifiers decl_specifier
			{ $$ = $1; dt_grammar_tsmerge(pcb, &$$, &$2); }
	;

decl_specifier:
		type_specifier
	|	DT_KEY_TYPEDEF	{ $$ = dt_grammar_ts1(DT_DCLASS_TYPEDEF); }
	|	DT_KEY_SELF	{ $$ = dt_grammar_ts1(DT_DCLASS_SELF); }
	|	DT_KEY_THIS	{ $$ = dt_grammar_ts1(DT_DCLASS_THIS); }
	|	DT_KEY_EXTERN	{ $$ = dt_grammar_ts1(DT_DCLASS_EXTERN); }
	|	DT_KEY_AUTO	{ $$ = dt_grammar_ts1(DT_DCLASS_AUTO); }
	|	DT_KEY_REGISTER	{ $$ = dt_grammar_ts1(DT_DCLASS_REGISTER); }
	|	DT_KEY_STATIC	{ $$ = dt_grammar_ts1(DT_DCLASS_STATIC); }
	;

init_declarator_list:
		declarator
	|	init_declarator_list DT_TOK_COMMA declarator
			{ $$ = dt_grammar_declr_list($1, $3); }
	;

declarator:
		direct_declarator
	|	pointer direct_declarator
			{ $$ = dt_grammar_dop(pcb, $2, DT_DOP_PTR, $1, NULL); }
	;

pointer:
		DT_TOK_MUL			{ $$ = 1; }
	|	DT_TOK_MUL type_qualifiers	{ $$ = 1; }
	|	DT_TOK_MUL pointer		{ $$ = $2 + 1; }
	|	DT_TOK_MUL type_qualifiers pointer	{ $$ = $3 + 1; }
	;

type_qualifiers:
		type_qualifier
	|	type_qualifiers type_qualifier
	;

type_qualifier:
		DT_KEY_CONST | DT_KEY_VOLATILE | DT_KEY_RESTRICT
	;

direct_declarator:
		DT_TOK_IDENT		{ $$ = dt_grammar_declr(pcb, $1); }
	|	DT_TOK_LPAR declarator DT_TOK_RPAR	{ $$ = $2; }
	|	direct_declarator DT_TOK_LBRAC conditional_expression
		    DT_TOK_RBRAC
			{
				$$ = dt_grammar_dop(pcb, $1, DT_DOP_ARRAY,
				    (uint64_t)dt_node_intconst(pcb, $3,
				    "array dimension", D_DECL_ARRSUB), NULL);
			}
	|	direct_declarator DT_TOK_LBRAC parameter_list DT_TOK_RBRAC
			{ $$ = dt_grammar_dop(pcb, $1, DT_DOP_ASSOC, 0, $3); }
	|	direct_declarator DT_TOK_LBRAC DT_TOK_RBRAC
			{ $$ = dt_grammar_dop(pcb, $1, DT_DOP_ARRAY, 0, NULL); }
	|	direct_declarator DT_TOK_LPAR DT_TOK_RPAR
			{ $$ = dt_grammar_func(pcb, $1, NULL, 0); }
	|	direct_declarator DT_TOK_LPAR parameter_list DT_TOK_RPAR
			{ $$ = dt_grammar_func(pcb, $1, $3, 0); }
	|	direct_declarator DT_TOK_LPAR parameter_list DT_TOK_COMMA
		    DT_TOK_ELLIPSIS DT_TOK_RPAR
			{ $$ = dt_grammar_func(pcb, $1, $3, 1); }
	|	direct_declarator DT_TOK_LPAR DT_TOK_ELLIPSIS DT_TOK_RPAR
			{ $$ = dt_grammar_func(pcb, $1, NULL, 1); }
	;

/* a function's parameters: types, with or without names */
parameter_list:
		parameter_declaration
	|	parameter_list DT_TOK_COMMA parameter_declaration
			{ $$ = dt_node_link($1, $3); }
	;

parameter_declaration:
		type_name
	|	type_specifiers declarator
			{
				$$ = dt_node_typename(pcb, dt_decl_derive(pcb,
				    dt_decl_spec(pcb, &$1, $2->dd_line), $2));
				/* a parameterised inline's parameter name */
				$$->dn_string = $2->dd_name;
			}
	|	parameter_class parameter_declaration	{ $$ = $2; }
	;

/*
 * As in C, register is the one storage class a parameter may have; the
 * others are refused where they are read, as illumos does.
 */
parameter_class:
		DT_KEY_REGISTER
	|	DT_KEY_AUTO	{ dt_grammar_parmclass(pcb); }
	|	DT_KEY_STATIC	{ dt_grammar_parmclass(pcb); }
	|	DT_KEY_EXTERN	{ dt_grammar_parmclass(pcb); }
	|	DT_KEY_TYPEDEF	{ dt_grammar_parmclass(pcb); }
	|	DT_KEY_SELF	{ dt_grammar_parmclass(pcb); }
	|	DT_KEY_THIS	{ dt_grammar_parmclass(pcb); }
	;

abstract_declarator:
		pointer
			{
				$$ = dt_grammar_dop(pcb, dt_grammar_declr(pcb,
				    NULL), DT_DOP_PTR, $1, NULL);
			}
	|	direct_abstract_declarator
	|	pointer direct_abstract_declarator
			{ $$ = dt_grammar_dop(pcb, $2, DT_DOP_PTR, $1, NULL); }
	;

direct_abstract_declarator:
		DT_TOK_LBRAC conditional_expression DT_TOK_RBRAC
			{
				$$ = dt_grammar_dop(pcb, dt_grammar_declr(pcb,
				    NULL), DT_DOP_ARRAY, (uint64_t)
				    dt_node_intconst(pcb, $2, "array dimension",
				    D_DECL_ARRSUB), NULL);
			}
	|	direct_abstract_declarator DT_TOK_LBRAC conditional_expression
		    DT_TOK_RBRAC
			{
				$$ = dt_grammar_dop(pcb, $1, DT_DOP_ARRAY,
				    (uint64_t)dt_node_intconst(pcb, $3,
				    "array dimension", D_DECL_ARRSUB), NULL);
			}
	|	DT_TOK_LPAR abstract_declarator DT_TOK_RPAR
			{ $$ = $2; }
	|	DT_TOK_LPAR DT_TOK_RPAR
			{
				$$ = dt_grammar_func(pcb, dt_grammar_declr(pcb,
				    NULL), NULL, 0);
			}
	|	DT_TOK_LPAR parameter_list DT_TOK_RPAR
			{
				$$ = dt_grammar_func(pcb, dt_grammar_declr(pcb,
				    NULL), $2, 0);
			}
	|	DT_TOK_LPAR parameter_list DT_TOK_COMMA DT_TOK_ELLIPSIS
		    DT_TOK_RPAR
			{
				$$ = dt_grammar_func(pcb, dt_grammar_declr(pcb,
				    NULL), $2, 1);
			}
	|	direct_abstract_declarator DT_TOK_LPAR DT_TOK_RPAR
			{ $$ = dt_grammar_func(pcb, $1, NULL, 0); }
	|	direct_abstract_declarator DT_TOK_LPAR parameter_list
		    DT_TOK_RPAR
			{ $$ = dt_grammar_func(pcb, $1, $3, 0); }
	|	direct_abstract_declarator DT_TOK_LPAR parameter_list
		    DT_TOK_COMMA DT_TOK_ELLIPSIS DT_TOK_RPAR
			{ $$ = dt_grammar_func(pcb, $1, $3, 1); }
	;

sou_keyword:
		DT_KEY_STRUCT		{ $$ = DT_TK_STRUCT; }
	|	DT_KEY_UNION		{ $$ = DT_TK_UNION; }
	;

tag:
		DT_TOK_IDENT
	|	DT_TOK_TNAME
	;

sou_specifier:
		sou_keyword tag
			{
				$$ = dt_grammar_ts1(DT_DCLASS_NONE);
				$$.ts_name = dt_decl_sou_ref(pcb, $1, $2,
				    dt_lex_lineno(pcb));
			}
	|	sou_keyword tag DT_TOK_LBRACE
			{
				dt_decl_sou_begin(pcb, $1, $2,
				    dt_lex_lineno(pcb));
				$<l_tok>$ = dt_lex_lineno(pcb);
			}
		    member_list DT_TOK_RBRACE
			{
				$$ = dt_grammar_ts1(DT_DCLASS_NONE);
				$$.ts_name = dt_decl_sou_end(pcb);
				$$.ts_sline = $<l_tok>4;
			}
	|	sou_keyword DT_TOK_LBRACE
			{
				dt_decl_sou_begin(pcb, $1, NULL,
				    dt_lex_lineno(pcb));
				$<l_tok>$ = dt_lex_lineno(pcb);
			}
		    member_list DT_TOK_RBRACE
			{
				$$ = dt_grammar_ts1(DT_DCLASS_NONE);
				$$.ts_name = dt_decl_sou_end(pcb);
				$$.ts_sline = $<l_tok>3;
			}
	;

member_list:
		member
	|	member_list member
	;

member:
		type_specifiers member_declarator_list DT_TOK_SEMI
			{ dt_decl_member(pcb, &$1, $2); }
	;

member_declarator_list:
		member_declarator
	|	member_declarator_list DT_TOK_COMMA member_declarator
			{ $$ = dt_grammar_declr_list($1, $3); }
	;

member_declarator:
		declarator
	|	declarator DT_TOK_COLON conditional_expression
			{ $$ = $1; $$->dd_bits = $3; }
	|	DT_TOK_COLON conditional_expression
			{
				$$ = dt_grammar_declr(pcb, NULL);
				$$->dd_bits = $2;
			}
	;

enum_specifier:
		DT_KEY_ENUM tag
			{
				$$ = dt_grammar_ts1(DT_DCLASS_NONE);
				$$.ts_name = dt_decl_sou_ref(pcb, DT_TK_ENUM,
				    $2, dt_lex_lineno(pcb));
			}
	|	DT_KEY_ENUM tag DT_TOK_LBRACE
			{ dt_decl_enum_begin(pcb, $2, dt_lex_lineno(pcb)); }
		    enumerator_list opt_comma DT_TOK_RBRACE
			{
				$$ = dt_grammar_ts1(DT_DCLASS_NONE);
				$$.ts_name = dt_decl_enum_end(pcb);
			}
	|	DT_KEY_ENUM DT_TOK_LBRACE
			{ dt_decl_enum_begin(pcb, NULL, dt_lex_lineno(pcb)); }
		    enumerator_list opt_comma DT_TOK_RBRACE
			{
				$$ = dt_grammar_ts1(DT_DCLASS_NONE);
				$$.ts_name = dt_decl_enum_end(pcb);
			}
	;

opt_comma:
		%empty
	|	DT_TOK_COMMA
	;

enumerator_list:
		enumerator
	|	enumerator_list DT_TOK_COMMA enumerator
	;

enumerator:
		DT_TOK_IDENT
			{ dt_decl_enumerator(pcb, $1, NULL, dt_lex_lineno(pcb)); }
	|	DT_TOK_IDENT DT_TOK_ASGN conditional_expression
			{ dt_decl_enumerator(pcb, $1, $3, dt_lex_lineno(pcb)); }
	;

clause:
		pdesc_list
			{
				/*
				 * As illumos: in a file a description needs a
				 * predicate or actions (what follows may have
				 * been taken for part of it); -n BEGIN may not.
				 */
				if (pcb->pcb_fileptr != NULL)
					dt_parser_error(pcb, $1->dn_line,
					    D_SYNTAX, "expected predicate "
					    "and/or actions following probe "
					    "description");
				$$ = dt_node_clause(pcb, $1, NULL, NULL);
			}
	|	pdesc_list predicate
			{ $$ = dt_node_clause(pcb, $1, $2, NULL); }
	|	pdesc_list DT_TOK_LBRACE statement_list DT_TOK_RBRACE
			{ $$ = dt_node_clause(pcb, $1, NULL, $3); }
	|	pdesc_list predicate DT_TOK_LBRACE statement_list DT_TOK_RBRACE
			{ $$ = dt_node_clause(pcb, $1, $2, $4); }
	;

pdesc_list:
		pdesc
	|	pdesc_list DT_TOK_COMMA pdesc	{ $$ = dt_node_link($1, $3); }
	;

pdesc:
		DT_TOK_PSPEC		{ $$ = dt_node_pdesc(pcb, $1); }
	|	DT_TOK_INT		{ $$ = dt_node_pdesc_id(pcb, $1); }
	;

predicate:
		DT_TOK_DIV expression DT_TOK_EPRED	{ $$ = $2; }
	;

statement_list:
		statement_list_impl
	|	statement_list_impl expression
			{ $$ = dt_node_link($1, $2); }
	;

statement_list_impl:
		%empty			{ $$ = NULL; }
	|	statement_list_impl statement
			{ $$ = dt_node_link($1, $2); }
	;

statement:
		DT_TOK_SEMI		{ $$ = NULL; }
	|	expression DT_TOK_SEMI	{ $$ = $1; }
	;

expression:
		assignment_expression
	|	expression DT_TOK_COMMA assignment_expression
			{ $$ = dt_node_op2(pcb, DT_TOK_COMMA, $1, $3); }
	;

assignment_expression:
		conditional_expression
	|	unary_expression assignment_operator assignment_expression
			{ $$ = dt_node_op2(pcb, $2, $1, $3); }
	;

assignment_operator:
		DT_TOK_ASGN		{ $$ = DT_TOK_ASGN; }
	|	DT_TOK_MUL_EQ		{ $$ = DT_TOK_MUL_EQ; }
	|	DT_TOK_DIV_EQ		{ $$ = DT_TOK_DIV_EQ; }
	|	DT_TOK_MOD_EQ		{ $$ = DT_TOK_MOD_EQ; }
	|	DT_TOK_ADD_EQ		{ $$ = DT_TOK_ADD_EQ; }
	|	DT_TOK_SUB_EQ		{ $$ = DT_TOK_SUB_EQ; }
	|	DT_TOK_LSH_EQ		{ $$ = DT_TOK_LSH_EQ; }
	|	DT_TOK_RSH_EQ		{ $$ = DT_TOK_RSH_EQ; }
	|	DT_TOK_AND_EQ		{ $$ = DT_TOK_AND_EQ; }
	|	DT_TOK_XOR_EQ		{ $$ = DT_TOK_XOR_EQ; }
	|	DT_TOK_OR_EQ		{ $$ = DT_TOK_OR_EQ; }
	;

conditional_expression:
		logical_or_expression
	|	logical_or_expression DT_TOK_QUESTION expression DT_TOK_COLON
		    conditional_expression
			{ $$ = dt_node_op3(pcb, $1, $3, $5); }
	;

logical_or_expression:
		logical_xor_expression
	|	logical_or_expression DT_TOK_LOR logical_xor_expression
			{ $$ = dt_node_op2(pcb, DT_TOK_LOR, $1, $3); }
	;

logical_xor_expression:
		logical_and_expression
	|	logical_xor_expression DT_TOK_LXOR logical_and_expression
			{ $$ = dt_node_op2(pcb, DT_TOK_LXOR, $1, $3); }
	;

logical_and_expression:
		inclusive_or_expression
	|	logical_and_expression DT_TOK_LAND inclusive_or_expression
			{ $$ = dt_node_op2(pcb, DT_TOK_LAND, $1, $3); }
	;

inclusive_or_expression:
		exclusive_or_expression
	|	inclusive_or_expression DT_TOK_BOR exclusive_or_expression
			{ $$ = dt_node_op2(pcb, DT_TOK_BOR, $1, $3); }
	;

exclusive_or_expression:
		and_expression
	|	exclusive_or_expression DT_TOK_XOR and_expression
			{ $$ = dt_node_op2(pcb, DT_TOK_XOR, $1, $3); }
	;

and_expression:
		equality_expression
	|	and_expression DT_TOK_BAND equality_expression
			{ $$ = dt_node_op2(pcb, DT_TOK_BAND, $1, $3); }
	;

equality_expression:
		relational_expression
	|	equality_expression DT_TOK_EQU relational_expression
			{ $$ = dt_node_op2(pcb, DT_TOK_EQU, $1, $3); }
	|	equality_expression DT_TOK_NEQ relational_expression
			{ $$ = dt_node_op2(pcb, DT_TOK_NEQ, $1, $3); }
	;

relational_expression:
		shift_expression
	|	relational_expression DT_TOK_LT shift_expression
			{ $$ = dt_node_op2(pcb, DT_TOK_LT, $1, $3); }
	|	relational_expression DT_TOK_GT shift_expression
			{ $$ = dt_node_op2(pcb, DT_TOK_GT, $1, $3); }
	|	relational_expression DT_TOK_LE shift_expression
			{ $$ = dt_node_op2(pcb, DT_TOK_LE, $1, $3); }
	|	relational_expression DT_TOK_GE shift_expression
			{ $$ = dt_node_op2(pcb, DT_TOK_GE, $1, $3); }
	;

shift_expression:
		additive_expression
	|	shift_expression DT_TOK_LSH additive_expression
			{ $$ = dt_node_op2(pcb, DT_TOK_LSH, $1, $3); }
	|	shift_expression DT_TOK_RSH additive_expression
			{ $$ = dt_node_op2(pcb, DT_TOK_RSH, $1, $3); }
	;

additive_expression:
		multiplicative_expression
	|	additive_expression DT_TOK_ADD multiplicative_expression
			{ $$ = dt_node_op2(pcb, DT_TOK_ADD, $1, $3); }
	|	additive_expression DT_TOK_SUB multiplicative_expression
			{ $$ = dt_node_op2(pcb, DT_TOK_SUB, $1, $3); }
	;

multiplicative_expression:
		cast_expression
	|	multiplicative_expression DT_TOK_MUL cast_expression
			{ $$ = dt_node_op2(pcb, DT_TOK_MUL, $1, $3); }
	|	multiplicative_expression DT_TOK_DIV cast_expression
			{ $$ = dt_node_op2(pcb, DT_TOK_DIV, $1, $3); }
	|	multiplicative_expression DT_TOK_MOD cast_expression
			{ $$ = dt_node_op2(pcb, DT_TOK_MOD, $1, $3); }
	;

cast_expression:
		unary_expression
	|	DT_TOK_LPAR type_name DT_TOK_RPAR cast_expression
			{ $$ = dt_node_op2(pcb, DT_TOK_CAST, $2, $4); }
	;

unary_expression:
		postfix_expression
	|	DT_TOK_INC unary_expression
			{ $$ = dt_node_op1(pcb, DT_TOK_PREINC, $2); }
	|	DT_TOK_DEC unary_expression
			{ $$ = dt_node_op1(pcb, DT_TOK_PREDEC, $2); }
	|	unary_operator cast_expression
			{ $$ = dt_node_op1(pcb, $1, $2); }
	|	DT_KEY_SIZEOF unary_expression
			{ $$ = dt_node_sizeof(pcb, $2); }
	|	DT_KEY_SIZEOF DT_TOK_LPAR type_name DT_TOK_RPAR
			{ $$ = dt_node_sizeof(pcb, $3); }
	|	DT_KEY_STRINGOF unary_expression
			{ $$ = dt_node_op1(pcb, DT_TOK_STRINGOF, $2); }
	|	DT_KEY_OFFSETOF DT_TOK_LPAR type_name DT_TOK_COMMA
		    DT_TOK_IDENT DT_TOK_RPAR
			{ $$ = dt_node_offsetof(pcb, $3, $5); }
	|	DT_KEY_OFFSETOF DT_TOK_LPAR type_name DT_TOK_COMMA
		    DT_TOK_TNAME DT_TOK_RPAR
			{ $$ = dt_node_offsetof(pcb, $3, $5); }
	;

unary_operator:
		DT_TOK_ADD		{ $$ = DT_TOK_IPOS; }
	|	DT_TOK_SUB		{ $$ = DT_TOK_INEG; }
	|	DT_TOK_BNEG		{ $$ = DT_TOK_BNEG; }
	|	DT_TOK_MUL		{ $$ = DT_TOK_DEREF; }
	|	DT_TOK_BAND		{ $$ = DT_TOK_ADDROF; }
	|	DT_TOK_LNEG		{ $$ = DT_TOK_LNEG; }
	;

postfix_expression:
		primary_expression
	|	postfix_expression DT_TOK_LBRAC argument_list DT_TOK_RBRAC
			{ $$ = dt_node_index(pcb, $1, $3); }
	|	postfix_expression DT_TOK_LPAR DT_TOK_RPAR
			{ $$ = dt_node_func(pcb, $1, NULL); }
	|	postfix_expression DT_TOK_LPAR argument_list DT_TOK_RPAR
			{ $$ = dt_node_func(pcb, $1, $3); }
	|	postfix_expression DT_TOK_PTR DT_TOK_IDENT
			{ $$ = dt_node_member(pcb, DT_TOK_PTR, $1, $3); }
	|	postfix_expression DT_TOK_PTR DT_TOK_TNAME
			{ $$ = dt_node_member(pcb, DT_TOK_PTR, $1, $3); }
	|	postfix_expression DT_TOK_DOT DT_TOK_IDENT
			{ $$ = dt_node_member(pcb, DT_TOK_DOT, $1, $3); }
	|	postfix_expression DT_TOK_DOT DT_TOK_TNAME
			{ $$ = dt_node_member(pcb, DT_TOK_DOT, $1, $3); }
	|	postfix_expression DT_TOK_INC
			{ $$ = dt_node_op1(pcb, DT_TOK_POSTINC, $1); }
	|	postfix_expression DT_TOK_DEC
			{ $$ = dt_node_op1(pcb, DT_TOK_POSTDEC, $1); }
	;

argument_list:
		assignment_expression
	|	argument_list DT_TOK_COMMA assignment_expression
			{ $$ = dt_node_link($1, $3); }
	;

primary_expression:
		DT_TOK_IDENT		{ $$ = dt_node_ident(pcb, $1); }
	|	DT_TOK_AGG		{ $$ = dt_node_agg(pcb, $1); }
	|	DT_KEY_SELF DT_TOK_PTR DT_TOK_IDENT
			{ $$ = dt_node_dvar(pcb, DIFV_SCOPE_THREAD, $3); }
	|	DT_KEY_THIS DT_TOK_PTR DT_TOK_IDENT
			{ $$ = dt_node_dvar(pcb, DIFV_SCOPE_LOCAL, $3); }
	|	DT_TOK_INT		{ $$ = $1; }
	|	DT_TOK_STRING		{ $$ = dt_node_string(pcb, $1); }
	|	DT_TOK_LPAR expression DT_TOK_RPAR	{ $$ = $2; }
	|	DT_KEY_XLATE DT_TOK_LT type_name DT_TOK_GT DT_TOK_LPAR
		    expression DT_TOK_RPAR
			{ $$ = dt_node_op2(pcb, DT_TOK_XLATE, $3, $6); }
	;

type_name:
		type_specifiers		{ $$ = dt_node_type(pcb, &$1); }
	|	type_specifiers abstract_declarator
			{
				$$ = dt_node_typename(pcb, dt_decl_derive(pcb,
				    dt_decl_spec(pcb, &$1, $2->dd_line), $2));
			}
	;

type_specifiers:
		type_specifier
	|	type_specifiers type_specifier
			{ $$ = $1; dt_grammar_tsmerge(pcb, &$$, &$2); }
	;

type_specifier:
		DT_KEY_CHAR	{ memset(&$$, 0, sizeof($$)); $$.ts_char = 1; }
	|	DT_KEY_SHORT	{ memset(&$$, 0, sizeof($$)); $$.ts_short = 1; }
	|	DT_KEY_INT	{ memset(&$$, 0, sizeof($$)); $$.ts_int = 1; }
	|	DT_KEY_LONG	{ memset(&$$, 0, sizeof($$)); $$.ts_long = 1; }
	|	DT_KEY_SIGNED	{ memset(&$$, 0, sizeof($$)); $$.ts_signed = 1; }
	|	DT_KEY_UNSIGNED	{ memset(&$$, 0, sizeof($$)); $$.ts_unsigned = 1; }
	|	DT_KEY_VOID	{ memset(&$$, 0, sizeof($$)); $$.ts_void = 1; }
	|	DT_KEY_STRING	{ memset(&$$, 0, sizeof($$)); $$.ts_string = 1; }
	|	DT_KEY_FLOAT	{ memset(&$$, 0, sizeof($$)); $$.ts_float = 1; }
	|	DT_KEY_DOUBLE	{ memset(&$$, 0, sizeof($$)); $$.ts_double = 1; }
	|	DT_TOK_TNAME
			{
				memset(&$$, 0, sizeof($$));
				$$.ts_name = dt_decl_tname(pcb, $1);
			}
	|	sou_specifier
	|	enum_specifier
	|	type_qualifier	{ memset(&$$, 0, sizeof($$)); }
	;

%%

static void
dt_yyerror(dt_pcb_t *pcb, void *scanner, const char *msg)
{
	const char *text = dt_lex_text(pcb);

	if (text == NULL || *text == '\0')
		dt_parser_error(pcb, dt_lex_lineno(pcb), D_SYNTAX,
		    "%s near end of input", msg);
	dt_parser_error(pcb, dt_lex_lineno(pcb), D_SYNTAX, "%s near \"%s\"",
	    msg, text);
}

/*
 * Add one type specifier keyword to a list being built.  As illumos, a
 * list that this specifier makes invalid is reported where it was
 * read ("long struct s {": at the brace), not at the declarator.
 */
static void
dt_grammar_tsmerge(dt_pcb_t *pcb, dt_typespec_t *ts, const dt_typespec_t *one)
{
	const char *why;
	int tag, line = one->ts_sline > 0 ? one->ts_sline : dt_lex_lineno(pcb);

	ts->ts_char += one->ts_char;
	ts->ts_short += one->ts_short;
	ts->ts_int += one->ts_int;
	ts->ts_long += one->ts_long;
	ts->ts_signed += one->ts_signed;
	ts->ts_unsigned += one->ts_unsigned;
	ts->ts_void += one->ts_void;
	ts->ts_string += one->ts_string;
	ts->ts_float += one->ts_float;
	ts->ts_double += one->ts_double;
	if (one->ts_class != DT_DCLASS_NONE) {
		if (ts->ts_class != DT_DCLASS_NONE)
			ts->ts_class = -1;	/* two classes: invalid */
		else
			ts->ts_class = one->ts_class;
	}
	if (one->ts_name != NULL) {
		if (ts->ts_name != NULL)
			ts->ts_void += 2;	/* two type names: invalid */
		ts->ts_name = one->ts_name;
	}
	if (ts->ts_line == 0 && dt_decl_type(ts, &why, &tag) == NULL)
		ts->ts_line = line;
}

static void
dt_grammar_parmclass(dt_pcb_t *pcb)
{
	dt_parser_error(pcb, dt_lex_lineno(pcb), D_DECL_PARMCLASS,
	    "inappropriate storage class for function or associative array "
	    "parameter");
}

static dt_typespec_t
dt_grammar_ts1(int class)
{
	dt_typespec_t ts;

	memset(&ts, 0, sizeof(ts));
	ts.ts_class = class;
	return ts;
}

/* A declarator for name (NULL: abstract, or an unnamed bit-field). */
static dt_declr_t *
dt_grammar_declr(dt_pcb_t *pcb, char *name)
{
	dt_declr_t *dd = dt_parser_alloc(pcb, sizeof(*dd));

	dd->dd_name = name;
	dd->dd_line = dt_lex_lineno(pcb);
	return dd;
}

/*
 * Put n derivations of a kind in front of a declarator's: what is
 * nearer the name applies later ("int *a[4]" is an array of pointers).
 */
static dt_declr_t *
dt_grammar_dop(dt_pcb_t *pcb, dt_declr_t *dd, int kind, uint64_t n,
    dt_node_t *keys)
{
	dt_dop_t *op;
	uint64_t i, count = kind == DT_DOP_PTR ? n : 1;

	for (i = 0; i < count; i++) {
		op = dt_parser_alloc(pcb, sizeof(*op));
		op->do_kind = kind;
		op->do_n = n;
		op->do_keys = keys;
		op->do_next = dd->dd_ops;
		dd->dd_ops = op;
	}
	return dd;
}

/* "(parameters)": a function of them, varargs with "...". */
static dt_declr_t *
dt_grammar_func(dt_pcb_t *pcb, dt_declr_t *dd, dt_node_t *params,
    int varargs)
{
	return dt_grammar_dop(pcb, dd, DT_DOP_FUNC, (uint64_t)varargs,
	    params);
}

static dt_declr_t *
dt_grammar_declr_list(dt_declr_t *l, dt_declr_t *r)
{
	dt_declr_t *dd;

	for (dd = l; dd->dd_next != NULL; dd = dd->dd_next)
		continue;
	dd->dd_next = r;
	return l;
}

int
dt_grammar_parse(dt_pcb_t *pcb)
{
	return dt_yyparse(pcb, pcb->pcb_scanner);
}
