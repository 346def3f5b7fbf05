/* mbd.parallel_map(n, fn [, workers [, progress [, on_result]]]): fn(i) for i = 1..n on all cores.
 *
 * Lua has no threads, so the work is shared among forked processes: after the parent is set up
 * (models built, functions defined), each of `workers` children computes the indices
 * w+1, w+1+W, w+1+2W, … (a strided share, so slow regions of a grid are spread over all of them)
 * and writes each result back through its own pipe as soon as it is done; the parent collects
 * them, draws a progress bar on stderr when stderr is a terminal, and returns results[i].
 * A result is a number or a flat table of numbers (string or integer keys); a point whose fn
 * raises an error (or returns something else) gives its message as a string in results[i] — the
 * other points go on.  workers = 1 runs in this process (no fork).  on_result(i, result), when
 * given, is called in the calling process as each result arrives (the sweep's checkpoint); an
 * error in it stops its calls, not the map, and comes back as the map's second result.
 *
 * Under mpirun (the mbd program started by an MPI launcher: interp/mpi_run.c) every rank runs the
 * script and reaches the same map: the ranks share the points the same strided way (rank r
 * computes r+1, r+1+size, … in its own process; `workers` is not used), the records are
 * gathered to every rank, and each returns the same results as a local run. */
#include "l_parallel.h"

#include <errno.h>
#include <lauxlib.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "l_callback.h"
#include "l_msg.h"
#include "mbd/status.h"

/* the memory a point's result takes in the parent at least (its slot in the results table and a
 * number; a table of results takes more): the bound checked before a map starts */
#define RESULT_BYTES 64.0

/* record: u32 index, u8 kind (0 number, 1 table, 2 error), then
 *   number: f64;  table: u32 count, count × (u8 keykind (0 string, 1 integer), u32 keylen | i64 key,
 *   key bytes, f64 value);  error: u32 length, bytes.  The whole record is preceded by its u32
 *   byte length. */

typedef struct wbuf {
  char *p;
  size_t len, cap;
} wbuf;

static int wb_put(wbuf *b, const void *data, size_t n) {
  if (b->len + n > b->cap) {
    size_t nc = b->cap ? 2 * b->cap : 256;
    while (nc < b->len + n) {
      nc *= 2;
    }
    char *q = realloc(b->p, nc);
    if (!q) {
      return -1;
    }
    b->p = q;
    b->cap = nc;
  }
  memcpy(b->p + b->len, data, n);
  b->len += n;
  return 0;
}

static void put_error(wbuf *b, const char *msg) {
  uint8_t kind = 2;
  uint32_t len = (uint32_t)strlen(msg);
  wb_put(b, &kind, 1);
  wb_put(b, &len, 4);
  wb_put(b, msg, len);
}

/* encode the value on top of the stack (result of fn) after the index into b */
static void encode(lua_State *L, wbuf *b) {
  int t = lua_type(L, -1);
  if (t == LUA_TNUMBER) {
    uint8_t kind = 0;
    double v = lua_tonumber(L, -1);
    wb_put(b, &kind, 1);
    wb_put(b, &v, 8);
    return;
  }
  if (t != LUA_TTABLE) {
    char msg[128];
    snprintf(msg, sizeof msg, LMSG_PARALLEL_RESULT_TYPE, luaL_typename(L, -1));
    put_error(b, msg);
    return;
  }
  // count and check the entries first
  uint32_t count = 0;
  int tidx = lua_gettop(L);
  lua_pushnil(L);
  while (lua_next(L, tidx)) {
    int kt = lua_type(L, -2);
    if ((kt != LUA_TSTRING && !lua_isinteger(L, -2)) || lua_type(L, -1) != LUA_TNUMBER) {
      lua_pop(L, 2);
      put_error(b, "parallel_map: fn must return a flat table of numbers (string or integer "
                   "keys)");
      return;
    }
    count++;
    lua_pop(L, 1);
  }
  uint8_t kind = 1;
  wb_put(b, &kind, 1);
  wb_put(b, &count, 4);
  lua_pushnil(L);
  while (lua_next(L, tidx)) {
    double v = lua_tonumber(L, -1);
    if (lua_type(L, -2) == LUA_TSTRING) {
      size_t kl = 0;
      const char *k = lua_tolstring(L, -2, &kl);
      uint8_t kk = 0;
      uint32_t l32 = (uint32_t)kl;
      wb_put(b, &kk, 1);
      wb_put(b, &l32, 4);
      wb_put(b, k, kl);
    } else {
      uint8_t kk = 1;
      int64_t k = (int64_t)lua_tointeger(L, -2);
      wb_put(b, &kk, 1);
      wb_put(b, &k, 8);
    }
    wb_put(b, &v, 8);
    lua_pop(L, 1);
  }
}

