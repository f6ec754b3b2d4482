// Includes for libpq, PostgreSQL's client library (Debian libpq-dev: /usr/include/postgresql).
#pragma once
#include <libpq-fe.h>
