/* symbolic expressions: C source generation, compilation with the system compiler, a cache of
 * compiled shared objects, and loading (paper 002: derived equations emitted as source code) */
#define _XOPEN_SOURCE 700 /* realpath, S_ISVTX: the cache folder's checks */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mbd/fileout.h"
#include "mbd/hash.h"

#include "sym_impl.h"
#include "sym_msg.h"

extern char **environ;

/* the compiler flags; part of the cache key */
static const char *const cflags[] = {"-O2", "-ffp-contract=off", "-shared", "-fPIC"};
#define NCFLAGS ((int)(sizeof cflags / sizeof cflags[0]))

/* ---- a growing string --------------------------------------------------------------------------
 */

typedef struct str {
  char *p;
  size_t n, cap;
  int nomem;
} str;

static void sput(str *s, const char *t) {
  size_t len = strlen(t);
  if (s->nomem) {
    return;
  }
  if (s->n + len + 1 > s->cap) {
    size_t c = s->cap ? s->cap : 256;
    while (c < s->n + len + 1) {
      c *= 2;
    }
    char *q = realloc(s->p, c);
    if (!q) {
      s->nomem = 1;
      return;
    }
    s->p = q;
    s->cap = c;
  }
  memcpy(s->p + s->n, t, len + 1);
  s->n += len;
}

static void sputf(str *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void sputf(str *s, const char *fmt, ...) {
  char tmp[128];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  sput(s, tmp);
}

/* ---- emission ----------------------------------------------------------------------------------
 */

typedef struct emitter {
  const mbd_sym_ctx *ctx;
  sym_plan *P;
  char **text;  /* text[id]: C text of an inlined single-use node, NULL once consumed */
  int32_t *tmp; /* tmp[id]: temporary number, -1 when inlined or a leaf */
  int use_powi, use_sign;
} emitter;

/* C text of node id as an operand (a temporary, a variable, a literal or a parenthesized
 * expression), appended to s */
static void operand(emitter *E, str *s, mbd_sym_id id) {
  const sym_node *n = NODE(E->ctx, id);
  if (n->op == MBD_SYM_CONST) {
    double v = n->value;
    if (isnan(v)) {
      sput(s, "NAN");
    } else if (isinf(v)) {
      sput(s, v > 0 ? "INFINITY" : "(-INFINITY)");
    } else {
      char t[40];
      snprintf(t, sizeof t, "%.17g", v);
      if (!strpbrk(t, ".eE")) {
        strcat(t, ".0");
      }
      sput(s, v < 0 ? "(" : "");
      sput(s, t);
      sput(s, v < 0 ? ")" : "");
    }
  } else if (n->op == MBD_SYM_VAR || E->P->slot[id] >= 0) {  // (a variable or a given node)
    sputf(s, "v[%d]", (int)E->P->slot[id]);
  } else if (E->tmp[id] >= 0) {
    sputf(s, "t%d", (int)E->tmp[id]);
  } else {
    sput(s, "(");
    sput(s, E->text[id] ? E->text[id] : "0");
    sput(s, ")");
    free(E->text[id]);
    E->text[id] = NULL;
  }
}

/* C expression of node id's recipe (see sym_eval.c), appended to s */
static void recipe(emitter *E, str *s, mbd_sym_id id) {
  const mbd_sym_ctx *ctx = E->ctx;
  const sym_node *n = NODE(ctx, id);
  const int32_t *a = ctx->args ? ctx->args + n->adr : NULL;  // (no arguments yet: leaves only)
  static const char *fname[MBD_SYM_NOPS] = {
      [MBD_SYM_SIN] = "sin",  [MBD_SYM_COS] = "cos",       [MBD_SYM_TAN] = "tan",
      [MBD_SYM_EXP] = "exp",  [MBD_SYM_LOG] = "log",       [MBD_SYM_SQRT] = "sqrt",
      [MBD_SYM_ABS] = "fabs", [MBD_SYM_SIGN] = "mbd_sign", [MBD_SYM_ATAN2] = "atan2"};
  mbd_sym_id f;
  double e;
  int k;
  switch (n->op) {
    case MBD_SYM_ADD:
      for (int i = 0; i < n->nargs; i++) {
        int neg = sym_is_negation(ctx, a[i], &f);
        sput(s, neg ? (i ? " - " : "-") : (i ? " + " : ""));
        operand(E, s, neg ? f : a[i]);
      }
      return;
    case MBD_SYM_MUL: {
      int started = 0;
      for (int i = 0; i < n->nargs; i++) {
        if (!sym_is_reciprocal(ctx, a[i], &f)) {
          sput(s, started ? " * " : "");
          operand(E, s, a[i]);
          started = 1;
        }
      }
      for (int i = 0; i < n->nargs; i++) {
        if (sym_is_reciprocal(ctx, a[i], &f)) {
          sput(s, started ? " / " : "1.0 / ");
          operand(E, s, f);
          started = 1;
        }
      }
      return;
    }
    case MBD_SYM_POW:
      if (mbd_sym_is_const(ctx, a[1], &e) && sym_small_int(e, &k)) {
        if (k == -1) {
          sput(s, "1.0 / ");
          operand(E, s, a[0]);
        } else if (k == 2 && !E->text[a[0]]) {
          operand(E, s, a[0]); /* a leaf or temporary: written twice (x * x = mbd_powi(x, 2)) */
          sput(s, " * ");
          operand(E, s, a[0]);
        } else {
          E->use_powi = 1;
          sput(s, "mbd_powi(");
          operand(E, s, a[0]);
          sputf(s, ", %d)", k);
        }
        return;
      }
      sput(s, "pow(");
      operand(E, s, a[0]);
      sput(s, ", ");
      operand(E, s, a[1]);
      sput(s, ")");
      return;
    case MBD_SYM_IFELSE:
      operand(E, s, a[0]);
      sput(s, " > 0 ? ");
      operand(E, s, a[1]);
      sput(s, " : ");
      operand(E, s, a[2]);
      return;
    default:
      E->use_sign |= n->op == MBD_SYM_SIGN;
      sput(s, fname[n->op]);
      sput(s, "(");
      for (int i = 0; i < n->nargs; i++) {
        sput(s, i ? ", " : "");
        operand(E, s, a[i]);
      }
      sput(s, ")");
      return;
  }
}

static int is_ident(const char *s) {
  if (!s || !(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z'))) {
    return 0;
  }
  for (; *s; s++) {
    if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
          (*s >= '0' && *s <= '9'))) {
      return 0;
    }
  }
  return 1;
}