/* run fn(i) under pcall and append its framed record to out */
static void compute(lua_State *L, int fnidx, int i, wbuf *out) {
  wbuf b = {0};
  uint32_t idx = (uint32_t)i;
  wb_put(&b, &idx, 4);
  int top = lua_gettop(L);
  lua_pushvalue(L, fnidx);
  lua_pushinteger(L, i);
  if (lua_pcall(L, 1, 1, 0) != LUA_OK) {
    const char *msg = lua_tostring(L, -1);
    put_error(&b, msg ? msg : "error object is not a string");
  } else {
    encode(L, &b);
  }
  lua_settop(L, top);
  uint32_t len = (uint32_t)b.len;
  wb_put(out, &len, 4);
  wb_put(out, b.p, b.len);
  free(b.p);
}

/* the caller's on_result(i, result), called in this process as each point's result arrives (the
 * stack slot of the function, 0 for none); an error in it is kept and ends the calls, the map
 * goes on (its message is the map's second result) */
typedef struct onres {
  int fn;  /* stack slot of on_result, 0 for none */
  int err; /* registry reference of its first error message, LUA_NOREF while none */
} onres;

static void notify(lua_State *L, onres *o, int residx, lua_Integer i) {
  if (o->fn == 0 || o->err != LUA_NOREF || i <= 0) {
    return;
  }
  int top = lua_gettop(L);
  lua_pushvalue(L, o->fn);
  lua_pushinteger(L, i);
  lua_rawgeti(L, residx, i);
  if (lua_pcall(L, 2, 0, 0) != LUA_OK) {
    if (!lua_isstring(L, -1)) {
      lua_pop(L, 1);
      lua_pushliteral(L, LMSG_ERROR_NOT_STRING);
    }
    o->err = luaL_ref(L, LUA_REGISTRYINDEX);
  }
  lua_settop(L, top);
}

/* the map's results: the table, and on_result's first error message when it raised one */
static int finish(lua_State *L, onres *o, int residx) {
  lua_pushvalue(L, residx);
  if (o->err == LUA_NOREF) {
    return 1;
  }
  lua_rawgeti(L, LUA_REGISTRYINDEX, o->err);
  luaL_unref(L, LUA_REGISTRYINDEX, o->err);
  o->err = LUA_NOREF;
  return 2;
}

/* decode one record body (after its length) into results[index]; its index, 0 if none */
static lua_Integer decode(lua_State *L, int residx, const char *p, size_t len) {
  if (len < 5) {
    return 0;
  }
  uint32_t idx;
  memcpy(&idx, p, 4);
  uint8_t kind = (uint8_t)p[4];
  const char *q = p + 5;
  if (kind == 0) {
    double v;
    memcpy(&v, q, 8);
    lua_pushnumber(L, v);
  } else if (kind == 2) {
    uint32_t ml;
    memcpy(&ml, q, 4);
    lua_pushlstring(L, q + 4, ml);
  } else {
    uint32_t count;
    memcpy(&count, q, 4);
    q += 4;
    lua_createtable(L, 0, (int)count);
    for (uint32_t k = 0; k < count; k++) {
      uint8_t kk = (uint8_t)*q++;
      if (kk == 0) {
        uint32_t kl;
        memcpy(&kl, q, 4);
        lua_pushlstring(L, q + 4, kl);
        q += 4 + kl;
      } else {
        int64_t key;
        memcpy(&key, q, 8);
        lua_pushinteger(L, (lua_Integer)key);
        q += 8;
      }
      double v;
      memcpy(&v, q, 8);
      q += 8;
      lua_pushnumber(L, v);
      lua_rawset(L, -3);
    }
  }
  lua_rawseti(L, residx, (lua_Integer)idx);
  return (lua_Integer)idx;
}

