// jemalloc's control interface (mallctl): its version, and whether this process's malloc is jemalloc's.
#pragma once
#include <jemalloc/jemalloc.h>
#include <stdint.h>
#include <stdlib.h>

/// jemalloc's version string, or NULL when mallctl cannot read it.
static inline const char *_Nullable cjemalloc_version(void) {
    const char *version = NULL;
    size_t size = sizeof(version);
    return mallctl("version", (void *)&version, &size, NULL, 0) == 0 ? version : NULL;
}

/// The bytes jemalloc has allocated on the calling thread (its `thread.allocated` statistic), or 0 when it
/// keeps no statistics.
static inline uint64_t cjemalloc_thread_allocated(void) {
    uint64_t allocated = 0;
    size_t size = sizeof(allocated);
    return mallctl("thread.allocated", &allocated, &size, NULL, 0) == 0 ? allocated : 0;
}

/// 1 when a malloc of this process is served by jemalloc (its thread statistic grows by the block), 0 when
/// another definition of malloc (the C library's, found first) serves it.
static inline int cjemalloc_serves_malloc(void) {
    uint64_t before = cjemalloc_thread_allocated();
    // Stored through a volatile pointer, so the compiler keeps the allocation.
    void *volatile block = malloc(4096);
    uint64_t after = cjemalloc_thread_allocated();
    free(block);
    return block != NULL && after - before >= 4096;
}
