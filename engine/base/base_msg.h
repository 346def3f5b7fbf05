/* mbd — message templates of engine/base (tests match these, not copies of the text).
 * Not a public header: only engine/base/ sources include it. */
#ifndef MBD_BASE_MSG_H
#define MBD_BASE_MSG_H

/* a file cannot be opened, created or written: kind, file, reason (strerror) */
#define MSG_FILE_OPEN "%s '%s': cannot open for writing: %s"
/* a write failed: kind, file, reason; the temporary was removed, the file is as it was */
#define MSG_FILE_WRITE "%s '%s': write failed: %s (the file was left as it was)"
/* a write failed on something written directly (FIFO, device): kind, file, reason */
#define MSG_FILE_WRITE_DIRECT "%s '%s': write failed: %s (written directly: not a regular file)"
/* the finished temporary could not be renamed onto the name: kind, file, reason */
#define MSG_FILE_RENAME "%s '%s': cannot replace it with the finished file: %s"
/* a folder of mbd_out_mkdirs cannot be made: kind, the path asked for, the part that failed,
 * reason (strerror) */
#define MSG_MKDIR "%s '%s': cannot create the folder '%s': %s"
/* a part of the path exists and is not a folder: kind, path, the part */
#define MSG_MKDIR_NOT_DIR "%s '%s': '%s' exists and is not a folder"
/* an empty path: kind */
#define MSG_MKDIR_EMPTY "%s: the path is empty"
/* an argument is NULL: kind, what */
#define MSG_FILE_NULL "%s: %s is NULL"

#endif