static int write_all(int fd, const char *p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) {
        continue;
      }
      return -1;
    }
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* progress bar on stderr: [#####.....] 123/1681  7% 12.3 s left */
static void bar(int done, int n, double t0, int last) {
  int w = 40, k = n ? (int)((long)w * done / n) : w;
  double el = now() - t0, left = done ? el * (n - done) / done : 0;
  fprintf(stderr, "\r[");
  for (int i = 0; i < w; i++) {
    fputc(i < k ? '#' : '.', stderr);
  }
  fprintf(stderr, "] %d/%d %3d%% %6.1f s %s", done, n, n ? 100 * done / n : 100,
          last ? el : left, last ? "elapsed\n" : "left   ");
  fflush(stderr);
}

/* the number of online cores */
int mbd_ncores(void) {
  long c = sysconf(_SC_NPROCESSORS_ONLN);
  return c > 0 ? (int)c : 1;
}

/* the registry key of the distributed run's l_dist (a light userdata), absent when local */
#define DIST_KEY "mbd.dist"

void l_parallel_set_dist(lua_State *L, const l_dist *d) {
  lua_pushlightuserdata(L, (void *)d);
  lua_setfield(L, LUA_REGISTRYINDEX, DIST_KEY);
}

static const l_dist *get_dist(lua_State *L) {
  lua_getfield(L, LUA_REGISTRYINDEX, DIST_KEY);
  const l_dist *d = lua_touserdata(L, -1);
  lua_pop(L, 1);
  return d;
}

/* the map shared among the ranks of a distributed run: this rank's points in this process, then
 * every rank's records to every rank */
static int dist_map(lua_State *L, const l_dist *dist, int n, int residx, int progress) {
  wbuf mine = {0};
  double t0 = now();
  int done = 0, share = 0, stopped = 0;
  for (int i = dist->rank + 1; i <= n; i += dist->size) {
    share++;
  }
  for (int i = dist->rank + 1; i <= n; i += dist->size) {
    // an interrupted rank stops computing but still joins the exchange (the others wait there)
    if (mbd_lua_interrupted) {
      stopped = 1;
      break;
    }
    compute(L, 2, i, &mine);
    done++;
    if (progress) {
      bar(done, share, t0, done == share);  // this rank's share
    }
  }
  char *all = NULL;
  size_t total = 0;
  int rc = dist->allgather(mine.p ? mine.p : "", mine.len, &all, &total);
  free(mine.p);
  if (rc != 0) {
    free(all);
    return luaL_error(L, LMSG_PARALLEL_PARALLEL_MAP_EXCHANGE_RESULTS_AMONG);
  }
  size_t off = 0;
  while (total - off >= 4) {
    uint32_t rl;
    memcpy(&rl, all + off, 4);
    if (total - off - 4 < rl) {
      break;
    }
    decode(L, residx, all + off + 4, rl);
    off += 4 + rl;
  }
  free(all);
  if (stopped) {
    mbd_lua_interrupted = 0;
    return luaL_error(L, LMSG_PARALLEL_PARALLEL_MAP_INTERRUPTED_MPI_RANK, dist->rank, dist->size);
  }
  // a rank that stopped early leaves its points missing: say so per point
  for (lua_Integer i = 1; i <= n; i++) {
    if (lua_rawgeti(L, residx, i) == LUA_TNIL) {
      lua_pushfstring(L, LMSG_PARALLEL_RANK_STOPPED, (int)i);
      lua_rawseti(L, residx, i);
    }
    lua_pop(L, 1);
  }
  lua_pushvalue(L, residx);
  return 1;
}

static int l_parallel_map(lua_State *L) {
  lua_Integer n = luaL_checkinteger(L, 1);
  luaL_checktype(L, 2, LUA_TFUNCTION);
  int workers = (int)luaL_optinteger(L, 3, 0);
  int progress = lua_isnoneornil(L, 4) ? 1 : lua_toboolean(L, 4);
  luaL_argcheck(L, n >= 0 && n < (1 << 30), 1, "count out of range");
  if (workers <= 0) {
    workers = mbd_ncores();
  }
  if (workers > n) {
    workers = n > 0 ? (int)n : 1;
  }
  // the results are held together: refuse a count whose results alone would not fit
  double limit = mbd_memory_limit();
  if (limit > 0 && (double)n * RESULT_BYTES > limit) {
    char msg[256];
    snprintf(msg, sizeof msg, LMSG_PARALLEL_TOO_LARGE, (int)n, (double)n * RESULT_BYTES / 1e9,
             limit / 1e9);
    return luaL_error(L, "%s", msg);
  }
  progress = progress && isatty(2);
  if (!lua_isnoneornil(L, 5)) {
    luaL_checktype(L, 5, LUA_TFUNCTION);
  }
  lua_settop(L, 5);
  lua_createtable(L, (int)n, 0);
  int residx = lua_gettop(L);
  onres onr = {lua_isnil(L, 5) ? 0 : 5, LUA_NOREF};
  const l_dist *dist = get_dist(L);
  if (dist && dist->size > 1) {
    return dist_map(L, dist, (int)n, residx, progress);
  }
  double t0 = now();
  int done = 0;
  if (workers == 1) {
    wbuf b = {0};
    for (int i = 1; i <= n; i++) {
      b.len = 0;
      compute(L, 2, i, &b);
      notify(L, &onr, residx, decode(L, residx, b.p + 4, b.len - 4));
      if (progress) {
        bar(++done, (int)n, t0, i == n);
      }
      if (mbd_lua_interrupted) {
        free(b.p);
        return luaL_error(L, LMSG_PARALLEL_PARALLEL_MAP_INTERRUPTED_AFTER_POINTS, i, (int)n);
      }
    }
    free(b.p);
    return finish(L, &onr, residx);
  }
  // fork the workers after flushing, so buffered output is not written twice
  fflush(stdout);
  fflush(stderr);
  pid_t *pid = lua_newuserdatauv(L, sizeof(pid_t) * (size_t)workers, 0);
  struct pollfd *pfd = lua_newuserdatauv(L, sizeof(struct pollfd) * (size_t)workers, 0);
  wbuf *in = lua_newuserdatauv(L, sizeof(wbuf) * (size_t)workers, 0);
  memset(in, 0, sizeof(wbuf) * (size_t)workers);
  int started = 0;
  for (int w = 0; w < workers; w++) {
    int fd[2];
    if (pipe(fd) != 0) {
      break;
    }
    pid_t p = fork();
    if (p < 0) {
      close(fd[0]);
      close(fd[1]);
      break;
    }
    if (p == 0) {
      // child: compute a strided share, write each record at once, leave without Lua's cleanup
      close(fd[0]);
      for (int k = 0; k < started; k++) {
        close(pfd[k].fd);
      }
      signal(SIGINT, SIG_DFL);
      wbuf b = {0};
      for (int i = w + 1; i <= n; i += workers) {
        b.len = 0;
        compute(L, 2, i, &b);
        if (write_all(fd[1], b.p, b.len) != 0) {
          _exit(1);
        }
      }
      fflush(stdout);
      fflush(stderr);
      _exit(0);
    }
    close(fd[1]);
    pid[started] = p;
    pfd[started].fd = fd[0];
    pfd[started].events = POLLIN;
    started++;
  }
  if (started == 0) {
    return luaL_error(L, LMSG_PARALLEL_PARALLEL_MAP_START_WORKER_PROCESSES, strerror(errno));
  }
  if (started < workers) {
    // fewer processes than asked: the missing shares would be lost, so stop them all
    for (int k = 0; k < started; k++) {
      kill(pid[k], SIGTERM);
      waitpid(pid[k], NULL, 0);
      close(pfd[k].fd);
    }
    return luaL_error(L, LMSG_PARALLEL_PARALLEL_MAP_COULD_START_WORKERS, started, workers);
  }
  int open = workers;
  char chunk[65536];
  while (open > 0) {
    int r = poll(pfd, (nfds_t)workers, 200);
    if (r < 0 && errno != EINTR) {
      break;
    }
    if (mbd_lua_interrupted) {
      break;
    }
    for (int w = 0; w < workers && r > 0; w++) {
      if (pfd[w].fd < 0 || !(pfd[w].revents & (POLLIN | POLLHUP | POLLERR))) {
        continue;
      }
      ssize_t got = read(pfd[w].fd, chunk, sizeof chunk);
      if (got > 0) {
        if (wb_put(&in[w], chunk, (size_t)got) != 0) {
          break;
        }
        // parse the complete records
        size_t off = 0;
        while (in[w].len - off >= 4) {
          uint32_t rl;
          memcpy(&rl, in[w].p + off, 4);
          if (in[w].len - off - 4 < rl) {
            break;
          }
          notify(L, &onr, residx, decode(L, residx, in[w].p + off + 4, rl));
          off += 4 + rl;
          done++;
        }
        memmove(in[w].p, in[w].p + off, in[w].len - off);
        in[w].len -= off;
        if (progress) {
          bar(done, (int)n, t0, 0);
        }
      } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
        close(pfd[w].fd);
        pfd[w].fd = -1;
        open--;
      }
    }
  }
  int interrupted = mbd_lua_interrupted;
  for (int w = 0; w < workers; w++) {
    if (pfd[w].fd >= 0) {
      kill(pid[w], SIGTERM);
      close(pfd[w].fd);
    }
    waitpid(pid[w], NULL, 0);
    free(in[w].p);
    in[w].p = NULL;
  }
  if (progress) {
    bar(done, (int)n, t0, 1);
  }
  if (interrupted) {
    mbd_lua_interrupted = 0;
    return luaL_error(L, LMSG_PARALLEL_PARALLEL_MAP_INTERRUPTED_AFTER_POINTS, done, (int)n);
  }
  // a worker that died (crash, out of memory) leaves its points missing: say so per point
  for (lua_Integer i = 1; i <= n; i++) {
    if (lua_rawgeti(L, residx, i) == LUA_TNIL) {
      lua_pushfstring(L, LMSG_PARALLEL_WORKER_DIED, (int)i);
      lua_rawseti(L, residx, i);
    }
    lua_pop(L, 1);
  }
  return finish(L, &onr, residx);
}

