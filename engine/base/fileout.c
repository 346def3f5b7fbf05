/* files written whole or not at all, through links, never over devices (mbd/fileout.h) */
#define _GNU_SOURCE /* fopencookie: stdio over our own write, which keeps the first errno */
#include "mbd/fileout.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "base_msg.h"

/* the number of symbolic links followed before giving up (Linux's own limit) */
#define MAX_LINKS 40

/* MBD_TEST_WRITE_LIMIT: bytes a file may take before writes fail as on a full disk; -1 none */
static long long write_limit(void) {
  const char *s = getenv("MBD_TEST_WRITE_LIMIT");
  if (!s || !*s) {
    return -1;
  }
  char *end = NULL;
  long long v = strtoll(s, &end, 10);
  return (end && *end == '\0' && v >= 0) ? v : -1;
}

/* stdio's write: every byte to the descriptor, the first error kept in o->errnum */
static ssize_t cookie_write(void *cookie, const char *buf, size_t n) {
  mbd_out *o = cookie;
  size_t done = 0;
  while (done < n) {
    size_t want = n - done;
    // the injected full disk: the bytes that fit, then ENOSPC
    if (o->limit >= 0) {
      if (o->written >= o->limit) {
        o->errnum = o->errnum ? o->errnum : ENOSPC;
        break;
      }
      if ((long long)want > o->limit - o->written) {
        want = (size_t)(o->limit - o->written);
      }
    }
    ssize_t k = write(o->fd, buf + done, want);
    if (k < 0) {
      if (errno == EINTR) {
        continue;
      }
      o->errnum = o->errnum ? o->errnum : errno;
      break;
    }
    done += (size_t)k;
    o->written += k;
  }
  if (done < n) {
    errno = o->errnum;
  }
  // a short count marks the stream in error (glibc); nothing written at all is -1
  return done > 0 ? (ssize_t)done : -1;
}

/* the descriptor is closed by the commit, which checks it */
static int cookie_close(void *cookie) {
  (void)cookie;
  return 0;
}

static char *dup_str(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) {
    memcpy(d, s, n);
  }
  return d;
}

/* path's folder part and base name ("a/b/c" -> "a/b", "c"; "c" -> ".", "c"; "/c" -> "/", "c") */
static void split_path(const char *path, char **dir, const char **base) {
  const char *slash = strrchr(path, '/');
  if (!slash) {
    *dir = dup_str(".");
    *base = path;
    return;
  }
  size_t n = slash == path ? 1 : (size_t)(slash - path);
  *dir = malloc(n + 1);
  if (*dir) {
    memcpy(*dir, path, n);
    (*dir)[n] = '\0';
  }
  *base = slash + 1;
}

/* names the kernel resolves itself (/dev/stdout is a link to /proc/self/fd/1, which may name a
 * pipe "pipe:[123]"): written directly, never replaced */
static int is_magic(const char *path) {
  return strncmp(path, "/proc/", 6) == 0 || strncmp(path, "/dev/fd/", 8) == 0;
}

/* the target of the link at path, as a path (relative targets are taken from the link's folder);
 * NULL with errno set */
static char *follow(const char *path) {
  size_t cap = 256;
  char *t = NULL;
  for (;;) {
    char *nt = realloc(t, cap);
    if (!nt) {
      free(t);
      errno = ENOMEM;
      return NULL;
    }
    t = nt;
    ssize_t k = readlink(path, t, cap);
    if (k < 0) {
      int e = errno;
      free(t);
      errno = e;
      return NULL;
    }
    if ((size_t)k < cap) {
      t[k] = '\0';
      break;
    }
    cap *= 2;
  }
  if (t[0] == '/' || strchr(path, '/') == NULL) {
    return t;
  }
  char *dir = NULL;
  const char *base = NULL;
  split_path(path, &dir, &base);
  char *full = dir ? malloc(strlen(dir) + strlen(t) + 2) : NULL;
  if (full) {
    snprintf(full, strlen(dir) + strlen(t) + 2, "%s/%s", dir, t);
  }
  free(dir);
  free(t);
  if (!full) {
    errno = ENOMEM;
  }
  return full;
}

/* where writing to file lands: *dest (malloc'd) is file or its links' final target; *st its
 * status when *exists; *direct when it is to be written in place (magic names, non-regular
 * files).  0, or an errno value */
