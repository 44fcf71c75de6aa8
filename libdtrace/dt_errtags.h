/*
 * dt_errtags.h: the D compile-error tags (illumos names).  A tag is
 * printed as "[D_TAG] " before a compile error under -xerrtags; negative
 * tests (err.D_TAG.*.d) key on it.
 */
#ifndef DT_ERRTAGS_H
#define DT_ERRTAGS_H

#define DT_ERRTAG_LIST(X) \
	X(D_SYNTAX)		/* syntax error in input stream */ \
	X(D_EMPTY)		/* empty translation unit */ \
	X(D_INT_OFLOW)		/* integer constant overflow */ \
	X(D_INT_DIGIT)		/* integer digit invalid for radix */ \
	X(D_STR_NL)		/* newline in string literal */ \
	X(D_CHR_NL)		/* newline in character constant */ \
	X(D_CHR_NULL)		/* empty character constant */ \
	X(D_CHR_OFLOW)		/* character constant is too long */ \
	X(D_IDENT_UNDEF)	/* undefined identifier */ \
	X(D_IDENT_BADREF)	/* identifier of wrong kind */ \
	X(D_ARR_BADREF)		/* a D variable indexed as an assoc */ \
	X(D_ARR_BOUNDS)		/* constant index out of bounds */ \
	X(D_OP_ARRFUN)		/* assignment to an array or function */ \
	X(D_VAR_UNSUP)		/* variable not available here */ \
	X(D_VAR_UNDEF)		/* variable used before declaration */ \
	X(D_KEY_TYPE)		/* invalid associative array key type */ \
	X(D_DECL_LOCASSC)	/* clause-local associative array */ \
	X(D_FUNC_UNDEF)		/* undefined function */ \
	X(D_FUNC_IDENT)		/* non-function used as function */ \
	X(D_FUNC_UNSUP)		/* function not supported yet */ \
	X(D_ACT_EXPR)		/* action used inside an expression */ \
	X(D_ACT_SPEC)		/* destructive action after speculate() */ \
	X(D_USTACK_FRAMES)	/* ustack() frames: not a constant > 0 */ \
	X(D_USTACK_STRSIZE)	/* ustack() strsize: not a constant >= 0 */ \
	X(D_STACK_SIZE)		/* stack() frames: not a constant > 0 */ \
	X(D_AGG_SPEC)		/* aggregating action after speculate() */ \
	X(D_AGG_COMM)		/* aggregating action after commit() */ \
	X(D_EXIT_SPEC)		/* exit() after speculate() */ \
	X(D_SPEC_SPEC)		/* speculate() after speculate() */ \
	X(D_SPEC_COMM)		/* speculate() and commit()/discard() */ \
	X(D_SPEC_DREC)		/* speculate() after data recording */ \
	X(D_COMM_COMM)		/* commit()/discard() after another */ \
	X(D_COMM_DREC)		/* commit()/discard() after data recording */ \
	X(D_DREC_COMM)		/* data recording after commit() */ \
	X(D_PROTO_LEN)		/* prototype length mismatch */ \
	X(D_PROTO_ARG)		/* prototype argument mismatch */ \
	X(D_PRINT_SIZE)		/* print() of an object of no size */ \
	X(D_REGS_IDX)		/* uregs[] index out of range */ \
	X(D_ARGS_IDX)		/* args[] index out of range */ \
	X(D_OP_LVAL)		/* operator requires lvalue */ \
	X(D_OP_WRITE)		/* operator requires writable variable */ \
	X(D_OP_INT)		/* operator requires integral operands */ \
	X(D_OP_ACT)		/* action in a conditional expression */ \
	X(D_OP_ARITH)		/* operator requires arithmetic operands */ \
	X(D_OP_SCALAR)		/* operator requires scalar operands */ \
	X(D_OP_INCOMPAT)	/* operand types are incompatible */ \
	X(D_DIV_ZERO)		/* division by zero in constant expression */ \
	X(D_CAST_INVAL)		/* invalid cast expression */ \
	X(D_DECL_COMBO)		/* invalid type specifier combination */ \
	X(D_DECL_CHARATTR)	/* short or long with char */ \
	X(D_DECL_VOIDATTR)	/* short, long or a sign with void */ \
	X(D_DECL_LONGINT)	/* long with a non-arithmetic type */ \
	X(D_DECL_VOIDOBJ)	/* object of type void */ \
	X(D_DECL_FUNC)		/* object of function type */ \
	X(D_DECL_FUNCRET)	/* function returning array or function */ \
	X(D_DECL_PROTO_VOID)	/* void among other parameters */ \
	X(D_DEREF_FUNC)		/* dereference of a pointer to function */ \
	X(D_SIZEOF_TYPE)	/* sizeof of an invalid type */ \
	X(D_SIZEOF_BITFIELD)	/* sizeof of a bit-field */ \
	X(D_DECL_IDRED)		/* identifier redeclared */ \
	X(D_DECL_TYPERED)	/* struct, union or enum redefined */ \
	X(D_DECL_INCOMPLETE)	/* object of incomplete type */ \
	X(D_DECL_ARRSUB)	/* array dimension not a positive constant */ \
	X(D_DECL_ARRBIG)	/* array dimension too big */ \
	X(D_DECL_BFTYPE)	/* bit-field of a non-integer type */ \
	X(D_DECL_BFSIZE)	/* bit-field too wide */ \
	X(D_DECL_ENCONST)	/* enumerator value not an integer constant */ \
	X(D_DECL_ENOFLOW)	/* enumerator value overflow */ \
	X(D_DECL_USELESS)	/* declaration that declares nothing */ \
	X(D_DECL_CLASS)		/* invalid storage class combination */ \
	X(D_DECL_BADCLASS)	/* storage class D has no use for */ \
	X(D_DECL_PARMCLASS)	/* storage class of a parameter */ \
	X(D_DECL_MEMBER)	/* invalid struct or union member */ \
	X(D_DECL_DYNOBJ)	/* object too large for its variable scope */ \
	X(D_TYPE_ERR)		/* unknown type */ \
	X(D_TYPE_MEMBER)	/* not a member of the struct or union */ \
	X(D_DEREF_NONPTR)	/* dereference of a non-pointer */ \
	X(D_DEREF_VOID)		/* dereference of a void pointer */ \
	X(D_ADDROF_LVAL)	/* & of something that is not in memory */ \
	X(D_ADDROF_VAR)		/* & of a D variable */ \
	X(D_ADDROF_BITFIELD)	/* & of a bit-field */ \
	X(D_OP_PTR)		/* -> applied to a non-pointer */ \
	X(D_OP_SOU)		/* . or -> applied to a non-struct */ \
	X(D_OFFSETOF_TYPE)	/* offsetof() of a non-struct */ \
	X(D_OFFSETOF_BITFIELD)	/* offsetof() of a bit-field */ \
	X(D_UNKNOWN)		/* unknown member in offsetof() */ \
	X(D_STRINGOF_TYPE)	/* stringof() of an invalid type */ \
	X(D_XLATE_REDECL)	/* translator redeclared */ \
	X(D_XLATE_SOU)		/* translator output not a struct or union */ \
	X(D_XLATE_MEMB)		/* translator member not in the output type */ \
	X(D_XLATE_NOCONV)	/* member the translator does not define */ \
	X(D_XLATE_NONE)		/* no translator for these types */ \
	X(D_XLATE_INCOMPAT)	/* translator member of an incompatible type */ \
	X(D_XLATE_EXPR)		/* xlate without a member reference */ \
	X(D_PRED_SCALAR)	/* predicate is not of scalar type */ \
	X(D_TRACE_VOID)		/* trace() of a void expression */ \
	X(D_TRACE_DYN)		/* trace() of an aggregation */ \
	X(D_TRACEMEM_ADDR)	/* tracemem() address not integer */ \
	X(D_TRACEMEM_SIZE)	/* tracemem() size not a positive constant */ \
	X(D_TRACEMEM_ARGS)	/* tracemem() with too many arguments */ \
	X(D_TRACEMEM_DYNSIZE)	/* tracemem() dynamic size not scalar */ \
	X(D_AGG_FUNC)		/* aggregation not assigned an aggregating function */ \
	X(D_AGG_SCALAR)		/* aggregation used as an operand */ \
	X(D_AGG_NULL)		/* aggregation as a statement of its own */ \
	X(D_AGG_REDEF)		/* aggregation redefined with another function */ \
	X(D_AGG_MDIM)		/* aggregation keys differ from earlier use */ \
	X(D_LQUANT_BASETYPE)	/* lquantize() bad base type */ \
	X(D_LQUANT_BASEVAL)	/* lquantize() bad base value */ \
	X(D_LQUANT_LIMTYPE)	/* lquantize() bad limit type */ \
	X(D_LQUANT_LIMVAL)	/* lquantize() bad limit value */ \
	X(D_LQUANT_MISMATCH)	/* lquantize() limit < base */ \
	X(D_LQUANT_STEPTYPE)	/* lquantize() bad step type */ \
	X(D_LQUANT_STEPVAL)	/* lquantize() bad step value */ \
	X(D_LQUANT_STEPLARGE)	/* lquantize() step too large */ \
	X(D_LQUANT_STEPSMALL)	/* lquantize() step too small */ \
	X(D_LQUANT_MATCHBASE)	/* lquantize() base mismatch */ \
	X(D_LQUANT_MATCHLIM)	/* lquantize() limit mismatch */ \
	X(D_LQUANT_MATCHSTEP)	/* lquantize() step mismatch */ \
	X(D_LLQUANT_FACTORTYPE)	/* llquantize() bad factor type */ \
	X(D_LLQUANT_FACTORVAL)	/* llquantize() bad factor value */ \
	X(D_LLQUANT_FACTORMATCH) /* llquantize() factor mismatch */ \
	X(D_LLQUANT_LOWTYPE)	/* llquantize() bad low magnitude type */ \
	X(D_LLQUANT_LOWVAL)	/* llquantize() bad low magnitude value */ \
	X(D_LLQUANT_LOWMATCH)	/* llquantize() low magnitude mismatch */ \
	X(D_LLQUANT_HIGHTYPE)	/* llquantize() bad high magnitude type */ \
	X(D_LLQUANT_HIGHVAL)	/* llquantize() bad high magnitude value */ \
	X(D_LLQUANT_HIGHMATCH)	/* llquantize() high magnitude mismatch */ \
	X(D_LLQUANT_NSTEPTYPE)	/* llquantize() bad # of steps type */ \
	X(D_LLQUANT_NSTEPVAL)	/* llquantize() bad # of steps value */ \
	X(D_LLQUANT_NSTEPMATCH)	/* llquantize() # of steps mismatch */ \
	X(D_LLQUANT_MAGRANGE)	/* llquantize() bad magnitude range */ \
	X(D_LLQUANT_FACTORNSTEPS) /* llquantize() # of steps < factor */ \
	X(D_LLQUANT_FACTOREVEN)	/* llquantize() bad # of steps for factor */ \
	X(D_LLQUANT_FACTORSMALL) /* llquantize() factor too small */ \
	X(D_LLQUANT_MAGTOOBIG)	/* llquantize() high mag too big for factor */ \
	X(D_PRINTA_PROTO)	/* printa() prototype mismatch */ \
	X(D_PRINTA_AGGARG)	/* printa() aggregation argument invalid */ \
	X(D_PRINTA_AGGBAD)	/* printa() aggregation not defined */ \
	X(D_PRINTA_AGGKEY)	/* printa() aggregation key mismatch */ \
	X(D_PRINTA_AGGPROTO)	/* printa() aggregation mismatch */ \
	X(D_PRINTF_AGG_CONV)	/* %@ conversion outside printa() */ \
	X(D_CLEAR_PROTO)	/* clear() prototype mismatch */ \
	X(D_CLEAR_AGGARG)	/* clear() aggregation argument invalid */ \
	X(D_CLEAR_AGGBAD)	/* clear() aggregation not defined */ \
	X(D_NORMALIZE_PROTO)	/* normalize() prototype mismatch */ \
	X(D_NORMALIZE_AGGARG)	/* normalize() aggregation argument invalid */ \
	X(D_NORMALIZE_SCALAR)	/* normalize() value must be scalar */ \
	X(D_NORMALIZE_AGGBAD)	/* normalize() aggregation not defined */ \
	X(D_TRUNC_PROTO)	/* trunc() prototype mismatch */ \
	X(D_TRUNC_AGGARG)	/* trunc() aggregation argument invalid */ \
	X(D_TRUNC_SCALAR)	/* trunc() value must be scalar */ \
	X(D_TRUNC_AGGBAD)	/* trunc() aggregation not defined */ \
	X(D_PRINTF_ARG_FMT)	/* printf() format is not a string constant */ \
	X(D_PRINTF_FMT)		/* printf() format is invalid */ \
	X(D_PRINTF_FMT_EMPTY)	/* printf() format is empty */ \
	X(D_MACRO_UNDEF)	/* macro variable is not defined */ \
	X(D_MACRO_UNUSED)	/* macro argument is not referenced */ \
	X(D_MACRO_INVAL)	/* macro argument is not a number or identifier */ \
	X(D_MACRO_OFLOW)	/* macro argument overflows 64 bits */ \
	X(D_PDESC_INVAL)	/* invalid probe description */ \
	X(D_PDESC_ZERO)		/* probe description matches no probes */ \
	X(D_PROC_BADPID)	/* pid provider: not a valid pid */ \
	X(D_PROC_LIB)		/* pid: a library with function "-" */ \
	X(D_PROC_NAME)		/* pid provider: glob with function "-" */ \
	X(D_PROC_GRAB)		/* pid/USDT: the process cannot be grabbed */ \
	X(D_PROC_OFF)		/* pid: an offset outside of its function */ \
	X(D_PROC_ALIGN)		/* pid: an offset inside an instruction */ \
	X(D_PRAGMA_INVAL)	/* unknown #pragma D directive */ \
	X(D_PRAGMA_MALFORM)	/* malformed #pragma */ \
	X(D_PRAGMA_UNUSED)	/* #pragma names nothing of the program */ \
	X(D_PRAGMA_SCOPE)	/* #pragma names a built-in identifier */ \
	X(D_PRAGMA_OPTSET)	/* #pragma D option failed */ \
	X(D_PRAGMA_DEPEND)	/* #pragma D depends_on unmet */ \
	X(D_PRAGERR)		/* #pragma D error */ \
	X(D_PRAGCTL_INVAL)	/* unknown control line */ \
	X(D_REGS)		/* expression too complex for the registers */

#define DT_ERRTAG_ENUM(t)	t,
#define DT_ERRTAG_NAME(t)	#t,

typedef enum dt_errtag {
	DT_ERRTAG_LIST(DT_ERRTAG_ENUM)
	D_NTAGS
} dt_errtag_t;

static inline const char *
dt_errtag(dt_errtag_t tag)
{
	static const char *const names[] = { DT_ERRTAG_LIST(DT_ERRTAG_NAME) };

	return (unsigned)tag < D_NTAGS ? names[tag] : "D_UNKNOWN";
}

#endif /* DT_ERRTAGS_H */
