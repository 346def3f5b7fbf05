/* mbd — helpers shared by the Lua bindings (private to interp/): the constructor-table field
 * walker and its readers, script positions, and the __index of the DSL types.  The prefix lx_
 * ("Lua extras") keeps them apart from the engine's mbd_lu_* (LU factorization). */
#ifndef MBD_L_UTIL_H
#define MBD_L_UTIL_H

#include <lauxlib.h>
#include <lua.h>
#include <stddef.h>

/* raise "<ctor>: unknown field '<key>'" for any key of the table at idx not in allowed
 * (NULL-terminated), and "<ctor>: expects a table with named fields" for non-string keys */
void lx_check_fields(lua_State *L, int idx, const char *ctor, const char *const *allowed);

/* optional number field: returns 1 and sets *out when present; raises on a wrong type */
int lx_opt_number(lua_State *L, int idx, const char *ctor, const char *key, double *out);
/* required number field */
double lx_req_number(lua_State *L, int idx, const char *ctor, const char *key);
/* optional integer field */
/* v as message text into buf: "NaN" for a not-a-number (printf's "-nan" is platform noise),
 * else the shortest text that reads back as v; returns buf */
const char *lx_num(char *buf, size_t cap, double v);
int lx_opt_int(lua_State *L, int idx, const char *ctor, const char *key, int *out);
/* optional vector of exactly n numbers: "<ctor>: field 'at1' expects 2 numbers, got 3" */
int lx_opt_vec(lua_State *L, int idx, const char *ctor, const char *key, int n, double *out);
/* optional position-like vector of n numbers in a model of dimension dim: as lx_opt_vec with what
 * naming the object ("body 'crank'", "force on body 'b'"), and a vector of 2 or 3 numbers of the
 * wrong size gets the model's dimension as a hint: "body: field 'pos' expects 3 numbers, got 2
 * (body 'c'; the model is spatial, dim = 3: {x, y, z})".  dim = 0: no hint. */
int lx_opt_vec_dim(lua_State *L, int idx, const char *what, const char *key, int n, int dim,
                   double *out);
/* optional function field, as a registry ref (the caller unrefs it); LUA_NOREF when absent.
 * Raises "<ctor>: field '<key>' expects a function, got <type>". */
int lx_opt_function(lua_State *L, int idx, const char *ctor, const char *key);
/* optional string field (the pointer stays valid while the table is alive) */
const char *lx_opt_string(lua_State *L, int idx, const char *ctor, const char *key);
/* the frame every plot reads from the option table at idx ("plot: field 'title' expects a
 * string"): title, xlabel, ylabel (NULL when absent), width, height (unchanged when absent) */
void lx_plot_frame(lua_State *L, int idx, const char **title, const char **xlabel,
                   const char **ylabel, int *width, int *height);
/* optional flag field: *out = its truthiness when present (any type), unchanged when absent */
void lx_opt_flag(lua_State *L, int idx, const char *key, int *out);
/* whether a field is present (not nil) */
int lx_has(lua_State *L, int idx, const char *key);
/* type name of a value for messages: "mbd.Body", "number", "table" … */
const char *lx_typename(lua_State *L, int idx);
/* read a Lua array of exactly n numbers at idx (absolute) into out; returns the count found or
 * -1 when not a table or when an entry is not a number */
int lx_read_numbers(lua_State *L, int idx, double *out, int n);

/* building result tables: push a Lua list of the n numbers v; t[key] = v for the table on top */
void lx_push_numbers(lua_State *L, const double *v, int n);
void lx_set_number(lua_State *L, const char *key, double v);
void lx_set_string(lua_State *L, const char *key, const char *v);

/* a square matrix from the value at idx (absolute or relative): a number (size want, scalar · I;
 * want must be > 0), a list of n numbers (diagonal) or a list of n lists of n numbers (full).  With
 * want > 0 the size must be want.  Pushes a GC-owned buffer of n·n doubles (column-major) on the
 * stack and returns it; *n gets the size.  Raises "<ctor>: field '<key>' ..." on bad input. */
double *lx_read_square(lua_State *L, int idx, const char *ctor, const char *key, int want, int *n);

/* the user's script position "file.lua:12" of the Lua function calling the running C function
 * (empty when that is not a Lua function), into buf of len bytes */
void lx_where(lua_State *L, char *buf, size_t len);

/* set __index of the metatable on top of the stack (STYLE.md #11): the methods (sorted, may be
 * NULL) are looked up in one table, kept as an upvalue; a key that is not a method goes to
 * fields(L) (may be NULL: nil), called with the object and the key as arguments 1 and 2, for
 * the fields computed from the object (a model's bodies by name, a run's channels). */
void lx_set_index(lua_State *L, const luaL_Reg *methods, lua_CFunction fields);

#endif