int mbd_sym_emit_c(mbd_sym_ctx *ctx, const char *name, int nexpr, const mbd_sym_id *exprs,
                   int nvars, const mbd_sym_id *vars, char **src, mbd_error *err) {
  return mbd_sym_emit_c_given(ctx, name, nexpr, exprs, nvars, vars, 0, NULL, src, err);
}

int mbd_sym_emit_c_given(mbd_sym_ctx *ctx, const char *name, int nexpr, const mbd_sym_id *exprs,
                         int nvars, const mbd_sym_id *vars, int ngiven, const mbd_sym_id *given,
                         char **src, mbd_error *err) {
  *src = NULL;
  if (!is_ident(name)) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_SYM_EMIT_NAME, name ? name : "(null)");
  }
  if (ngiven > 0 && !vars) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_SYM_GIVEN_VARS);
  }
  sym_plan P;
  int status = sym_plan_build(ctx, nexpr, exprs, nvars, vars, ngiven, given, &P, err);
  if (status) {
    return status;
  }
  size_t nn = (size_t)ctx->nnodes + 1;
  emitter E = {ctx, &P, calloc(nn, sizeof(char *)), malloc(sizeof(int32_t) * nn), 0, 0};
  uint8_t *isout = calloc(nn, 1);
  str body = {0}, out = {0};
  if (!E.text || !E.tmp || !isout) {
    status = MBD_FAIL(err, MBD_E_NOMEM, MSG_SYM_NOMEM, "sym.emit");
    goto done;
  }
  memset(E.tmp, 0xff, sizeof(int32_t) * nn);
  for (int j = 0; j < nexpr; j++) {
    isout[exprs[j]] = isout[exprs[j]] < 2 ? isout[exprs[j]] + 1 : 2;
  }
  /* a node read more than once (as an operand or an output) becomes a temporary */
  int ntmp = 0;
  for (int i = 0; i < P.n; i++) {
    mbd_sym_id id = P.order[i];
    int op = NODE(ctx, id)->op;
    if (op == MBD_SYM_CONST || op == MBD_SYM_VAR || P.slot[id] >= 0) {
      continue;  // (leaves: constants, variables and given nodes)
    }
    str t = {0};
    recipe(&E, &t, id);
    if (t.nomem) {
      free(t.p);
      status = MBD_FAIL(err, MBD_E_NOMEM, MSG_SYM_NOMEM, "sym.emit");
      goto done;
    }
    if (P.uses[id] + isout[id] > 1) {
      E.tmp[id] = ntmp++;
      sputf(&body, "  const double t%d = ", (int)E.tmp[id]);
      sput(&body, t.p ? t.p : "0");
      sput(&body, ";\n");
      free(t.p);
    } else {
      E.text[id] = t.p ? t.p : calloc(1, 1);
    }
  }
  for (int j = 0; j < nexpr; j++) {
    mbd_sym_id id = exprs[j];
    sputf(&body, "  out[%d] = ", j);
    if (E.text[id]) {
      sput(&body, E.text[id]); /* an output read nowhere else: its text directly */
      free(E.text[id]);
      E.text[id] = NULL;
    } else {
      operand(&E, &body, id);
    }
    sput(&body, ";\n");
  }
  sput(&out, "/* generated by mbd from symbolic expressions */\n#include <math.h>\n\n");
  if (E.use_powi) {
    sput(&out, SYM_POWI_SOURCE "\n");
  }
  if (E.use_sign) {
    sput(&out,
         "static double mbd_sign(double x) { return x > 0 ? 1.0 : (x < 0 ? -1.0 : 0.0); }\n\n");
  }
  sputf(&out, "void %s(const double *v, double *out);\n", name);
  sputf(&out, "void %s(const double *v, double *out) {\n", name);
  sput(&out, "  (void)v;\n");
  sput(&out, body.p ? body.p : "");
  sput(&out, "}\n");
  if (body.nomem || out.nomem) {
    status = MBD_FAIL(err, MBD_E_NOMEM, MSG_SYM_NOMEM, "sym.emit");
    goto done;
  }
  *src = out.p;
  out.p = NULL;
