/* line input for the REPL: libedit on a terminal, getline when piped */
#include "lineedit.h"

#include <editline/readline.h>
#include <errno.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct mbd_lineedit {
  int interactive; /* standard input is a terminal */
  char *history;   /* history file path (malloc'd), NULL when there is none */
};

/* the completer of mbd_lineedit_set_completer (libedit's completion hook takes no user data) and
 * the candidates of the completion in progress, handed to libedit one by one */
static mbd_lineedit_completer completer = NULL;
static void *completer_ud = NULL;
static char **candidates = NULL;
static size_t next_candidate = 0;

/* the characters that end a word for completion: '.' and ':' are inside it */
static char word_breaks[] = " \t\n\"'`@$><=;|&{}()[],+-*/%^#~";

/* set by SIGINT while libedit waits for a key (a signal handler can only reach a static) */
static volatile sig_atomic_t prompt_interrupted = 0;

static void on_prompt_sigint(int sig) {
  (void)sig;
  prompt_interrupted = 1;
}

/* libedit's key reader: a Ctrl-C at the prompt makes read() fail with EINTR (the handler is
 * installed without SA_RESTART); report it as end of input and let the caller see the flag */
static int read_key(FILE *in) {
  unsigned char c;
  for (;;) {
    ssize_t n = read(fileno(in), &c, 1);
    if (n == 1) {
      return c;
    }
    if (n == 0 || errno != EINTR || prompt_interrupted) {
      return EOF;
    }
  }
}

/* libedit's generator: the next candidate (libedit owns and frees it), NULL after the last */
static char *candidate(const char *text, int state) {
  (void)text;
  (void)state;
  if (!candidates || !candidates[next_candidate]) {
    return NULL;
  }
  return candidates[next_candidate++];
}

/* libedit's completion hook: the completer's words for the word before the cursor, and never
 * file names (the default when a hook finds nothing) */
static char **attempt_completion(const char *text, int start, int end) {
  (void)start;
  (void)end;
  rl_attempted_completion_over = 1;
  if (!completer) {
    return NULL;
  }
  candidates = completer(completer_ud, text);
  next_candidate = 0;
  char **matches = NULL;
  if (candidates && candidates[0]) {
    matches = rl_completion_matches(text, candidate);
  }
  // what libedit did not take
  if (candidates) {
    for (size_t i = next_candidate; candidates[i]; i++) {
      free(candidates[i]);
    }
    free(candidates);
  }
  candidates = NULL;
  return matches;
}

void mbd_lineedit_set_completer(mbd_lineedit *le, mbd_lineedit_completer complete, void *ud) {
  if (!le->interactive) {
    return;
  }
  completer = complete;
  completer_ud = ud;
  rl_attempted_completion_function = complete ? attempt_completion : NULL;
}

mbd_lineedit *mbd_lineedit_open(void) {
  mbd_lineedit *le = calloc(1, sizeof *le);
  if (!le) {
    return NULL;
  }
  le->interactive = isatty(STDIN_FILENO);
  if (!le->interactive) {
    return le;
  }

  // libedit in readline mode (UTF-8 input needs the locale's character type), our key reader,
  // history from $HOME
  setlocale(LC_CTYPE, "");
  rl_readline_name = "mbd";
  rl_getc_function = read_key;
  rl_completer_word_break_characters = word_breaks;
  rl_basic_word_break_characters = word_breaks;
  rl_completion_append_character = '\0';
  using_history();
  stifle_history(MBD_LINEEDIT_HISTORY);
  const char *home = getenv("HOME");
  if (home && *home) {
    size_t n = strlen(home) + sizeof "/" MBD_LINEEDIT_HISTORY_FILE;
    le->history = malloc(n);
    if (le->history) {
      snprintf(le->history, n, "%s/%s", home, MBD_LINEEDIT_HISTORY_FILE);
      read_history(le->history);  // a missing or unreadable file is not an error
    }
  }
  return le;
}

int mbd_lineedit_interactive(const mbd_lineedit *le) { return le->interactive; }

/* a piped line of any length, without its newline */
static char *read_piped(void) {
  char *line = NULL;
  size_t cap = 0;
  ssize_t n = getline(&line, &cap, stdin);
  if (n < 0) {
    free(line);
    return NULL;
  }
  if (n > 0 && line[n - 1] == '\n') {
    line[--n] = '\0';
  }
  if (n > 0 && line[n - 1] == '\r') {
    line[--n] = '\0';
  }
  return line;
}

int mbd_lineedit_read(mbd_lineedit *le, const char *prompt, char **line) {
  if (!le->interactive) {
    *line = read_piped();
    return *line ? MBD_LINEEDIT_OK : MBD_LINEEDIT_EOF;
  }

  // Ctrl-C while editing drops the line: catch SIGINT without SA_RESTART for the prompt only
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_prompt_sigint;
  sigemptyset(&sa.sa_mask);
  prompt_interrupted = 0;
  sigaction(SIGINT, &sa, &old);
  *line = readline(prompt);
  sigaction(SIGINT, &old, NULL);

  if (prompt_interrupted) {
    prompt_interrupted = 0;
    free(*line);
    *line = NULL;
    fputc('\n', stdout);
    fflush(stdout);
    return MBD_LINEEDIT_CANCEL;
  }
  return *line ? MBD_LINEEDIT_OK : MBD_LINEEDIT_EOF;
}

void mbd_lineedit_remember(mbd_lineedit *le, const char *entry) {
  if (!le->interactive || !entry || !*entry) {
    return;
  }
  add_history(entry);
  if (le->history) {
    // save after each entry so a killed session keeps its history; errors are ignored
    if (write_history(le->history) == 0) {
      history_truncate_file(le->history, MBD_LINEEDIT_HISTORY);
    }
  }
}

void mbd_lineedit_close(mbd_lineedit *le) {
  if (!le) {
    return;
  }
  if (le->interactive) {
    clear_history();
    mbd_lineedit_set_completer(le, NULL, NULL);
  }
  free(le->history);
  free(le);
}
