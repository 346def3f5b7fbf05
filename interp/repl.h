/* mbd — running Lua code for the program: protected calls with Ctrl-C handling, error
 * reports, and the read-eval-print loop (in the shape of lua.c's). */
#ifndef MBD_REPL_H
#define MBD_REPL_H

#include <lua.h>

/* call the function below its nargs arguments on the stack in protected mode, keeping nres
 * results (LUA_MULTRET for all). While it runs, Ctrl-C raises "interrupted!" inside the Lua code
 * (a second Ctrl-C ends the program). An error message gets the script position of the first
 * Lua frame when it has none, and a traceback when MBD_TRACEBACK=1. Returns a Lua status; on
 * error the message is left on the stack. */
int mbd_repl_call(lua_State *L, int nargs, int nres);

/* when status is not LUA_OK, print the message on top of the stack to stderr (after flushing
 * stdout) and pop it. Returns status. */
int mbd_repl_report(lua_State *L, int status);

/* the read-eval-print loop on standard input until end of input. On a terminal: banner,
 * prompts "mbd> " / ">> " (globals _PROMPT / _PROMPT2 override them), line editing and
 * history; when piped: no banner and no prompts. Each entry is first tried as an expression
 * (`return <line>;`, or a leading `=`), whose results are printed through tostring, separated
 * by tabs; a statement that ends early (`<eof>`) reads more lines. Errors are printed and the
 * loop goes on. Raises only on memory errors. */
void mbd_repl_loop(lua_State *L);

#endif