done:
  if (E.text) {
    for (size_t i = 0; i < nn; i++) {
      free(E.text[i]);
    }
  }
  free(E.text);
  free(E.tmp);
  free(isout);
  free(body.p);
  free(out.p);
  sym_plan_free(&P);
  return status;
}

/* ---- cache folder and compiler -----------------------------------------------------------------
 */

int mbd_sym_cache_dir(char *buf, size_t cap, mbd_error *err) {
  const char *d = getenv("MBD_CACHE");
  int n;
  if (d && *d) {
    n = snprintf(buf, cap, "%s", d);
  } else if ((d = getenv("XDG_CACHE_HOME")) && *d) {
    n = snprintf(buf, cap, "%s/mbd", d);
  } else if ((d = getenv("HOME")) && *d) {
    n = snprintf(buf, cap, "%s/.cache/mbd", d);
  } else {
    return MBD_FAIL(err, MBD_E_IO, MSG_SYM_CACHE_NONE);
  }
  if (n < 0 || (size_t)n >= cap) {
    return MBD_FAIL(err, MBD_E_IO, MSG_SYM_CACHE_LONG);
  }
  return MBD_OK;
}

/* mkdir -p */
static int make_dirs(const char *path) {
  char tmp[4096];
  size_t len = strlen(path);
  if (len >= sizeof tmp) {
    return -1;
  }
  memcpy(tmp, path, len + 1);
  for (char *p = tmp + 1; *p; p++) {
    if (*p == '/') {
      *p = '\0';
      if (mkdir(tmp, 0700) && errno != EEXIST) {
        return -1;
      }
      *p = '/';
    }
  }
  if (mkdir(tmp, 0700) && errno != EEXIST) {
    return -1;
  }
  return 0;
}

/* ---- what the cache trusts ------------------------------------------------------------------
 * Code is loaded from the cache only when nobody else could have put it there: the folder must be
 * owned by this user and writable by nobody else, and every folder above it owned by this user or
 * root and writable by nobody else unless it is sticky (/tmp), as ssh asks of ~/.ssh.  Files are
 * made 0600 (sources, digests) and 0700 (shared objects); a shared object is loaded only when it
 * is a regular file of this user that nobody else can write and its SHA-256 is the one recorded
 * beside it (<key>.so.sha256) when mbd built it, and the name loaded is still the file that was
 * hashed (its device and inode). */

