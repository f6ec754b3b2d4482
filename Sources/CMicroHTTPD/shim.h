// Includes and typed wrappers for libmicrohttpd's variadic calls, which Swift cannot import.
#pragma once
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <stdint.h>
#include <stdarg.h>
#include <microhttpd.h>
