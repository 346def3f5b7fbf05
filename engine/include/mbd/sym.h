/* mbd — symbolic expressions: a hash-consed expression DAG, exact derivatives, substitution,
 * evaluation on a flat instruction tape, infix printing and C code generation.
 *
 * All nodes live in a context (mbd_sym_ctx) and are named by 32-bit ids (mbd_sym_id, >= 0).
 * Equal subexpressions are one node: building the same expression twice gives the same id, so id
 * equality is structural equality of the canonical forms.  Nodes are never freed before the
 * context.
 *
 * Canonical form (what the constructors build):
 *   - a − b is a + (−1)·b; −a is (−1)·a; a / b is a · b^−1;
 *   - sums and products are n-ary, flattened, with operands sorted (constants first, then by id);
 *     a product holds at most one constant (its coefficient, first) and never the coefficient 1;
 *   - x^0.5 is sqrt(x).
 *
 * Simplification on construction (the complete list; nothing else is rewritten):
 *   - constant folding of every operation with IEEE semantics (log(−1) = NaN, sqrt(−1) = NaN); a
 *     constant raised to a negative power of zero (division by the constant 0) folds to NaN, not
 * inf; -0.0 is stored as 0.0 and every NaN as one canonical NaN;
 *   - sums: x + 0 = x, like terms combined (2x + 3x = 5x, x − x = 0), nested sums flattened, a
 *     constant factor distributed over a sum (2·(x + y) = 2x + 2y, −(x − y) = y − x);
 *   - products: x·1 = x, x·0 = 0 (assumes x finite), like factors combined by adding constant
 *     exponents (x·x = x^2, x/x = 1 and x^3/x = x^2: assumes x ≠ 0), constant factors multiplied;
 *   - powers: x^0 = 1 (also 0^0), x^1 = x, 1^y = 1, (x^a)^n = x^(a·n) for integer n (assumes x^a is
 *     defined, i.e. x > 0 when a is not an integer), (x·y)^n = x^n·y^n for integer n;
 *   - functions: log(exp(x)) = x, abs(abs(x)) = abs(x), sign(sign(x)) = sign(x);
 *   - ifelse(c, a, a) = a; ifelse of a constant condition picks its branch.
 * A NaN constant anywhere in a sum or product folds the whole sum or product to NaN.
 *
 * Conditional: ifelse(c, a, b) is a when c > 0 and b otherwise (also when c is NaN).  Its
 * derivative is ifelse(c, a', b') — the derivative of the selected branch; at c = 0 that is the b
 * branch. sign(x) is −1, 0 or 1 (0 for NaN); d|x|/dx = sign(x), so 0 at x = 0.
 *
 * Errors: constructors return MBD_SYM_NONE on failure (out of memory, an invalid id) and record the
 * error in the context (mbd_sym_ctx_error).  Every constructor given MBD_SYM_NONE as an argument
 * returns MBD_SYM_NONE, so a chain of constructions can be checked once at its end.  Functions
 * returning int return an mbd_status and fill err.  The module never prints and never exits.
 *
 * Evaluation: the tape (mbd_sym_tape), the tree evaluator (mbd_sym_eval) and generated C all follow
 * one evaluation order per node (sums and products fold left over their sorted operands; a factor
 * b^−1 divides; integer powers |n| <= 8 use repeated squaring, other powers libm pow), so the tape
 * and the tree evaluator agree bit for bit, and generated C compiled without -ffast-math too. */
#ifndef MBD_SYM_H
#define MBD_SYM_H

#include <stddef.h>
#include <stdint.h>

#include "mbd/status.h"

typedef struct mbd_sym_ctx mbd_sym_ctx;   /* arena owning all nodes */
typedef struct mbd_sym_tape mbd_sym_tape; /* compiled evaluator for a list of expressions */
typedef struct mbd_sym_lib mbd_sym_lib;   /* a loaded shared object of generated C */
typedef int32_t mbd_sym_id;               /* node id, >= 0; MBD_SYM_NONE for "no node / error" */

#define MBD_SYM_NONE ((mbd_sym_id)-1)

/* node kinds */
typedef enum mbd_sym_op {
  MBD_SYM_CONST = 0, /* constant: mbd_sym_const_value */
  MBD_SYM_VAR,       /* variable: name and index into an evaluation vector */
  MBD_SYM_ADD,       /* n-ary sum, n >= 2 */
  MBD_SYM_MUL,       /* n-ary product, n >= 2 */
  MBD_SYM_POW,       /* base ^ exponent (2 args) */
  MBD_SYM_SIN,
  MBD_SYM_COS,
  MBD_SYM_TAN,
  MBD_SYM_EXP,
  MBD_SYM_LOG, /* natural logarithm */
  MBD_SYM_SQRT,
  MBD_SYM_ABS,
  MBD_SYM_SIGN,   /* -1, 0, 1 */
  MBD_SYM_ATAN2,  /* atan2(y, x) (2 args) */
  MBD_SYM_IFELSE, /* ifelse(c, a, b) = c > 0 ? a : b (3 args) */
  MBD_SYM_NOPS
} mbd_sym_op;