/* why the folder (self = 1) or an ancestor of it (self = 0) cannot be trusted, into why; 0 when
 * it can */
static int untrusted(const char *path, const struct stat *st, int self, char *why, size_t cap) {
  uid_t me = geteuid();
  if (!S_ISDIR(st->st_mode)) {
    snprintf(why, cap, "not a folder");
    return 1;
  }
  if (st->st_uid != me && (self || st->st_uid != 0)) {
    if (self) {
      snprintf(why, cap, "owned by uid %ld", (long)st->st_uid);
    } else {
      snprintf(why, cap, "inside '%s' of uid %ld", path, (long)st->st_uid);
    }
    return 1;
  }
  if ((st->st_mode & 022) && (self || !(st->st_mode & S_ISVTX))) {
    if (self) {
      snprintf(why, cap, "writable by others (mode %04o)", (unsigned)(st->st_mode & 07777));
    } else {
      snprintf(why, cap, "inside '%s', writable by others (mode %04o)", path,
               (unsigned)(st->st_mode & 07777));
    }
    return 1;
  }
  return 0;
}

int mbd_sym_cache_private(char *dir, size_t cap, mbd_error *err) {
  int status = mbd_sym_cache_dir(dir, cap, err);
  if (status) {
    return status;
  }
  if (make_dirs(dir)) {
    return MBD_FAIL(err, MBD_E_IO, MSG_SYM_CACHE_MKDIR, dir, strerror(errno));
  }
  // the folder itself, then each folder above its real path up to /
  char real[PATH_MAX];
  if (!realpath(dir, real)) {
    return MBD_FAIL(err, MBD_E_IO, MSG_SYM_CACHE_MKDIR, dir, strerror(errno));
  }
  char why[PATH_MAX + 96];
  for (int self = 1;; self = 0) {
    struct stat st;
    if (stat(real, &st) != 0) {
      return MBD_FAIL(err, MBD_E_IO, MSG_SYM_CACHE_MKDIR, dir, strerror(errno));
    }
    if (untrusted(real, &st, self, why, sizeof why)) {
      return MBD_FAIL(err, MBD_E_IO, MSG_SYM_CACHE_UNSAFE, dir, why);
    }
    char *slash = strrchr(real, '/');
    if (!slash || slash == real) {
      if (strcmp(real, "/") == 0) {
        break;
      }
      snprintf(real, sizeof real, "/");  // the root folder last
      continue;
    }
    *slash = '\0';
  }
  return MBD_OK;
}

/* the open file at fd is this user's, regular, and nobody else can write it; 0, or 1 with why */
static int untrusted_file(int fd, char *why, size_t cap) {
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    snprintf(why, cap, "not a regular file");
    return 1;
  }
  if (st.st_uid != geteuid()) {
    snprintf(why, cap, "owned by another user (uid %ld)", (long)st.st_uid);
    return 1;
  }
  if (st.st_mode & 022) {
    snprintf(why, cap, "writable by others (mode %04o)", (unsigned)(st.st_mode & 07777));
    return 1;
  }
  return 0;
}

/* the whole file at fd, malloc'd with a terminator after *len bytes; NULL on failure */
static char *read_fd(int fd, size_t *len) {
  size_t cap = 65536, n = 0;
  char *buf = malloc(cap + 1);
  while (buf) {
    if (n == cap) {
      char *nb = realloc(buf, 2 * cap + 1);
      if (!nb) {
        free(buf);
        return NULL;
      }
      buf = nb;
      cap *= 2;
    }
    ssize_t k = read(fd, buf + n, cap - n);
    if (k < 0 && errno == EINTR) {
      continue;
    }
    if (k < 0) {
      free(buf);
      return NULL;
    }
    if (k == 0) {
      break;
    }
    n += (size_t)k;
  }
  if (buf) {
    buf[n] = '\0';
    *len = n;
  }
  return buf;
}

