/* protected calls, error reports and the read-eval-print loop of the mbd program */
#include "repl.h"

#include <ctype.h>
#include <lauxlib.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "l_callback.h"
#include "l_mbd.h"
#include "l_msg.h"
#include "lineedit.h"

#define PROMPT "mbd> "
#define PROMPT2 ">> "
#define CHUNKNAME "=stdin"
#define EOFMARK "<eof>"

/* extra statuses of read_entry beside the Lua ones */
#define ENTRY_EOF (-1)    /* end of input */
#define ENTRY_CANCEL (-2) /* Ctrl-C at a prompt dropped the entry */

/* the state running under mbd_repl_call: the SIGINT handler can only reach a static */
static lua_State *running = NULL;

// --- Ctrl-C: the handler only sets a hook; the hook raises the error in the running Lua code

static void stop_hook(lua_State *L, lua_Debug *ar) {
  (void)ar;
  lua_sethook(L, NULL, 0, 0);
  mbd_lua_interrupted = 0;  // this Ctrl-C is consumed here
  luaL_error(L, LMSG_REPL_INTERRUPTED);
}

static void on_sigint(int sig) {
  // a second Ctrl-C (say, inside a long C computation) ends the program
  signal(sig, SIG_DFL);
  mbd_lua_interrupted = 1;  // a simulation running in C stops at its next output sample
  lua_sethook(running, stop_hook, LUA_MASKCALL | LUA_MASKRET | LUA_MASKCOUNT, 1);
}

// --- error messages

/* does the first line of msg carry a position, "<source>:<line>: "? */
static int has_position(const char *msg) {
  for (const char *p = msg; *p && *p != '\n'; p++) {
    if (p[0] == ':' && isdigit((unsigned char)p[1])) {
      const char *q = p + 1;
      while (isdigit((unsigned char)*q)) {
        q++;
      }
      if (q[0] == ':' && q[1] == ' ') {
        return 1;
      }
    }
  }
  return 0;
}

/* message handler: a string message, positioned at the first Lua frame when it has no
 * position (errors raised from C), with a traceback when MBD_TRACEBACK=1 */
static int msghandler(lua_State *L) {
  const char *msg = lua_tostring(L, 1);
  if (!msg) {
    // an error object: its __tostring, or its type
    if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING) {
      msg = lua_tostring(L, -1);
    } else {
      msg = lua_pushfstring(L, LMSG_REPL_ERROR_TYPE, luaL_typename(L, 1));
    }
  }
  if (!has_position(msg)) {
    lua_Debug ar;
    for (int level = 1; lua_getstack(L, level, &ar); level++) {
      lua_getinfo(L, "Sl", &ar);
      if (ar.currentline > 0) {
        msg = lua_pushfstring(L, "%s:%d: %s", ar.short_src, ar.currentline, msg);
        break;
      }
    }
  }
  const char *tb = getenv("MBD_TRACEBACK");
  if (tb && strcmp(tb, "1") == 0) {
    luaL_traceback(L, L, msg, 1);
  }
  return 1;
}

int mbd_repl_call(lua_State *L, int nargs, int nres) {
  int base = lua_gettop(L) - nargs;  // the function's index
  lua_pushcfunction(L, msghandler);
  lua_insert(L, base);

  // Ctrl-C interrupts only while Lua code runs
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  running = L;
  sigaction(SIGINT, &sa, &old);
  int status = lua_pcall(L, nargs, nres, base);
  sigaction(SIGINT, &old, NULL);
  if (lua_gethook(L) == stop_hook) {
    lua_sethook(L, NULL, 0, 0);  // a Ctrl-C that came after the code had finished
  }
  running = NULL;

  lua_remove(L, base);
  return status;
}

int mbd_repl_report(lua_State *L, int status) {
  if (status != LUA_OK) {
    const char *msg = lua_tostring(L, -1);
    fflush(stdout);
    fprintf(stderr, "%s\n", msg ? msg : "(" LMSG_ERROR_NOT_STRING ")");
    fflush(stderr);
    lua_pop(L, 1);
  }
  return status;
}

// --- the read-eval-print loop