/* signature of generated C: v the evaluation vector, out one double per expression */
typedef void (*mbd_sym_cfn)(const double *v, double *out);

/* ---- context --------------------------------------------------------------------------------- */

/* new empty context; NULL when out of memory.  Free with mbd_sym_ctx_free. */
mbd_sym_ctx *mbd_sym_ctx_new(void);

/* free a context and all its nodes (tapes and libraries made from it stay valid); NULL is a no-op
 */
void mbd_sym_ctx_free(mbd_sym_ctx *ctx);

/* the last error recorded by a constructor, diff or subs (code 0 when none) */
const mbd_error *mbd_sym_ctx_error(const mbd_sym_ctx *ctx);

/* forget the recorded error */
void mbd_sym_ctx_clear_error(mbd_sym_ctx *ctx);

/* number of nodes in the context */
int mbd_sym_count(const mbd_sym_ctx *ctx);

/* ---- construction (all simplify, see the list above) ----------------------------------------- */

/* a constant node */
mbd_sym_id mbd_sym_const(mbd_sym_ctx *ctx, double value);

/* the variable called name (a C identifier-like string, copied).  index >= 0 fixes its slot in the
 * evaluation vector; index < 0 takes the next free slot (one more than the largest used).  Asking
 * again for an existing name returns the same node; giving it a different index is an error. */
mbd_sym_id mbd_sym_var(mbd_sym_ctx *ctx, const char *name, int index);

/* the variable called name, or MBD_SYM_NONE (no error recorded) when there is none */
mbd_sym_id mbd_sym_find_var(const mbd_sym_ctx *ctx, const char *name);

mbd_sym_id mbd_sym_add(mbd_sym_ctx *ctx, mbd_sym_id a, mbd_sym_id b);
mbd_sym_id mbd_sym_sub(mbd_sym_ctx *ctx, mbd_sym_id a, mbd_sym_id b);
mbd_sym_id mbd_sym_mul(mbd_sym_ctx *ctx, mbd_sym_id a, mbd_sym_id b);
mbd_sym_id mbd_sym_div(mbd_sym_ctx *ctx, mbd_sym_id a, mbd_sym_id b);
mbd_sym_id mbd_sym_neg(mbd_sym_ctx *ctx, mbd_sym_id a);
mbd_sym_id mbd_sym_pow(mbd_sym_ctx *ctx, mbd_sym_id base, mbd_sym_id exponent);
mbd_sym_id mbd_sym_powc(mbd_sym_ctx *ctx, mbd_sym_id base, double exponent); /* constant power */
/* sum / product of n terms (n = 0 gives 0 / 1) */
mbd_sym_id mbd_sym_add_n(mbd_sym_ctx *ctx, int n, const mbd_sym_id *terms);
mbd_sym_id mbd_sym_mul_n(mbd_sym_ctx *ctx, int n, const mbd_sym_id *factors);
mbd_sym_id mbd_sym_sin(mbd_sym_ctx *ctx, mbd_sym_id a);
mbd_sym_id mbd_sym_cos(mbd_sym_ctx *ctx, mbd_sym_id a);
mbd_sym_id mbd_sym_tan(mbd_sym_ctx *ctx, mbd_sym_id a);
mbd_sym_id mbd_sym_exp(mbd_sym_ctx *ctx, mbd_sym_id a);
mbd_sym_id mbd_sym_log(mbd_sym_ctx *ctx, mbd_sym_id a);
mbd_sym_id mbd_sym_sqrt(mbd_sym_ctx *ctx, mbd_sym_id a);
mbd_sym_id mbd_sym_abs(mbd_sym_ctx *ctx, mbd_sym_id a);
mbd_sym_id mbd_sym_sign(mbd_sym_ctx *ctx, mbd_sym_id a);
mbd_sym_id mbd_sym_atan2(mbd_sym_ctx *ctx, mbd_sym_id y, mbd_sym_id x);
mbd_sym_id mbd_sym_ifelse(mbd_sym_ctx *ctx, mbd_sym_id c, mbd_sym_id a, mbd_sym_id b);

/* generic constructor: op with nargs arguments (CONST and VAR are not accepted here) */
mbd_sym_id mbd_sym_apply(mbd_sym_ctx *ctx, mbd_sym_op op, int nargs, const mbd_sym_id *args);

