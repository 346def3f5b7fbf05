/* mbd — helpers shared by the Lua bindings: the constructor-table field walker */
#ifndef MBD_L_UTIL_H
#define MBD_L_UTIL_H

#include <lauxlib.h>
#include <lua.h>

/* raise "<ctor>: unknown field '<key>'" for any key of the table at idx not in allowed
 * (NULL-terminated), and "<ctor>: expects a table with named fields" for non-string keys */
void lu_check_fields(lua_State *L, int idx, const char *ctor, const char *const *allowed);

/* optional number field: returns 1 and sets *out when present; raises on a wrong type */
int lu_opt_number(lua_State *L, int idx, const char *ctor, const char *key, double *out);
/* required number field */
double lu_req_number(lua_State *L, int idx, const char *ctor, const char *key);
/* optional integer field */
int lu_opt_int(lua_State *L, int idx, const char *ctor, const char *key, int *out);
/* optional vector of exactly n numbers: "<ctor>: field 'at1' expects 2 numbers, got 3" */
int lu_opt_vec(lua_State *L, int idx, const char *ctor, const char *key, int n, double *out);
/* optional string field (the pointer stays valid while the table is alive) */
const char *lu_opt_string(lua_State *L, int idx, const char *ctor, const char *key);
/* whether a field is present (not nil) */
int lu_has(lua_State *L, int idx, const char *key);
/* type name of a value for messages: "mbd.Body", "number", "table" … */
const char *lu_typename(lua_State *L, int idx);
/* read a Lua array of exactly n numbers at idx (absolute) into out; returns the count found or
 * -1 when not a table or when an entry is not a number */
int lu_read_numbers(lua_State *L, int idx, double *out, int n);

/* a square matrix from the value at idx (absolute or relative): a number (size want, scalar · I;
 * want must be > 0), a list of n numbers (diagonal) or a list of n lists of n numbers (full).  With
 * want > 0 the size must be want.  Pushes a GC-owned buffer of n·n doubles (column-major) on the
 * stack and returns it; *n gets the size.  Raises "<ctor>: field '<key>' ..." on bad input. */
double *lu_read_square(lua_State *L, int idx, const char *ctor, const char *key, int want, int *n);

/* the integrator fields shared by every simulate{}: integrator (name), rtol, atol, step (required
 * by rk4), max_step, output_every — read from the table at idx into the given places (left as
 * they are when absent); raises on unknown names and non-positive tolerances */
typedef struct lu_ode_fields {
  int integrator;
  double rtol, atol, step, max_step, output_every;
} lu_ode_fields;
void lu_read_ode_fields(lua_State *L, int idx, lu_ode_fields *f);

#endif
