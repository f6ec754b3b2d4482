/* The bare libcurl reference of `make bench` and `make bench-apns`: a plain libcurl multi loop, HTTP/2
 * multiplexed over TLS on one connection, sending requests rendered beforehand by the relay's own clients
 * (`relay-bench apns|fcm --requests-out FILE`), so it sends exactly what the relay sends and nothing else
 * is measured: one request per line, the URL, the number of header lines, each header line and the body,
 * separated by tabs. Request i is line i modulo the number of lines. Prints one JSON line: requests, ok
 * (answered 200), seconds, per_second and this process's user + system CPU seconds per 100,000 requests
 * (getrusage), from the first request to the last answer.
 * usage: curl-multi CAFILE REQUESTS_FILE N INFLIGHT */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

struct request {
    char *url;
    char *body;
    struct curl_slist *headers;
};

static size_t discard(char *p, size_t s, size_t n, void *u) { (void)p; (void)u; return s * n; }

static double cpu_seconds(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
}

/* Reads every request of `path`; returns how many, or 0 after printing why. */
static size_t load(const char *path, struct request **out) {
    FILE *file = fopen(path, "r");
    if (!file) { perror(path); return 0; }
    size_t count = 0, capacity = 0;
    struct request *requests = NULL;
    char *line = NULL;
    size_t size = 0;
    ssize_t length;
    while ((length = getline(&line, &size, file)) > 0) {
        if (line[length - 1] == '\n') line[length - 1] = 0;
        if (count == capacity) {
            capacity = capacity ? capacity * 2 : 1024;
            requests = realloc(requests, capacity * sizeof *requests);
        }
        struct request *r = &requests[count];
        char *rest = strdup(line), *field;
        r->url = strsep(&rest, "\t");
        field = strsep(&rest, "\t");
        long headers = field ? atol(field) : -1;
        r->headers = NULL;
        for (long i = 0; i < headers && rest; i++) r->headers = curl_slist_append(r->headers, strsep(&rest, "\t"));
        if (headers < 0 || !rest) { fprintf(stderr, "%s: line %zu is not URL, N, N headers, body\n", path, count + 1); return 0; }
        r->body = rest;
        count++;
    }
    free(line);
    fclose(file);
    if (count == 0) fprintf(stderr, "%s: no requests\n", path);
    *out = requests;
    return count;
}

static CURL *make(const struct request *r, const char *ca) {
    CURL *e = curl_easy_init();
    curl_easy_setopt(e, CURLOPT_URL, r->url);
    curl_easy_setopt(e, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
    curl_easy_setopt(e, CURLOPT_CAINFO, ca);
    curl_easy_setopt(e, CURLOPT_PIPEWAIT, 1L);
    curl_easy_setopt(e, CURLOPT_POSTFIELDS, r->body);
    curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE, (long)strlen(r->body));
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, r->headers);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, discard);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, 30000L);
    return e;
}

/* Sends `total` requests with at most `inflight` at a time through `m`; returns how many were answered 200. */
static long run(CURLM *m, const struct request *requests, size_t count, const char *ca, long total, long inflight) {
    long started = 0, done = 0, ok = 0;
    int running = 0;
    while (done < total) {
        while (started < total && started - done < inflight) {
            curl_multi_add_handle(m, make(&requests[started % count], ca));
            started++;
        }
        curl_multi_perform(m, &running);
        int left, finished = 0;
        CURLMsg *msg;
        while ((msg = curl_multi_info_read(m, &left))) {
            if (msg->msg != CURLMSG_DONE) continue;
            long code = 0;
            curl_easy_getinfo(msg->easy_handle, CURLINFO_RESPONSE_CODE, &code);
            if (msg->data.result == CURLE_OK && code == 200) ok++;
            curl_multi_remove_handle(m, msg->easy_handle);
            curl_easy_cleanup(msg->easy_handle);
            done++;
            finished++;
        }
        /* Refill at once when something finished: waiting in poll first would leave the freed slots empty
         * until the next socket event or the 100 ms timeout (with 1 in flight, every request waits 100 ms). */
        if (done < total && finished == 0) curl_multi_poll(m, NULL, 0, 100, NULL);
    }
    return ok;
}

int main(int argc, char **argv) {
    if (argc != 5) { fprintf(stderr, "usage: %s CAFILE REQUESTS_FILE N INFLIGHT\n", argv[0]); return 2; }
    const char *ca = argv[1];
    long total = atol(argv[3]), inflight = atol(argv[4]);
    struct request *requests;
    size_t count = load(argv[2], &requests);
    if (count == 0 || total <= 0 || inflight <= 0) return 2;
    curl_global_init(CURL_GLOBAL_ALL);
    CURLM *m = curl_multi_init();
    curl_multi_setopt(m, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX);
    curl_multi_setopt(m, CURLMOPT_MAX_HOST_CONNECTIONS, 1L);
    /* Warm-up, as the relay's clients have: connects, and proves an APNs provider token (the service allows
     * one stream on a connection until then). */
    run(m, requests, count, ca, 1, 1);
    struct timespec t0, t1;
    double cpu0 = cpu_seconds();
    clock_gettime(CLOCK_MONOTONIC, &t0);
    long ok = run(m, requests, count, ca, total, inflight);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double cpu = cpu_seconds() - cpu0;
    double seconds = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
    printf("{\"requests\":%ld,\"ok\":%ld,\"seconds\":%.3f,\"per_second\":%.0f,\"cpu_seconds_per_100k\":%.3f}\n",
        total, ok, seconds, total / seconds, cpu * 100000.0 / total);
    curl_multi_cleanup(m);
    return ok == total ? 0 : 1;
}
