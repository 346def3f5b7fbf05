/* the other half of structure.lua's fixture (up/ping.c) */
#include "pong.h"

int ping(int n);

int pong(int n) { return n > 0 ? ping(n - 1) : 1; }
