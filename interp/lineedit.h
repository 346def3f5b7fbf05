/* mbd — line input for the REPL: libedit (readline-compatible API) with history on a terminal,
 * plain reads when standard input is piped. */
#ifndef MBD_LINEEDIT_H
#define MBD_LINEEDIT_H

/* entries kept in the history file */
#define MBD_LINEEDIT_HISTORY 1000

/* history file name, in $HOME */
#define MBD_LINEEDIT_HISTORY_FILE ".mbd_history"

typedef struct mbd_lineedit mbd_lineedit;

/* open line input on standard input. On a terminal, libedit is set up and the history is loaded
 * from $HOME/.mbd_history (silently skipped when HOME is unset or the file is unreadable).
 * Returns NULL only when out of memory. Close with mbd_lineedit_close. */
mbd_lineedit *mbd_lineedit_open(void);

/* 1 when standard input is a terminal (prompts and history), 0 when piped */
int mbd_lineedit_interactive(const mbd_lineedit *le);

/* statuses of mbd_lineedit_read */
#define MBD_LINEEDIT_OK 0     /* a line was read */
#define MBD_LINEEDIT_EOF 1    /* end of input (Ctrl-D, or the pipe closed) */
#define MBD_LINEEDIT_CANCEL 2 /* Ctrl-C typed at the prompt: the line being edited is dropped */

/* read one line into *line, without its newline. The prompt is shown only on a terminal.
 * On MBD_LINEEDIT_OK *line is a malloc'd string owned by the caller (free it); otherwise *line
 * is NULL. Returns one of the MBD_LINEEDIT_* statuses. */
int mbd_lineedit_read(mbd_lineedit *le, const char *prompt, char **line);

/* add a complete entry (possibly several lines) to the history and save the history file
 * (capped at MBD_LINEEDIT_HISTORY entries; write errors are ignored). No-op when piped. */
void mbd_lineedit_remember(mbd_lineedit *le, const char *entry);

/* Tab completion: complete(ud, word) returns the whole words `word` may become (each and the
 * array malloc'd, the array ended by NULL; NULL or an empty array for none).  The word is the text
 * before the cursor back to a blank, a quote, a bracket or an operator sign other than '.' and ':'
 * (so "mbd.mod" and "m:re" are one word).  NULL removes it.  No-op when piped; one completer for
 * the process (libedit's hook is global). */
typedef char **(*mbd_lineedit_completer)(void *ud, const char *word);
void mbd_lineedit_set_completer(mbd_lineedit *le, mbd_lineedit_completer complete, void *ud);

/* release the line input (NULL is accepted) */
void mbd_lineedit_close(mbd_lineedit *le);

#endif