char *mbd_sym_cache_read(const char *path, size_t *len, mbd_error *err) {
  int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    MBD_FAIL(err, MBD_E_IO, MSG_SYM_CACHE_FILE, path, strerror(errno));
    return NULL;
  }
  char why[96];
  if (untrusted_file(fd, why, sizeof why)) {
    close(fd);
    MBD_FAIL(err, MBD_E_IO, MSG_SYM_CACHE_FILE, path, why);
    return NULL;
  }
  size_t n = 0;
  char *buf = read_fd(fd, &n);
  close(fd);
  if (!buf) {
    MBD_FAIL(err, MBD_E_IO, MSG_SYM_CACHE_FILE, path, strerror(errno ? errno : ENOMEM));
    return NULL;
  }
  if (len) {
    *len = n;
  }
  return buf;
}

int mbd_sym_cache_write(const char *path, const void *data, size_t n, unsigned mode,
                        mbd_error *err) {
  return mbd_out_bytes("sym.compile", path, data, n, mode ? mode : 0600, err);
}

/* the first line of a compiler log, for error messages */
static void first_line(const char *path, char *buf, size_t cap) {
  buf[0] = '\0';
  FILE *f = fopen(path, "r");
  if (!f) {
    return;
  }
  if (fgets(buf, (int)cap, f)) {
    buf[strcspn(buf, "\n")] = '\0';
  }
  fclose(f);
}

struct mbd_sym_lib {
  void *handle; /* dlopen handle, NULL for an object of the loaded table (never closed) */
};

/* the objects this process has checked and loaded, by path and function: a model simulated again
 * (a sweep, a study, a benchmark's repeats) takes its code from here, without reading the object
 * and its SHA-256 again (1.3 M instructions for the double pendulum, nearly as many as its whole
 * integration's 1.56 M) nor mapping it anew — whose first calls inside the next run then found its
 * code out of every cache and its pages not mapped (minor faults). Loaded objects stay until the
 * process ends; LOADED_MAX of them, further ones are opened and closed per use as before. */
#define LOADED_MAX 64
static struct {
  char *so, *name;
  void *sym;
} loaded[LOADED_MAX];
static int nloaded;
static pthread_mutex_t loaded_mu = PTHREAD_MUTEX_INITIALIZER;

static void *loaded_find(const char *so, const char *name) {
  void *sym = NULL;
  pthread_mutex_lock(&loaded_mu);
  for (int i = 0; i < nloaded && !sym; i++) {
    if (strcmp(loaded[i].so, so) == 0 && strcmp(loaded[i].name, name) == 0) {
      sym = loaded[i].sym;
    }
  }
  pthread_mutex_unlock(&loaded_mu);
  return sym;
}

/* 1 when the table took the handle (its caller must not close it) */
static int loaded_add(const char *so, const char *name, void *sym) {
  int took = 0;
  pthread_mutex_lock(&loaded_mu);
  if (nloaded < LOADED_MAX) {
    char *a = strdup(so), *b = strdup(name);
    if (a && b) {
      loaded[nloaded].so = a;
      loaded[nloaded].name = b;
      loaded[nloaded].sym = sym;
      nloaded++;
      took = 1;
    } else {
      free(a);
      free(b);
    }
  }
  pthread_mutex_unlock(&loaded_mu);
  return took;
}

/* split the compiler command (env CC may hold "ccache gcc"); returns argc, -1 when too long */
static int split_cc(char *cc, char **argv, int max) {
  int argc = 0;
  for (char *p = strtok(cc, " \t"); p; p = strtok(NULL, " \t")) {
    if (argc == max) {
      return -1;
    }
    argv[argc++] = p;
  }
  return argc;
}

/* run the compiler: 0 ok; else fills err */
static int run_cc(const char *ccenv, const char *csrc, const char *so, const char *log,
                  mbd_error *err) {
  char cc[512];
  snprintf(cc, sizeof cc, "%s", ccenv);
  char *argv[32];
  int argc = split_cc(cc, argv, 16);
  if (argc <= 0) {
    return MBD_FAIL(err, MBD_E_IO, MSG_SYM_CC_EMPTY);
  }
  for (int i = 0; i < NCFLAGS; i++) {
    argv[argc++] = (char *)cflags[i];
  }
  argv[argc++] = "-o";
  argv[argc++] = (char *)so;
  argv[argc++] = (char *)csrc;
  argv[argc++] = "-lm";
  argv[argc] = NULL;
  posix_spawn_file_actions_t fa;
  if (posix_spawn_file_actions_init(&fa)) {
    return MBD_FAIL(err, MBD_E_IO, MSG_SYM_CC_START);
  }
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  pid_t pid;
  int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc) {
    return MBD_FAIL(err, MBD_E_IO, MSG_SYM_CC_RUN, argv[0], strerror(rc));
  }
  int st;
  while (waitpid(pid, &st, 0) < 0) {
    if (errno != EINTR) {
      return MBD_FAIL(err, MBD_E_IO, MSG_SYM_CC_LOST, strerror(errno));
    }
  }
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
    char line[256];
    first_line(log, line, sizeof line);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 127) {
      return MBD_FAIL(err, MBD_E_IO, MSG_SYM_CC_NOT_FOUND, argv[0]);
    }
    return MBD_FAIL(err, MBD_E_IO, MSG_SYM_CC_FAILED, argv[0], line[0] ? line : "(no message)");
  }
  return MBD_OK;
}