static int l_ncores(lua_State *L) {
  lua_pushinteger(L, mbd_ncores());
  return 1;
}

/* mbd.mpi_rank(), mbd.mpi_size(): this process's MPI rank (0 when not under mpirun) and the
 * number of ranks (1) */
static int l_mpi_rank(lua_State *L) {
  const l_dist *d = get_dist(L);
  lua_pushinteger(L, d ? d->rank : 0);
  return 1;
}

static int l_mpi_size(lua_State *L) {
  const l_dist *d = get_dist(L);
  lua_pushinteger(L, d ? d->size : 1);
  return 1;
}

/* mbd.wall_clock(): monotonic seconds, for timing studies */
/* mbd.memory_limit(): bytes one large structure may take (mbd_memory_limit) */
static int l_memory_limit(lua_State *L) {
  lua_pushnumber(L, mbd_memory_limit());
  return 1;
}

static int l_wall_clock(lua_State *L) {
  lua_pushnumber(L, now());
  return 1;
}

int mbd_open_parallel(lua_State *L) {
  lua_pushcfunction(L, l_wall_clock);
  lua_setfield(L, -2, "wall_clock");
  lua_pushcfunction(L, l_parallel_map);
  lua_setfield(L, -2, "parallel_map");
  lua_pushcfunction(L, l_ncores);
  lua_setfield(L, -2, "ncores");
  lua_pushcfunction(L, l_memory_limit);
  lua_setfield(L, -2, "memory_limit");
  lua_pushcfunction(L, l_mpi_rank);
  lua_setfield(L, -2, "mpi_rank");
  lua_pushcfunction(L, l_mpi_size);
  lua_setfield(L, -2, "mpi_size");
  return 0;
}
