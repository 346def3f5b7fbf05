#ifndef FIXTURE_PING_H
#define FIXTURE_PING_H
#include "pong.h"
int ping(int n);
#endif
