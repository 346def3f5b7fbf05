/* libFuzzer target: the script loader and the DSL constructors under AddressSanitizer and
 * UndefinedBehaviorSanitizer.  Each input is a Lua chunk run in a fresh state with the mbd module
 * open, as the mbd program runs a script (tests/fuzz/README.md: building, running, seeds).
 *
 * A chunk may do anything a script may; what would make a fuzzing run useless or harmful is
 * bounded:
 *   - time: a CPU-time timer (FUZZ_CPU_SECONDS) raises the interrupt that Ctrl-C raises: Lua code
 *     stops at its next instruction, an engine run at its next poll (output sample, Newton step);
 *   - memory: Lua's allocations are capped (FUZZ_LUA_BYTES: "not enough memory", a Lua error);
 *     the engine's large structures (dense workspaces, recorder, symbolic expressions) are capped
 *     through MBD_MAX_WORKSPACE_GB;
 *   - the outside world: io, os (but os.clock), dofile, loadfile and the parallel helpers are
 *     removed before the chunk runs; the writers (mbd.plot, run:write_csv, run:plot, run:animate,
 *     mbd.write_file, mbd.check_writable) stay, their file names taken as names inside a private
 *     scratch folder (emptied before each input), and fuzz_disk(n) makes every write fail after
 *     n bytes (MBD_TEST_WRITE_LIMIT, a full disk; n < 0: no limit), so the writers' failure
 *     paths are fuzzed too.
 * Errors are the normal outcome; only a crash, a sanitizer report or a hang counts. */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <stdio.h>
#include <sys/time.h>
#include <unistd.h>

#include "l_callback.h"
#include "l_mbd.h"

#define FUZZ_CPU_SECONDS 2
#define FUZZ_LUA_BYTES (256u << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* Lua's allocator with a cap */
typedef struct budget {
  size_t used;
} budget;

static void *capped_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  budget *b = ud;
  size_t old = ptr ? osize : 0;
  if (nsize == 0) {
    b->used -= old;
    free(ptr);
    return NULL;
  }
  if (nsize > old && b->used + (nsize - old) > FUZZ_LUA_BYTES) {
    return NULL;
  }
  void *p = realloc(ptr, nsize);
  if (p) {
    b->used = b->used - old + nsize;
  }
  return p;
}

/* the interrupt: as the REPL's Ctrl-C (repl.c) */
static lua_State *running;

static void stop_hook(lua_State *L, lua_Debug *ar) {
  (void)ar;
  lua_sethook(L, NULL, 0, 0);
  luaL_error(L, "fuzz: out of time");
}

static void on_timer(int sig) {
  (void)sig;
  mbd_lua_interrupted = 1;
  if (running) {
    lua_sethook(running, stop_hook, LUA_MASKCALL | LUA_MASKRET | LUA_MASKCOUNT, 1);
  }
}

/* the writers' scratch folder (a private mkdtemp folder), emptied before each input */
static char scratch[64];

static void empty_scratch(void) {
  DIR *d = opendir(scratch);
  if (!d) {
    return;
  }
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
      char path[sizeof scratch + 300];
      snprintf(path, sizeof path, "%s/%s", scratch, e->d_name);
      unlink(path);
    }
  }
  closedir(d);
}

/* fuzz_disk(n): writes fail after n bytes (a full disk); n < 0 lifts the limit */
static int l_fuzz_disk(lua_State *L) {
  lua_Integer n = luaL_checkinteger(L, 1);
  if (n < 0) {
    unsetenv("MBD_TEST_WRITE_LIMIT");
  } else {
    char v[32];
    snprintf(v, sizeof v, "%lld", (long long)n);
    setenv("MBD_TEST_WRITE_LIMIT", v, 1);
  }
  return 0;
}

/* removes what reaches outside the process, in Lua (debug is removed last); the writers keep
 * working inside the scratch folder FUZZ_DIR, a file name being only a name there */
