/* The reference client for `make bench-apns`: a bare libcurl multi loop, HTTP/2 multiplexed over TLS, with
 * the same headers and body as the relay's client, as many in flight as asked. Prints requests/s.
 * usage: curl-multi URL CAFILE AUTH_HEADER N INFLIGHT */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static size_t discard(char *p, size_t s, size_t n, void *u) { (void)p; (void)u; return s * n; }

static const char *body = "{\"aps\":{\"alert\":{\"body\":\"Alice: hello\",\"title\":\"Team\"},\"sound\":\"default\",\"thread-id\":\"room-1\"},\"dittoChatRoomId\":\"room-1\"}";

static CURL *make(const char *url, const char *ca, struct curl_slist *headers) {
    CURL *e = curl_easy_init();
    curl_easy_setopt(e, CURLOPT_URL, url);
    curl_easy_setopt(e, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
    curl_easy_setopt(e, CURLOPT_CAINFO, ca);
    curl_easy_setopt(e, CURLOPT_PIPEWAIT, 1L);
    curl_easy_setopt(e, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, discard);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, 30000L);
    return e;
}

int main(int argc, char **argv) {
    if (argc != 6) { fprintf(stderr, "usage: %s URL CAFILE AUTH N INFLIGHT\n", argv[0]); return 2; }
    const char *url = argv[1], *ca = argv[2];
    long total = atol(argv[4]), inflight = atol(argv[5]);
    char auth[2048];
    snprintf(auth, sizeof auth, "authorization: %s", argv[3]);
    struct curl_slist *h = NULL;
    h = curl_slist_append(h, auth);
    h = curl_slist_append(h, "apns-topic: com.example.chat");
    h = curl_slist_append(h, "apns-push-type: alert");
    h = curl_slist_append(h, "apns-priority: 10");
    h = curl_slist_append(h, "content-type: application/json");
    curl_global_init(CURL_GLOBAL_ALL);
    CURLM *m = curl_multi_init();
    curl_multi_setopt(m, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX);
    curl_multi_setopt(m, CURLMOPT_MAX_HOST_CONNECTIONS, 1L);
    long started = 0, done = 0, ok = 0, running = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (done < total) {
        while (started < total && started - done < inflight) { curl_multi_add_handle(m, make(url, ca, h)); started++; }
        curl_multi_perform(m, (int *)&running);
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
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double seconds = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
    printf("{\"requests\":%ld,\"ok\":%ld,\"seconds\":%.3f,\"per_second\":%.0f}\n", total, ok, seconds, total / seconds);
    curl_multi_cleanup(m);
    curl_slist_free_all(h);
    return ok == total ? 0 : 1;
}
