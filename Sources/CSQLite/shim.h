// Includes and wrappers for SQLite macros, which Swift cannot import.
#pragma once
#include <sqlite3.h>

static inline int csqlite_bind_text_transient(sqlite3_stmt *_Nonnull s, int i, const char *_Nonnull t, int n) { return sqlite3_bind_text(s, i, t, n, SQLITE_TRANSIENT); }
static inline int csqlite_bind_blob_transient(sqlite3_stmt *_Nonnull s, int i, const void *_Nullable b, int n) { return sqlite3_bind_blob(s, i, b, n, SQLITE_TRANSIENT); }
