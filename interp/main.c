/* the mbd program: script runner, -e, -i and the REPL (command line as in DSL.md) */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "l_mbd.h"
#include "l_msg.h"
#include "mpi_run.h"
#include "repl.h"

#define PROGNAME "mbd"

static const char usage_text[] =
    "usage: mbd [options] [FILE.lua [ARGS...]]\n"
    "  mbd                      interactive REPL (line editing, history, help(x))\n"
    "  mbd FILE.lua [ARGS...]   run a script; arg[0] is FILE.lua, arg[1..] (and ...) are ARGS\n"
    "  mbd -                    run a script read from standard input\n"
    "  mbd -e 'CODE'            run CODE (may be repeated; runs in order, before FILE)\n"
    "  mbd -i FILE.lua          run FILE, then stay in the REPL with its globals\n"
    "  mbd --version            print the version\n"
    "  mbd --help               print this help\n"
    "  --                       end of options (the next argument is FILE)\n"
    "environment: MBD_STDLIB (folder of the Lua stdlib), MBD_TRACEBACK=1 (tracebacks on errors),\n"
    "  MBD_MAX_WORKSPACE_GB (the most one large structure may take: a run's dense workspaces,\n"
    "  its recorder, the symbolic expressions, a sweep's results; default a quarter of the memory)\n";

/* what the command line asks for */
typedef struct {
  int script;      /* index in argv of the script (or "-"), 0 for none */
  int interactive; /* -i given */
  int has_e;       /* at least one -e */
  int version;     /* --version */
  int help;        /* --help */
} options;

static void print_usage(FILE *f) { fputs(usage_text, f); }

/* parse argv into opt; on a bad option print a message and the usage, return 0 */
static int parse_args(int argc, char **argv, options *opt) {
  memset(opt, 0, sizeof *opt);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (a[0] != '-' || strcmp(a, "-") == 0) {
      opt->script = i;
      return 1;
    }
    if (strcmp(a, "--") == 0) {
      if (i + 1 < argc) {
        opt->script = i + 1;
      }
      return 1;
    }
    if (strcmp(a, "-e") == 0) {
      if (i + 1 >= argc) {
        fprintf(stderr, LMSG_MAIN_E_ARGUMENT, PROGNAME);
        print_usage(stderr);
        return 0;
      }
      opt->has_e = 1;
      i++;
    } else if (strncmp(a, "-e", 2) == 0) {
      opt->has_e = 1;  // -eCODE
    } else if (strcmp(a, "-i") == 0) {
      opt->interactive = 1;
    } else if (strcmp(a, "--version") == 0 || strcmp(a, "-v") == 0) {
      opt->version = 1;
    } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      opt->help = 1;
    } else {
      fprintf(stderr, LMSG_MAIN_UNKNOWN_OPTION, PROGNAME, a);
      print_usage(stderr);
      return 0;
    }
  }
  return 1;
}

/* the global `arg`: arg[0] is the script, arg[1..] its arguments, negative indices the
 * program name and options (as in the standalone lua); without a script arg[0] is the program */
static void create_arg_table(lua_State *L, char **argv, int argc, int script) {
  int narg = argc - (script + 1);
  lua_createtable(L, narg > 0 ? narg : 0, script + 1);
  for (int i = 0; i < argc; i++) {
    lua_pushstring(L, argv[i]);
    lua_rawseti(L, -2, i - script);
  }
  lua_setglobal(L, "arg");
}

/* load and run a chunk from a string */
static int run_string(lua_State *L, const char *code, const char *name) {
  int status = luaL_loadbuffer(L, code, strlen(code), name);
  if (status == LUA_OK) {
    status = mbd_repl_call(L, 0, 0);
  }
  return mbd_repl_report(L, status);
}

/* run every -e in order */
static int run_e_options(lua_State *L, char **argv, int upto) {
  for (int i = 1; i < upto; i++) {
    const char *code = NULL;
    if (strcmp(argv[i], "-e") == 0) {
      code = argv[++i];
    } else if (strncmp(argv[i], "-e", 2) == 0) {
      code = argv[i] + 2;
    }
    if (code && run_string(L, code, "=(command line)") != LUA_OK) {
      return 0;
    }
  }
  return 1;
}