/* SHA-256 of the file at path, in hexadecimal; 0, or -1 with errno */
static int hash_file(const char *path, char out[65]) {
  int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    return -1;
  }
  size_t n = 0;
  char *buf = read_fd(fd, &n);
  close(fd);
  if (!buf) {
    return -1;
  }
  mbd_sha256_hex(out, buf, n);
  free(buf);
  return 0;
}

/* the cached object so opened (no link followed) into *fd when it is this user's, private, and
 * its SHA-256 is the one recorded in sum; 0, or 1 with why (*fd then -1) */
static int open_checked(const char *so, const char *sum, int *fd, char *why, size_t cap) {
  *fd = open(so, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (*fd < 0) {
    snprintf(why, cap, "%s", strerror(errno));
    return 1;
  }
  mbd_error e;
  size_t sn = 0, n = 0;
  char *want = mbd_sym_cache_read(sum, &sn, &e);
  char *buf = untrusted_file(*fd, why, cap) ? NULL : read_fd(*fd, &n);
  int bad = 1;
  if (!want) {
    snprintf(why, cap, "no digest recorded when it was built");
  } else if (buf) {
    char got[65];
    mbd_sha256_hex(got, buf, n);
    bad = sn != 64 || memcmp(got, want, 64) != 0;
    if (bad) {
      snprintf(why, cap, "its SHA-256 is not the one recorded when it was built");
    }
  }
  free(want);
  free(buf);
  if (bad) {
    close(*fd);
    *fd = -1;
    return 1;
  }
  return 0;
}

int mbd_sym_compile_c(const char *src, const char *name, mbd_sym_cfn *fn, mbd_sym_lib **lib,
                      int *ran_compiler, mbd_error *err) {
  *fn = NULL;
  *lib = NULL;
  if (ran_compiler) {
    *ran_compiler = 0;
  }
  if (!src || !is_ident(name)) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_SYM_COMPILE_INPUT);
  }
  const char *cc = getenv("CC");
  if (!cc || !*cc) {
    cc = "cc";
  }
  char dir[3072];
  int status = mbd_sym_cache_private(dir, sizeof dir, err);
  if (status) {
    return status;
  }
  /* the cache key: SHA-256 of the source, the compiler and the flags */
  mbd_sha256 ks;
  mbd_sha256_init(&ks);
  mbd_sha256_update(&ks, src, strlen(src) + 1);
  mbd_sha256_update(&ks, cc, strlen(cc) + 1);
  for (int i = 0; i < NCFLAGS; i++) {
    mbd_sha256_update(&ks, cflags[i], strlen(cflags[i]) + 1);
  }
  char key[65];
  mbd_sha256_final(&ks, key);
  char so[3200], sum[3300], csrc[3200], tmp[3300], log[3300];
  snprintf(so, sizeof so, "%s/%s.so", dir, key);
  snprintf(sum, sizeof sum, "%s/%s.so.sha256", dir, key);
  snprintf(csrc, sizeof csrc, "%s/%s.c", dir, key);
  snprintf(tmp, sizeof tmp, "%s/%s.%ld.tmp.so", dir, key, (long)getpid());
  snprintf(log, sizeof log, "%s/%s.%ld.log", dir, key, (long)getpid());
  // loaded earlier in this process (checked then): the same function
  void *known = loaded_find(so, name);
  if (known) {
    mbd_sym_lib *l = malloc(sizeof *l);
    if (!l) {
      return MBD_FAIL(err, MBD_E_NOMEM, MSG_SYM_NOMEM, "sym.compile");
    }
    l->handle = NULL;
    *lib = l;
    memcpy(fn, &known, sizeof *fn);
    return MBD_OK;
  }
  // a cached object that passes the checks is loaded; anything else is built again
  int fd = -1;
  char why[128];
  if (open_checked(so, sum, &fd, why, sizeof why) != 0) {
    /* compile to a private name, then rename: concurrent compilers never see half a file */
    char csrc_tmp[3300];
    snprintf(csrc_tmp, sizeof csrc_tmp, "%s/%s.%ld.c", dir, key, (long)getpid());
    status = mbd_sym_cache_write(csrc_tmp, src, strlen(src), 0600, err);
    if (status) {
      return status;
    }
    status = run_cc(cc, csrc_tmp, tmp, log, err);
    if (ran_compiler) {
      *ran_compiler = 1;
    }
    remove(log);
    if (status) {
      remove(csrc_tmp);
      remove(tmp);
      return status;
    }
    // the object's digest recorded beside it, then the object under its name (0700)
    char digest[65];
    if (chmod(tmp, 0700) != 0 || hash_file(tmp, digest) != 0) {
      int e = errno;
      remove(csrc_tmp);
      remove(tmp);
      return MBD_FAIL(err, MBD_E_IO, MSG_SYM_STORE, so, strerror(e));
    }
    status = mbd_sym_cache_write(sum, digest, 64, 0600, err);
    if (status) {
      remove(csrc_tmp);
      remove(tmp);
      return status;
    }
    rename(csrc_tmp, csrc); /* kept beside the .so for reading */
    if (rename(tmp, so)) {
      int e = errno;
      remove(tmp);
      return MBD_FAIL(err, MBD_E_IO, MSG_SYM_STORE, so, strerror(e));
    }
    if (open_checked(so, sum, &fd, why, sizeof why) != 0) {
      return MBD_FAIL(err, MBD_E_IO, MSG_SYM_LOAD, so, why);
    }
  }
  // load it by its name, which must still be the file that was checked (same device and inode:
  // only this user can write the folder, so nobody else can swap it in between)
  struct stat checked, now;
  int same = fstat(fd, &checked) == 0 && stat(so, &now) == 0 && checked.st_dev == now.st_dev &&
             checked.st_ino == now.st_ino;
  close(fd);
  if (!same) {
    return MBD_FAIL(err, MBD_E_IO, MSG_SYM_LOAD, so, "it changed while it was checked");
  }
  void *hd = dlopen(so, RTLD_NOW | RTLD_LOCAL);
  if (!hd) {
    const char *m = dlerror();
    return MBD_FAIL(err, MBD_E_IO, MSG_SYM_LOAD, so, m ? m : "?");
  }
  void *sym = dlsym(hd, name);
  if (!sym) {
    dlclose(hd);
    return MBD_FAIL(err, MBD_E_IO, MSG_SYM_NO_FUNCTION, so, name);
  }
  mbd_sym_lib *l = malloc(sizeof *l);
  if (!l) {
    dlclose(hd);
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_SYM_NOMEM, "sym.compile");
  }
  l->handle = loaded_add(so, name, sym) ? NULL : hd;
  *lib = l;
  /* POSIX guarantees a function pointer round-trips through dlsym's void *: copy the bits */
  memcpy(fn, &sym, sizeof *fn);
  return MBD_OK;
}

int mbd_sym_compile(mbd_sym_ctx *ctx, const char *name, int nexpr, const mbd_sym_id *exprs,
                    int nvars, const mbd_sym_id *vars, mbd_sym_cfn *fn, mbd_sym_lib **lib,
                    int *ran_compiler, mbd_error *err) {
  char *src;
  *fn = NULL;
  *lib = NULL;
  int status = mbd_sym_emit_c(ctx, name, nexpr, exprs, nvars, vars, &src, err);
  if (status) {
    return status;
  }
  status = mbd_sym_compile_c(src, name, fn, lib, ran_compiler, err);
  free(src);
  return status;
}

int mbd_sym_lib_resident(const mbd_sym_lib *lib) { return lib && !lib->handle; }

void mbd_sym_lib_close(mbd_sym_lib *lib) {
  if (lib) {
    if (lib->handle) {
      dlclose(lib->handle);
    }
    free(lib);
  }
}
