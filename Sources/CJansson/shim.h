// Includes and wrappers for jansson's inline reference counting and flag macros.
#pragma once
#include <jansson.h>

static inline void cjansson_decref(json_t *_Nullable j) { json_decref(j); }
static inline size_t cjansson_reject_duplicates(void) { return JSON_REJECT_DUPLICATES; }