/* ---- inspection ------------------------------------------------------------------------------ */

/* kind of node e; MBD_SYM_NOPS for an invalid id */
mbd_sym_op mbd_sym_op_of(const mbd_sym_ctx *ctx, mbd_sym_id e);
/* the i-th argument of e (MBD_SYM_NONE when out of range: the end of its arguments) */
mbd_sym_id mbd_sym_arg(const mbd_sym_ctx *ctx, mbd_sym_id e, int i);
/* 1 and *value set when e is a constant, else 0 */
int mbd_sym_is_const(const mbd_sym_ctx *ctx, mbd_sym_id e, double *value);
/* name and evaluation-vector index of a variable (NULL / -1 when e is not a variable) */
const char *mbd_sym_var_name(const mbd_sym_ctx *ctx, mbd_sym_id e);
int mbd_sym_var_index(const mbd_sym_ctx *ctx, mbd_sym_id e);
/* one more than the largest variable index in the context (the evaluation vector's length) */
int mbd_sym_nslots(const mbd_sym_ctx *ctx);
/* the distinct variables e depends on, sorted by index: writes at most cap ids to out and returns
 * how many there are (call with cap 0 to count); -1 on out of memory */
int mbd_sym_vars(mbd_sym_ctx *ctx, mbd_sym_id e, int cap, mbd_sym_id *out);
/* 1 when e depends on variable v, 0 otherwise (-1 on out of memory) */
int mbd_sym_depends(mbd_sym_ctx *ctx, mbd_sym_id e, mbd_sym_id v);

/* ---- calculus -------------------------------------------------------------------------------- */

/* exact derivative de/dvar (var must be a variable node); MBD_SYM_NONE and a context error else.
 * Shared subexpressions are differentiated once per call. */
mbd_sym_id mbd_sym_diff(mbd_sym_ctx *ctx, mbd_sym_id e, mbd_sym_id var);

/* e with the variables vars[0..n) replaced simultaneously by repl[0..n) (re-simplified) */
mbd_sym_id mbd_sym_subs(mbd_sym_ctx *ctx, mbd_sym_id e, int n, const mbd_sym_id *vars,
                        const mbd_sym_id *repl);

/* Jacobian J[i*nv + j] = d f[i] / d v[j] (row-major nf × nv).  Returns an mbd_status. */
int mbd_sym_jacobian(mbd_sym_ctx *ctx, int nf, const mbd_sym_id *f, int nv, const mbd_sym_id *v,
                     mbd_sym_id *J, mbd_error *err);

/* ---- evaluation ------------------------------------------------------------------------------ */

/* evaluate e directly on the DAG (allocates a work array per call: for tests and the REPL).
 * vals[k] is the value of the variable with index k (length mbd_sym_nslots(ctx) suffices). */
int mbd_sym_eval(mbd_sym_ctx *ctx, mbd_sym_id e, const double *vals, double *out, mbd_error *err);

/* compile exprs[0..nexpr) to a tape.  With vars == NULL the tape reads variable k at v[k] (its
 * index); otherwise it reads vars[j] at v[j] (j < nvars) and any other variable is an error naming
 * it.  Shared subexpressions are computed once, constants live in preset registers.  The tape is
 * independent of the context afterwards.  *tape is NULL on failure. */
int mbd_sym_tape_new(mbd_sym_ctx *ctx, int nexpr, const mbd_sym_id *exprs, int nvars,
                     const mbd_sym_id *vars, mbd_sym_tape **tape, mbd_error *err);

/* run the tape: out[i] = exprs[i](v).  No allocation; uses the tape's own registers, so one tape
 * must not run in two threads at once. */
void mbd_sym_tape_eval(mbd_sym_tape *tape, const double *v, double *out);

/* free a tape (NULL is a no-op) */
void mbd_sym_tape_free(mbd_sym_tape *tape);

/* sizes: outputs, length of v read (largest slot + 1), instructions, registers */
int mbd_sym_tape_nout(const mbd_sym_tape *tape);
int mbd_sym_tape_nvars(const mbd_sym_tape *tape);
int mbd_sym_tape_ninstr(const mbd_sym_tape *tape);
int mbd_sym_tape_nregs(const mbd_sym_tape *tape);

/* ---- printing -------------------------------------------------------------------------------- */

/* readable infix text ("x^2 + y^2 - L^2") into buf (always NUL-terminated when cap > 0); returns
 * the length of the full text like snprintf.  Texts longer than about 1 MB end in "...". */
size_t mbd_sym_print(mbd_sym_ctx *ctx, mbd_sym_id e, char *buf, size_t cap);