/* run the script argv[script] (standard input for "-") with arg[1..] as its `...` */
static int run_script(lua_State *L, char **argv, int script) {
  const char *fname = argv[script];
  if (strcmp(fname, "-") == 0 && strcmp(argv[script - 1], "--") != 0) {
    fname = NULL;  // standard input
  }
  int status = luaL_loadfile(L, fname);
  if (status == LUA_ERRFILE) {
    // "cannot open FILE": no script position to give, name the program
    fflush(stdout);
    fprintf(stderr, "%s: %s\n", PROGNAME, lua_tostring(L, -1));
    lua_pop(L, 1);
    return 0;
  }
  if (status == LUA_OK) {
    // the script's arguments, from the global arg
    lua_getglobal(L, "arg");
    int n = (int)luaL_len(L, -1);
    luaL_checkstack(L, n + 3, "too many arguments to script");
    for (int i = 1; i <= n; i++) {
      lua_rawgeti(L, -i, i);
    }
    lua_remove(L, -n - 1);
    status = mbd_repl_call(L, n, 0);
  }
  return mbd_repl_report(L, status) == LUA_OK;
}

/* open the mbd module and its help() */
static int open_mbd(lua_State *L) {
  lua_pushcfunction(L, mbd_open);
  if (mbd_repl_report(L, mbd_repl_call(L, 0, 0)) != LUA_OK) {
    return 0;
  }
  // help(x) is written in Lua: stdlib/mbd/help.lua (a missing help is not fatal)
  lua_getglobal(L, "require");
  lua_pushliteral(L, "mbd.help");
  int status = mbd_repl_call(L, 1, 1);
  if (status == LUA_OK) {
    lua_setglobal(L, "help");
  } else {
    lua_pushfstring(L, LMSG_MAIN_NO_HELP, PROGNAME, lua_tostring(L, -1));
    lua_remove(L, -2);
    mbd_repl_report(L, status);
  }
  return 1;
}

/* the whole program inside one protected call: (argc, argv) -> boolean success */
static int pmain(lua_State *L) {
  int argc = (int)lua_tointeger(L, 1);
  char **argv = lua_touserdata(L, 2);
  options opt;
  if (!parse_args(argc, argv, &opt)) {
    lua_pushboolean(L, 0);
    return 1;
  }
  if (opt.help) {
    print_usage(stdout);
    lua_pushboolean(L, 1);
    return 1;
  }
  if (opt.version) {
    printf("%s %s (%s)\n", PROGNAME, mbd_version(), LUA_RELEASE);
    lua_pushboolean(L, 1);
    return 1;
  }

  luaL_checkversion(L);
  luaL_openlibs(L);
  create_arg_table(L, argv, argc, opt.script);
  lua_gc(L, LUA_GCRESTART);
  lua_gc(L, LUA_GCGEN, 0, 0);
  if (!open_mbd(L)) {
    lua_pushboolean(L, 0);
    return 1;
  }
  mbd_mpi_attach(L);  // under mpirun: sweeps shared among the ranks

  // -e chunks in order, then the script, then the REPL
  int upto = opt.script > 0 ? opt.script : argc;
  if (!run_e_options(L, argv, upto)) {
    lua_pushboolean(L, 0);
    return 1;
  }
  if (opt.script > 0 && !run_script(L, argv, opt.script)) {
    lua_pushboolean(L, 0);
    return 1;
  }
  if (opt.interactive || (opt.script == 0 && !opt.has_e)) {
    mbd_repl_loop(L);
  }
  lua_pushboolean(L, 1);
  return 1;
}

int main(int argc, char **argv) {
  // started by an MPI launcher: MPI first (it may take its own arguments out of argv)
  if (mbd_mpi_start(&argc, &argv) < 0) {
    return EXIT_FAILURE;
  }
  lua_State *L = luaL_newstate();
  if (!L) {
    fprintf(stderr, LMSG_MAIN_NOMEM, PROGNAME);
    mbd_mpi_stop(0);
    return EXIT_FAILURE;
  }
  lua_gc(L, LUA_GCSTOP);  // stopped while building the initial state
  lua_pushcfunction(L, pmain);
  lua_pushinteger(L, argc);
  lua_pushlightuserdata(L, argv);
  int status = lua_pcall(L, 2, 1, 0);
  int ok = status == LUA_OK && lua_toboolean(L, -1);
  if (status != LUA_OK) {
    const char *msg = lua_tostring(L, -1);
    fprintf(stderr, "%s: %s\n", PROGNAME, msg ? msg : "(" LMSG_ERROR_NOT_STRING ")");
  }
  lua_close(L);
  mbd_mpi_stop(ok);
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