static int resolve(const char *file, char **dest, struct stat *st, int *exists, int *direct) {
  *exists = 0;
  *direct = is_magic(file);
  char *path = dup_str(file);
  if (!path) {
    return ENOMEM;
  }
  for (int depth = 0;; depth++) {
    if (lstat(path, st) != 0) {
      int e = errno;
      if (e == ENOENT) {
        *dest = path;  // a new file (its folder is checked when the temporary is made)
        return 0;
      }
      free(path);
      return e;
    }
    if (!S_ISLNK(st->st_mode)) {
      break;
    }
    if (depth >= MAX_LINKS) {
      free(path);
      return ELOOP;
    }
    char *next = follow(path);
    int e = errno;
    free(path);
    if (!next) {
      return e;
    }
    path = next;
    *direct = *direct || is_magic(path);
  }
  *exists = 1;
  if (S_ISDIR(st->st_mode)) {
    free(path);
    return EISDIR;
  }
  *direct = *direct || !S_ISREG(st->st_mode);
  *dest = path;
  return 0;
}

int mbd_out_is_stream(const char *file) {
  char *dest = NULL;
  struct stat st;
  int exists = 0, direct = 0;
  if (!file || resolve(file, &dest, &st, &exists, &direct) != 0) {
    return 0;
  }
  free(dest);
  return direct;
}

/* one part of mbd_out_mkdirs: the folder `part` (a prefix of path) exists or is made */
static int make_dir(const char *kind, const char *path, const char *part, mode_t mode,
                    mbd_error *err) {
  struct stat st;
  if (mkdir(part, mode) == 0) {
    return MBD_OK;
  }
  int e = errno;
  if (stat(part, &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      return MBD_OK;  // there already (EEXIST), or not ours to make but usable (EACCES on "/")
    }
    return MBD_FAIL(err, MBD_E_IO, MSG_MKDIR_NOT_DIR, kind, path, part);
  }
  return MBD_FAIL(err, MBD_E_IO, MSG_MKDIR, kind, path, part, strerror(e));
}

int mbd_out_mkdirs(const char *kind, const char *path, unsigned mode, mbd_error *err) {
  if (!kind) {
    kind = "mkdir";
  }
  if (!path) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_FILE_NULL, kind, "path");
  }
  if (!*path) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_MKDIR_EMPTY, kind);
  }
  struct stat st;
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
    return MBD_OK;
  }
  size_t n = strlen(path);
  char *part = malloc(n + 1);
  if (!part) {
    return MBD_FAIL(err, MBD_E_NOMEM, MSG_MKDIR, kind, path, path, strerror(ENOMEM));
  }
  memcpy(part, path, n + 1);
  mode_t m = mode ? (mode_t)mode : 0755;
  int rc = MBD_OK;
  // each folder from the top: cut the path after each part (a run of '/' is one separator)
  for (size_t i = 1; i <= n && rc == MBD_OK; i++) {
    if (i < n && (path[i] != '/' || path[i - 1] == '/')) {
      continue;
    }
    part[i] = '\0';
    rc = make_dir(kind, path, part, m, err);
    part[i] = path[i];
  }
  free(part);
  return rc;
}

/* 0666 less the process's umask */
static unsigned default_mode(void) {
  mode_t u = umask(0);
  umask(u);
  return 0666u & ~(unsigned)u;
}

static void release(mbd_out *o) {
  free(o->file);
  free(o->dest);
  free(o->tmp);
  o->file = o->dest = o->tmp = NULL;
  o->f = NULL;
  o->fd = -1;
  o->finished = 0;
}