/* the line input lives in a userdata, so a memory error thrown through the loop still frees it */
static int lineedit_gc(lua_State *L) {
  mbd_lineedit **box = lua_touserdata(L, 1);
  mbd_lineedit_close(*box);
  *box = NULL;
  return 0;
}

static mbd_lineedit **push_lineedit(lua_State *L) {
  mbd_lineedit **box = lua_newuserdatauv(L, sizeof *box, 0);
  *box = NULL;
  lua_createtable(L, 0, 1);
  lua_pushcfunction(L, lineedit_gc);
  lua_setfield(L, -2, "__gc");
  lua_setmetatable(L, -2);
  *box = mbd_lineedit_open();
  if (!*box) {
    luaL_error(L, LMSG_REPL_ENOUGH_MEMORY_LINE_INPUT);
  }
  return box;
}

// --- the session: locals kept from one entry to the next, and Tab completion (stdlib/mbd/repl.lua)

/* where the loop keeps the session on the stack: the module mbd.repl and the environment of the
 * entries (both 0 when the module could not be loaded: entries then run as plain chunks) */
typedef struct {
  lua_State *L;
  int module; /* stack index of mbd.repl's table, 0 for none */
  int env;    /* stack index of the session's environment, 0 for none */
} session;

/* require "mbd.repl" and open a session: pushes the module and the environment (two nils when
 * it cannot be loaded, after a warning) */
static void open_session(lua_State *L, session *s) {
  s->L = L;
  s->module = s->env = 0;
  lua_getglobal(L, "require");
  lua_pushliteral(L, "mbd.repl");
  int status = lua_pcall(L, 1, 1, 0);
  if (status == LUA_OK && lua_istable(L, -1)) {
    lua_getfield(L, -1, "session");
    status = lua_pcall(L, 0, 1, 0);
    if (status == LUA_OK && lua_istable(L, -1)) {
      s->env = lua_gettop(L);
      s->module = s->env - 1;
      return;
    }
  }
  fflush(stdout);
  fprintf(stderr, LMSG_REPL_NO_LOCALS,
          lua_isstring(L, -1) ? lua_tostring(L, -1) : LMSG_REPL_NOT_MODULE);
  fflush(stderr);
  lua_settop(L, lua_gettop(L) - 1);
  lua_pushnil(L);
  lua_pushnil(L);
}

/* the chunk on top of the stack runs in the session's environment (its first upvalue, _ENV) */
static void set_env(const session *s) {
  if (s->env) {
    lua_pushvalue(s->L, s->env);
    if (!lua_setupvalue(s->L, -2, 1)) {
      lua_pop(s->L, 1);
    }
  }
}

/* replace the chunk on top of the stack, compiled from `text`, by the same text with its
 * outer-level locals turned into session variables (mbd.repl's rewrite); the chunk stays as it
 * is when there is nothing to rewrite or the rewrite does not compile */
static void keep_locals(const session *s, const char *text) {
  lua_State *L = s->L;
  if (!s->module) {
    return;
  }
  lua_getfield(L, s->module, "rewrite");
  lua_pushstring(L, text);
  if (lua_pcall(L, 1, 1, 0) != LUA_OK || !lua_isstring(L, -1)) {
    lua_pop(L, 1);
    return;
  }
  size_t len;
  const char *rewritten = lua_tolstring(L, -1, &len);
  if (luaL_loadbuffer(L, rewritten, len, CHUNKNAME) == LUA_OK) {
    lua_remove(L, -2);   // the rewritten text
    lua_replace(L, -2);  // the first chunk
  } else {
    lua_pop(L, 2);  // the message and the rewritten text
  }
}

/* the completer (lineedit.h) of the word before the cursor: mbd.repl's complete(word), copied into
 * malloc'd strings; NULL on any failure (completion is a convenience: it never raises) */
