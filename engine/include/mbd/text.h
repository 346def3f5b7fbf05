/* mbd — names as text: every name a model holds (model, bodies, joints, forces, surfaces,
 * contacts, systems) is UTF-8, so the CSV headers, the plots' labels and the animation page
 * that show it can; a name that is not is refused where it is given. */
#ifndef MBD_TEXT_H
#define MBD_TEXT_H

#include <stddef.h>

/* -1 when s is well-formed UTF-8 (no overlong forms, no surrogates, nothing above U+10FFFF),
 * else the offset of the first byte of the first malformed sequence */
long mbd_text_utf8_error(const char *s);

/* s for a message: printable ASCII and well-formed UTF-8 as they are, every other byte as \xNN;
 * cut to fit out (cap bytes with the terminator; cap > 0) */
void mbd_text_escape(char *out, size_t cap, const char *s);

/* v as the shortest text ("%.*g", 1 to 17 digits) that reads back as v, into buf (cap bytes);
 * "NaN" for a not-a-number (printf's "-nan" is platform noise); returns buf */
const char *mbd_text_num(char *buf, size_t cap, double v);

/* a, then sep and b when b is not NULL, into out (cap bytes with the terminator; cap > 0), cut to
 * fit as snprintf(out, cap, "%s%s%s", ...) cuts; returns out.  A run copies every channel's name
 * with it (snprintf's parsing of the format cost more than the copy) */
char *mbd_text_join(char *out, size_t cap, const char *a, const char *sep, const char *b);

#endif
