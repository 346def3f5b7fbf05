/* mbd — message templates of the symbolic engine (sym/): the errors recorded in a context
 * (SYM_FAIL) and the errors returned by evaluation, tapes, emission and compilation (MBD_FAIL).
 * One place for the text the user sees; the tests match these templates, not copies of the text. */
#ifndef MBD_SYM_MSG_H
#define MBD_SYM_MSG_H

/* ---- allocation ------------------------------------------------------------------------------ */

/* an allocation failed: who ("sym", "sym.diff", "sym.subs", "sym.eval", "sym.emit",
 * "sym.compile") */
#define MSG_SYM_NOMEM "%s: out of memory"
/* the node table could not grow: nodes held */
#define MSG_SYM_NOMEM_NODES "sym: out of memory (%d nodes)"
/* a context table could not grow: which ("variable names", "hash table") */
#define MSG_SYM_NOMEM_TABLE "sym: out of memory (%s)"
/* the context would outgrow the memory limit: GB, nodes, operands held, GB allowed */
#define MSG_SYM_TOO_LARGE                                                                      \
  "sym: the expressions would take %.3g GB (%d nodes, %d operands held), more than the %.3g GB " \
  "allowed (a quarter of the memory, or MBD_MAX_WORKSPACE_GB); an expression that large is "      \
  "usually one growing without bound (repeated differentiation, a product expanded in a loop)"
/* evaluation planning could not allocate: expressions */
#define MSG_SYM_NOMEM_PLAN "sym: out of memory planning %d expressions"
/* a tape could not be allocated: expressions */
#define MSG_SYM_NOMEM_TAPE "sym.tape: out of memory compiling %d expressions"

/* ---- expressions and variables --------------------------------------------------------------- */

/* an id that names no node: operation ("diff", "subs", "eval", or the constructor), id */
#define MSG_SYM_BAD_ID "sym.%s: invalid expression id %d"
/* an empty variable name */
#define MSG_SYM_VAR_EMPTY "sym.var: empty variable name"
/* a variable asked for again with another index: name, its index, the index asked for */
#define MSG_SYM_VAR_INDEX "sym.var: variable '%s' already has index %d, not %d"
/* apply with an operation or argument count that do not fit: operation, arguments */
#define MSG_SYM_BAD_OP "sym.apply: bad operation %d with %d arguments"
/* a node kind the differentiator does not know (a bug): kind */
#define MSG_SYM_DIFF_KIND "sym.diff: unknown node kind %d"
/* differentiation by an expression that is not a variable */
#define MSG_SYM_DIFF_VAR "sym.diff: differentiation variable is not a variable"
/* substitution of something that is not a variable: 1-based item */
#define MSG_SYM_SUBS_VAR "sym.subs: item %d to replace is not a variable"
/* a replacement id that names no node: id */
#define MSG_SYM_SUBS_ID "sym.subs: invalid replacement id %d"
/* a Jacobian entry failed: 1-based row, column, the context's message */
#define MSG_SYM_JACOBIAN "sym.jacobian: row %d, column %d: %s"
/* an expression of a list names no node: 1-based position, id */
#define MSG_SYM_EXPR_INVALID "sym: expression %d is invalid (id %d)"
/* an entry of a variable list is not a variable: 1-based position */
#define MSG_SYM_VARLIST "sym: item %d of the variable list is not a variable"
/* an entry of a list of given nodes names no node: 1-based position, id */
#define MSG_SYM_GIVEN_INVALID "sym: given node %d is invalid (id %d)"
/* given nodes without a variable list (their slots follow the variables') */
#define MSG_SYM_GIVEN_VARS "sym.emit: given nodes need a variable list"
/* an expression uses a variable missing from the list: variable, list length */
#define MSG_SYM_VAR_MISSING "sym: variable '%s' is not among the %d variables given"

/* ---- emission and compilation (MBD_E_IO unless noted) ---------------------------------------- */

/* a function name that is not a C identifier (MBD_E_INPUT): name */
#define MSG_SYM_EMIT_NAME "sym.emit: function name '%s' is not a C identifier"
/* neither MBD_CACHE nor HOME is set */
#define MSG_SYM_CACHE_NONE "sym.compile: no cache folder (set MBD_CACHE or HOME)"
/* the cache folder's path does not fit */
#define MSG_SYM_CACHE_LONG "sym.compile: cache folder name too long"
/* the cache folder could not be made: folder, strerror */
#define MSG_SYM_CACHE_MKDIR "sym.compile: cannot create cache folder '%s': %s"
/* the cache folder is not private: folder, why ("writable by others (mode 1777)", ...) */
#define MSG_SYM_CACHE_UNSAFE \
  "sym.compile: cache folder '%s' not used: %s (chmod 700 it, or set MBD_CACHE to a private folder)"
/* a file of the cache is not used: file, why */
#define MSG_SYM_CACHE_FILE "sym.compile: '%s' is not used: %s"
/* no source or a bad function name (MBD_E_INPUT) */
#define MSG_SYM_COMPILE_INPUT "sym.compile: no source or bad function name"
/* $CC is empty */
#define MSG_SYM_CC_EMPTY "sym.compile: empty compiler command"
/* the compiler process could not be started */
#define MSG_SYM_CC_START "sym.compile: cannot start the compiler"
/* the compiler could not be run: compiler, strerror */
#define MSG_SYM_CC_RUN "sym.compile: cannot run compiler '%s': %s"
/* waiting for the compiler failed: strerror */
#define MSG_SYM_CC_LOST "sym.compile: lost the compiler process: %s"
/* the compiler does not exist: compiler */
#define MSG_SYM_CC_NOT_FOUND "sym.compile: compiler '%s' not found"
/* the compiler failed: compiler, its first line of output or "(no message)" */
#define MSG_SYM_CC_FAILED "sym.compile: compiler '%s' failed: %s"
/* the source could not be written: file, strerror */
#define MSG_SYM_WRITE "sym.compile: cannot write '%s': %s"
/* the library could not be moved into the cache: file, strerror */
#define MSG_SYM_STORE "sym.compile: cannot store '%s': %s"
/* the library could not be loaded: file, dlerror */
#define MSG_SYM_LOAD "sym.compile: cannot load '%s': %s"
/* the library lacks the function: file, function */
#define MSG_SYM_NO_FUNCTION "sym.compile: '%s' has no function '%s'"

#endif