/* the same text in a malloc'd string (caller frees); NULL when out of memory */
char *mbd_sym_to_string(mbd_sym_ctx *ctx, mbd_sym_id e);

/* ---- C code generation ----------------------------------------------------------------------- */

/* C source of `void name(const double *v, double *out)` computing exprs (variables mapped to v as
 * for mbd_sym_tape_new); subexpressions used more than once become temporaries `const double tN`.
 * *src is malloc'd (caller frees).  name must be a C identifier. */
int mbd_sym_emit_c(mbd_sym_ctx *ctx, const char *name, int nexpr, const mbd_sym_id *exprs,
                   int nvars, const mbd_sym_id *vars, char **src, mbd_error *err);

/* the same function with the nodes given[0..ngiven) taken as inputs: read at v[nvars + k], not
 * computed (nor what only they need).  Every other node is written as mbd_sym_emit_c writes it,
 * so a value computed from the same given values is the same to the bit.  Needs vars. */
int mbd_sym_emit_c_given(mbd_sym_ctx *ctx, const char *name, int nexpr, const mbd_sym_id *exprs,
                         int nvars, const mbd_sym_id *vars, int ngiven, const mbd_sym_id *given,
                         char **src, mbd_error *err);

/* the calls of math functions (sin, cos, tan, exp, log, sqrt, atan2, a power with an exponent
 * that is not a small integer) that evaluating b needs and evaluating a computes too, none inside
 * another: what a function of b can be given by one of a (as its extra outputs) instead of calling
 * again.  Writes at most cap ids to out, in an order fixed by the expressions; returns how many
 * there are (call with cap 0 to count), -1 with a context error on an invalid id or no memory. */
int mbd_sym_shared_calls(mbd_sym_ctx *ctx, int na, const mbd_sym_id *a, int nb,
                         const mbd_sym_id *b, int cap, mbd_sym_id *out);

/* compile source defining function name into a shared object with the system compiler
 * (env CC, else "cc"; flags -O2 -ffp-contract=off -shared -fPIC), cached in the cache folder as
 * <key>.so where the key is the SHA-256 of the source, compiler and flags; load it and return the
 * function.  The cache must be private (mbd_sym_cache_private); a cached object is loaded only
 * when it is the user's, nobody else can write it and its SHA-256 matches <key>.so.sha256,
 * recorded when mbd built it (else it is built again).
 * *ran_compiler (may be NULL) is 1 when the compiler ran, 0 on a cache hit.  Failure (no compiler,
 * compile error, no cache folder, dlopen failure) returns MBD_E_IO with the reason; the caller then
 * uses the tape.  Close with mbd_sym_lib_close (the function is invalid afterwards). */
int mbd_sym_compile_c(const char *src, const char *name, mbd_sym_cfn *fn, mbd_sym_lib **lib,
                      int *ran_compiler, mbd_error *err);

/* emit and compile in one call */
int mbd_sym_compile(mbd_sym_ctx *ctx, const char *name, int nexpr, const mbd_sym_id *exprs,
                    int nvars, const mbd_sym_id *vars, mbd_sym_cfn *fn, mbd_sym_lib **lib,
                    int *ran_compiler, mbd_error *err);

/* unload a library (NULL is a no-op) */
void mbd_sym_lib_close(mbd_sym_lib *lib);

/* 1 when the library's object stays loaded until the process ends (mbd_sym_compile_c keeps the
 * first objects it loads: closing such a library leaves its functions valid), else 0 */
int mbd_sym_lib_resident(const mbd_sym_lib *lib);

/* the cache folder: env MBD_CACHE, else $XDG_CACHE_HOME/mbd, else $HOME/.cache/mbd.  Writes it to
 * buf; returns MBD_OK or MBD_E_IO (no HOME, too long). Does not create it. */
int mbd_sym_cache_dir(char *buf, size_t cap, mbd_error *err);

/* the cache folder, made (0700) when missing and checked private: owned by this user and
 * writable by nobody else, every folder above it owned by this user or root and writable by
 * nobody else unless sticky (/tmp).  MBD_OK, or MBD_E_IO saying why it is not used (the caller
 * then runs without compiled code). */
int mbd_sym_cache_private(char *buf, size_t cap, mbd_error *err);

/* a file of the cache, whole (malloc'd, NUL-terminated after *len bytes; len may be NULL), when
 * it is a regular file (no link is followed) of this user that nobody else can write; NULL with
 * the reason in err otherwise */
char *mbd_sym_cache_read(const char *path, size_t *len, mbd_error *err);

/* n bytes into a file of the cache, whole or not at all, with mode (0 = 0600) */
int mbd_sym_cache_write(const char *path, const void *data, size_t n, unsigned mode,
                        mbd_error *err);

#endif