static const char *const prelude =
    "io, dofile, loadfile, print = nil, nil, nil, function() end\n"
    "os = { clock = os.clock, time = os.time }\n"
    "mbd.parallel_map, mbd.sweep = nil, nil\n"
    "local dir = FUZZ_DIR\n"
    "FUZZ_DIR = nil\n"
    "local function place(name)\n"
    "  if type(name) ~= 'string' then return name end\n"
    "  return dir .. '/f' .. name:gsub('[^%w%.%-_]', '_'):sub(1, 64)\n"
    "end\n"
    "local function placed(t)\n"
    "  if type(t) == 'table' and t.file ~= nil then t.file = place(t.file) end\n"
    "  return t\n"
    "end\n"
    "local plot, write_file, check = mbd.plot, mbd.write_file, mbd.check_writable\n"
    "mbd.plot = function(t, ...) return plot(placed(t), ...) end\n"
    "mbd.write_file = function(p, ...) return write_file(place(p), ...) end\n"
    "mbd.check_writable = function(p, ...) return check(place(p), ...) end\n"
    "mbd.file_is_stream = nil\n"
    "for _, name in ipairs { 'mbd.Run' } do\n"
    "  local mt = debug.getregistry()[name]\n"
    "  local _, methods = debug.getupvalue(mt.__index, 1)\n"
    "  if type(methods) == 'table' then\n"
    "    local csv, rplot, animate = methods.write_csv, methods.plot, methods.animate\n"
    "    methods.write_csv = function(r, p, ...) return csv(r, place(p), ...) end\n"
    "    methods.plot = rplot and function(r, t, ...) return rplot(r, placed(t), ...) end\n"
    "    methods.animate = animate and function(r, t, ...) return animate(r, placed(t), ...) end\n"
    "  end\n"
    "end\n"
    "debug = nil\n";

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  // the engine's large structures (dense workspaces, recorder, symbolic expressions): a few
  // hundred MB each at most (a model of thousands of bodies is refused with its size rather than
  // allocated)
  setenv("MBD_MAX_WORKSPACE_GB", "0.25", 1);
  // the writers' folder: private, in TMPDIR (else /tmp)
  const char *t = getenv("TMPDIR");
  snprintf(scratch, sizeof scratch, "%s/mbd-fuzz-XXXXXX", t && *t && strlen(t) < 40 ? t : "/tmp");
  if (!mkdtemp(scratch)) {
    abort();
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_timer;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGVTALRM, &sa, NULL);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  budget b = {0};
  lua_State *L = lua_newstate(capped_alloc, &b);
  if (!L) {
    return 0;
  }
  luaL_openlibs(L);
  empty_scratch();
  unsetenv("MBD_TEST_WRITE_LIMIT");
  lua_pushstring(L, scratch);
  lua_setglobal(L, "FUZZ_DIR");
  lua_pushcfunction(L, l_fuzz_disk);
  lua_setglobal(L, "fuzz_disk");
  lua_pushcfunction(L, mbd_open);
  if (lua_pcall(L, 0, 1, 0) != LUA_OK || luaL_dostring(L, prelude) != LUA_OK) {
    // the stdlib must load (MBD_STDLIB or the build's folder): a broken setup is not an input
    abort();
  }
  lua_settop(L, 0);
  mbd_lua_interrupted = 0;
  running = L;
  struct itimerval tv = {{0, 0}, {FUZZ_CPU_SECONDS, 0}};
  setitimer(ITIMER_VIRTUAL, &tv, NULL);
  // text only: Lua does not verify binary chunks (a crafted one crashes the VM by design)
  if (luaL_loadbufferx(L, (const char *)data, size, "=fuzz", "t") == LUA_OK) {
    lua_pcall(L, 0, 0, 0);
  }
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_VIRTUAL, &off, NULL);
  running = NULL;
  mbd_lua_interrupted = 0;
  lua_close(L);
  return 0;
}
