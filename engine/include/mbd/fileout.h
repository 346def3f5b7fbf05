/* mbd — files written whole or not at all, without replacing links or devices.
 *
 * Every writer of the project (CSV, figures, the animation page, exported C, modes and matrix
 * files, the compiled-code cache, the sweep's CSV) goes through this door:
 *   - a regular file (or a name that does not exist yet) is written to a temporary sibling
 *     "<name>.part-<pid>-XXXXXX" in the same folder, flushed to the disk (fsync) and renamed onto
 *     the name only when every byte was written: a full disk, an error or a crash never leaves a
 *     half-written file, and what was there before stays until the new file is whole;
 *   - a symbolic link is followed: the temporary goes beside the link's final target and the
 *     target is replaced (the link stays a link, the file it names is updated); a link to a
 *     missing file creates that file;
 *   - anything that is not a regular file (a FIFO, a terminal, /dev/stdout, /dev/null, another
 *     device) is written directly and never replaced (its contents cannot be made atomic); a
 *     name through /proc/ or /dev/fd/ (/dev/stdout) is written directly too, appending, so
 *     `> file` redirections keep what the program printed before;
 *   - a folder is refused, and so is an existing regular file the user may not write.
 * The finished file keeps the mode of the file it replaces, or gets 0666 less the umask (or the
 * mode asked for, 0600 for the compiled-code cache).
 *
 * Testing hook: MBD_TEST_WRITE_LIMIT=N in the environment makes every file written through this
 * door fail with ENOSPC ("No space left on device") after its first N bytes, as on a full disk. */
#ifndef MBD_FILEOUT_H
#define MBD_FILEOUT_H

#include <stddef.h>
#include <stdio.h>

#include "mbd/status.h"

typedef struct mbd_out {
  FILE *f;            /* write here with stdio between mbd_out_open and commit/discard */
  const char *kind;   /* first word of messages ("csv", "plot", ...), a static string */
  char *file;         /* the name as given (messages) */
  char *dest;         /* where the bytes go: the name, or a symbolic link's final target */
  char *tmp;          /* the temporary sibling renamed onto dest; NULL when written directly */
  int fd;             /* descriptor under f; -1 when closed */
  int errnum;         /* the first write error (an errno value); 0 while none */
  long long written;  /* bytes written so far */
  long long limit;    /* MBD_TEST_WRITE_LIMIT: writes past this many bytes fail; -1 none */
  unsigned mode;      /* permission bits of the finished file */
  int finished;       /* 1 after mbd_out_finish: whole on the disk, not yet renamed */
} mbd_out;

/* open file for writing (see above).  mode: permission bits of a new file, 0 for 0666 less the
 * umask (an existing file keeps its own unless mode is given).  kind names the writer in
 * messages.  On success o->f is ready; returns MBD_OK or MBD_E_IO ("<kind> '<file>': cannot open
 * for writing: <reason>"), o then holding nothing to release. */
int mbd_out_open(mbd_out *o, const char *kind, const char *file, unsigned mode, mbd_error *err);

/* n bytes through o->f; 0, or -1 after a write error (kept for the commit's message) */
int mbd_out_write(mbd_out *o, const void *p, size_t n);

/* finish: flush, sync, close and rename onto the destination.  Any write error since the open
 * (o->f's error flag) makes it discard the temporary and fail with "<kind> '<file>': write failed:
 * <reason> (the file was left as it was)".  Returns MBD_OK or MBD_E_IO; o is released either way. */
int mbd_out_commit(mbd_out *o, mbd_error *err);

/* the first half of the commit: flush, sync and close, the temporary whole on the disk but not
 * yet renamed (several files then committed together: a set written whole or not at all).  On
 * failure the temporary is removed and o released, as by the commit; after success, call
 * mbd_out_commit (the rename) or mbd_out_discard. */
int mbd_out_finish(mbd_out *o, mbd_error *err);

/* give up: close and remove the temporary (a direct write stays as far as it went); o released */
void mbd_out_discard(mbd_out *o);

/* the whole of data (n bytes) into file through the steps above */
int mbd_out_bytes(const char *kind, const char *file, const void *data, size_t n, unsigned mode,
                  mbd_error *err);

/* create the folder path and the folders above it that are missing (as mkdir -p, without a
 * shell): each made with the permission bits mode less the umask (0755 when mode is 0).  A folder
 * that exists already, or a symbolic link to one, is fine.  Returns MBD_OK, or MBD_E_IO with a
 * message naming the path and the part that failed ("mkdir 'a/b/c': cannot create the folder
 * 'a/b': Permission denied"; "... 'a' exists and is not a folder").  kind is the first word of
 * messages. */
int mbd_out_mkdirs(const char *kind, const char *path, unsigned mode, mbd_error *err);

/* whether file names something that is not a regular file, a folder or a symbolic link to one
 * (a FIFO, a device, /dev/stdout): such targets are written directly.  1 or 0. */
int mbd_out_is_stream(const char *file);

#endif