static char **complete(void *ud, const char *word) {
  const session *s = ud;
  lua_State *L = s->L;
  if (!s->module || !lua_checkstack(L, 4)) {
    return NULL;
  }
  int top = lua_gettop(L);
  char **out = NULL;
  lua_getfield(L, s->module, "complete");
  lua_pushstring(L, word);
  if (lua_pcall(L, 1, 1, 0) == LUA_OK && lua_istable(L, -1)) {
    size_t n = lua_rawlen(L, -1);
    out = calloc(n + 1, sizeof *out);
    for (size_t i = 0; out && i < n; i++) {
      lua_rawgeti(L, -1, (lua_Integer)i + 1);
      const char *w = lua_tostring(L, -1);
      out[i] = w ? strdup(w) : NULL;
      lua_pop(L, 1);
      if (!out[i]) {
        break;  // the array ends here
      }
    }
  }
  lua_settop(L, top);
  return out;
}

/* read one line and push it (a leading '=' of a first line becomes "return ", and *eq is set);
 * returns a MBD_LINEEDIT_* status and pushes nothing unless it is MBD_LINEEDIT_OK */
static int push_line(lua_State *L, mbd_lineedit *le, int first, int *eq) {
  lua_getglobal(L, first ? "_PROMPT" : "_PROMPT2");
  const char *prompt = lua_tostring(L, -1);
  if (!prompt) {
    prompt = first ? PROMPT : PROMPT2;
  }
  char *line = NULL;
  int st = mbd_lineedit_read(le, prompt, &line);
  lua_pop(L, 1);
  if (st != MBD_LINEEDIT_OK) {
    return st;
  }
  *eq = first && line[0] == '=';
  if (*eq) {
    lua_pushfstring(L, "return %s", line + 1);
  } else {
    lua_pushstring(L, line);
  }
  free(line);
  return MBD_LINEEDIT_OK;
}

#define RETURN_PREFIX "return "

/* keep an entry in the history as it was typed: "= x" rather than "return x" */
static void remember(lua_State *L, mbd_lineedit *le, const char *text, int eq) {
  if (eq && strncmp(text, RETURN_PREFIX, sizeof RETURN_PREFIX - 1) == 0) {
    mbd_lineedit_remember(le, lua_pushfstring(L, "=%s", text + sizeof RETURN_PREFIX - 1));
    lua_pop(L, 1);
  } else {
    mbd_lineedit_remember(le, text);
  }
}

/* is the load status a syntax error at the end of the input? (then pop the message) */
static int incomplete(lua_State *L, int status) {
  if (status == LUA_ERRSYNTAX) {
    size_t len;
    const char *msg = lua_tolstring(L, -1, &len);
    size_t mark = sizeof EOFMARK - 1;
    if (len >= mark && strcmp(msg + len - mark, EOFMARK) == 0) {
      lua_pop(L, 1);
      return 1;
    }
  }
  return 0;
}

/* try the line on top of the stack as `return <line>;`: on success replace it by the chunk */
static int add_return(lua_State *L, mbd_lineedit *le, const session *s, int eq) {
  const char *line = lua_tostring(L, -1);
  const char *retline = lua_pushfstring(L, "return %s;", line);
  int status = luaL_loadbuffer(L, retline, strlen(retline), CHUNKNAME);
  if (status == LUA_OK) {
    lua_remove(L, -2);  // the modified line
    remember(L, le, line, eq);
    lua_remove(L, -2);  // the line
    set_env(s);
  } else {
    lua_pop(L, 2);  // the message and the modified line
  }
  return status;
}

/* compile the line at index `at` as a statement, reading more lines while it ends early;
 * leaves the chunk or the message above it, or nothing for ENTRY_CANCEL */
static int multi_line(lua_State *L, mbd_lineedit *le, const session *s, int at, int eq) {
  for (;;) {
    size_t len;
    const char *text = lua_tolstring(L, at, &len);
    int status = luaL_loadbuffer(L, text, len, CHUNKNAME);
    if (!incomplete(L, status)) {
      remember(L, le, text, eq);
      if (status == LUA_OK) {
        keep_locals(s, text);
        set_env(s);
      }
      lua_remove(L, at);
      return status;
    }
    int more_eq;
    int st = push_line(L, le, 0, &more_eq);
    if (st == MBD_LINEEDIT_CANCEL) {
      lua_remove(L, at);
      return ENTRY_CANCEL;
    }
    if (st == MBD_LINEEDIT_EOF) {
      // end of input inside an entry: report the syntax error
      status = luaL_loadbuffer(L, text, len, CHUNKNAME);
      remember(L, le, text, eq);
      lua_remove(L, at);
      return status;
    }
    // text .. "\n" .. new line
    lua_pushliteral(L, "\n");
    lua_insert(L, -2);
    lua_concat(L, 2);
    lua_pushvalue(L, at);
    lua_insert(L, -2);
    lua_concat(L, 2);
    lua_replace(L, at);
  }
}

