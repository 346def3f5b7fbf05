#ifndef FIXTURE_PONG_H
#define FIXTURE_PONG_H
#include "ping.h"
int pong(int n);
#endif
