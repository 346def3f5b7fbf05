/* a fixture for structure.lua: ping (room up) and pong (room down) call each other, and the two
 * headers include each other: a circle between rooms, one between files, one between headers */
#include "ping.h"

int pong(int n);

int ping(int n) { return n > 0 ? pong(n - 1) : 0; }