/* read one entry and push its compiled chunk (status LUA_OK) or its error message; pushes
 * nothing for ENTRY_EOF and ENTRY_CANCEL */
static int read_entry(lua_State *L, mbd_lineedit *le, const session *s) {
  int eq = 0;
  int st = push_line(L, le, 1, &eq);
  if (st == MBD_LINEEDIT_EOF) {
    return ENTRY_EOF;
  }
  if (st == MBD_LINEEDIT_CANCEL) {
    return ENTRY_CANCEL;
  }
  int status = add_return(L, le, s, eq);
  if (status != LUA_OK) {
    status = multi_line(L, le, s, lua_gettop(L), eq);
  }
  return status;
}

/* a plain table (no __tostring, no __name) through mbd.pretty (stdlib/mbd/pretty.lua), nested
 * and abbreviated; anything else through tostring.  Pushes the text. */
static const char *to_text(lua_State *L, int i, size_t *len) {
  if (lua_type(L, i) == LUA_TTABLE && luaL_getmetafield(L, i, "__tostring") == LUA_TNIL &&
      luaL_getmetafield(L, i, "__name") == LUA_TNIL) {
    lua_getglobal(L, "require");
    lua_pushliteral(L, "mbd.pretty");
    lua_call(L, 1, 1);
    lua_pushvalue(L, i);
    lua_call(L, 1, 1);
    if (lua_type(L, -1) == LUA_TSTRING) {
      return lua_tolstring(L, -1, len);
    }
    lua_pop(L, 1);
  } else if (lua_type(L, i) == LUA_TTABLE) {
    lua_pop(L, 1);  // the metafield found
  }
  return luaL_tolstring(L, i, len);
}

/* print every argument (tables readably, the rest through tostring), separated by tabs */
static int print_results(lua_State *L) {
  int n = lua_gettop(L);
  luaL_checkstack(L, LUA_MINSTACK, "too many results to print");
  for (int i = 1; i <= n; i++) {
    size_t len;
    const char *s = to_text(L, i, &len);
    if (i > 1) {
      fputc('\t', stdout);
    }
    fwrite(s, 1, len, stdout);
    lua_pop(L, 1);
  }
  fputc('\n', stdout);
  fflush(stdout);
  return 0;
}

/* run the chunk on top of the stack and print its results */
static int run_entry(lua_State *L) {
  int base = lua_gettop(L) - 1;  // below the chunk
  int status = mbd_repl_call(L, 0, LUA_MULTRET);
  int n = lua_gettop(L) - base;
  if (status == LUA_OK && n > 0) {
    lua_pushcfunction(L, print_results);
    lua_insert(L, base + 1);
    status = mbd_repl_call(L, n, 0);
  }
  return status;
}

void mbd_repl_loop(lua_State *L) {
  int top = lua_gettop(L);
  mbd_lineedit **box = push_lineedit(L);
  mbd_lineedit *le = *box;
  session s;
  open_session(L, &s);
  mbd_lineedit_set_completer(le, complete, &s);
  int base = lua_gettop(L);
  if (mbd_lineedit_interactive(le)) {
    printf("mbd %s (%s) \xe2\x80\x94 type help() for an overview, Ctrl-D to quit\n", mbd_version(),
           LUA_RELEASE);
    fflush(stdout);
  }
  for (;;) {
    int status = read_entry(L, le, &s);
    if (status == ENTRY_EOF) {
      break;
    }
    if (status == LUA_OK) {
      status = run_entry(L);
    }
    if (status != ENTRY_CANCEL) {
      mbd_repl_report(L, status);
    }
    lua_settop(L, base);
  }
  if (mbd_lineedit_interactive(le)) {
    fputc('\n', stdout);
    fflush(stdout);
  }
  // close the line input now (its __gc then finds nothing to do)
  mbd_lineedit_close(le);
  *box = NULL;
  lua_settop(L, top);
}