int mbd_out_open(mbd_out *o, const char *kind, const char *file, unsigned mode, mbd_error *err) {
  memset(o, 0, sizeof *o);
  o->fd = -1;
  o->kind = kind ? kind : "file";
  if (!file) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_FILE_NULL, o->kind, "the file name");
  }
  o->limit = write_limit();
  o->file = dup_str(file);
  struct stat st;
  int exists = 0, direct = 0;
  int e = o->file ? resolve(file, &o->dest, &st, &exists, &direct) : ENOMEM;
  if (e != 0) {
    release(o);
    return MBD_FAIL(err, MBD_E_IO, MSG_FILE_OPEN, o->kind, file, strerror(e));
  }

  if (direct) {
    // a FIFO, a device, /dev/stdout: written where it is, appending, never replaced
    o->fd = open(is_magic(file) ? file : o->dest, O_WRONLY | O_APPEND | O_NOCTTY | O_CLOEXEC);
  } else {
    // an existing file the user may not write stays as it is (rename could replace it)
    if (exists && access(o->dest, W_OK) != 0) {
      e = errno;
      release(o);
      return MBD_FAIL(err, MBD_E_IO, MSG_FILE_OPEN, o->kind, file, strerror(e));
    }
    o->mode = mode ? mode : exists ? (unsigned)(st.st_mode & 0777) : default_mode();
    // the temporary sibling beside the destination (the same file system: rename is atomic)
    char *dir = NULL;
    const char *base = NULL;
    split_path(o->dest, &dir, &base);
    size_t cap = dir ? strlen(dir) + strlen(base) + 48 : 0;
    o->tmp = dir ? malloc(cap) : NULL;
    if (!o->tmp) {
      free(dir);
      release(o);
      return MBD_FAIL(err, MBD_E_IO, MSG_FILE_OPEN, o->kind, file, strerror(ENOMEM));
    }
    snprintf(o->tmp, cap, "%s/%s.part-%ld-XXXXXX", dir, base, (long)getpid());
    free(dir);
    o->fd = mkostemp(o->tmp, O_CLOEXEC);  // O_EXCL, mode 0600 until the commit
    if (o->fd < 0) {
      free(o->tmp);
      o->tmp = NULL;
    }
  }
  if (o->fd < 0) {
    e = errno;
    release(o);
    return MBD_FAIL(err, MBD_E_IO, MSG_FILE_OPEN, o->kind, file, strerror(e));
  }
  cookie_io_functions_t io = {.read = NULL, .write = cookie_write, .seek = NULL,
                              .close = cookie_close};
  o->f = fopencookie(o, "w", io);
  if (!o->f) {
    e = errno;
    close(o->fd);
    if (o->tmp) {
      unlink(o->tmp);
    }
    release(o);
    return MBD_FAIL(err, MBD_E_IO, MSG_FILE_OPEN, o->kind, file, strerror(e));
  }
  return MBD_OK;
}

int mbd_out_write(mbd_out *o, const void *p, size_t n) {
  if (!o->f) {
    return -1;
  }
  return (n == 0 || fwrite(p, 1, n, o->f) == n) ? 0 : -1;
}

void mbd_out_discard(mbd_out *o) {
  if (o->f) {
    fclose(o->f);
  }
  if (o->fd >= 0 && !o->finished) {
    close(o->fd);
  }
  if (o->tmp) {
    unlink(o->tmp);
  }
  release(o);
}

/* the failure of a finish or a commit: the temporary removed, o released, the message recorded */
static int fail_out(mbd_out *o, const char *tmpl, int e, mbd_error *err) {
  if (o->tmp) {
    unlink(o->tmp);
  }
  const char *kind = o->kind ? o->kind : "file";
  char file[PATH_MAX];
  snprintf(file, sizeof file, "%s", o->file ? o->file : "");
  release(o);
  return MBD_FAIL(err, MBD_E_IO, tmpl, kind, file, strerror(e));
}

int mbd_out_finish(mbd_out *o, mbd_error *err) {
  if (o->finished) {
    return MBD_OK;
  }
  if (!o->f) {
    release(o);
    return MBD_FAIL(err, MBD_E_INPUT, MSG_FILE_NULL, o->kind ? o->kind : "file", "the stream");
  }
  // every buffered byte out, then to the disk: a full disk or a failing device shows here
  int bad = fflush(o->f) != 0 || ferror(o->f) || o->errnum != 0;
  if (!bad && o->tmp && fsync(o->fd) != 0 && errno != EINVAL && errno != EROFS) {
    o->errnum = errno;
    bad = 1;
  }
  if (!bad && o->tmp && fchmod(o->fd, (mode_t)o->mode) != 0) {
    o->errnum = errno;
    bad = 1;
  }
  fclose(o->f);
  o->f = NULL;
  if (close(o->fd) != 0 && !bad) {
    o->errnum = errno;
    bad = 1;
  }
  o->fd = -1;
  if (bad) {
    return fail_out(o, o->tmp ? MSG_FILE_WRITE : MSG_FILE_WRITE_DIRECT,
                    o->errnum ? o->errnum : EIO, err);
  }
  o->finished = 1;
  return MBD_OK;
}

int mbd_out_commit(mbd_out *o, mbd_error *err) {
  int rc = mbd_out_finish(o, err);
  if (rc != MBD_OK) {
    return rc;
  }
  if (o->tmp && rename(o->tmp, o->dest) != 0) {
    return fail_out(o, MSG_FILE_RENAME, errno, err);
  }
  release(o);
  return MBD_OK;
}

int mbd_out_bytes(const char *kind, const char *file, const void *data, size_t n, unsigned mode,
                  mbd_error *err) {
  mbd_out o;
  int rc = mbd_out_open(&o, kind, file, mode, err);
  if (rc != MBD_OK) {
    return rc;
  }
  mbd_out_write(&o, data, n);
  return mbd_out_commit(&o, err);
}
