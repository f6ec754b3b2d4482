// Includes and typed wrappers for libcurl's variadic calls and macros, which Swift cannot import.
#pragma once
#include <curl/curl.h>

static inline CURLcode ccurl_easy_setopt_long(CURL *_Nonnull h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_easy_setopt_ptr(CURL *_Nonnull h, CURLoption o, void *_Nullable v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_easy_setopt_string(CURL *_Nonnull h, CURLoption o, const char *_Nullable v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_easy_setopt_off(CURL *_Nonnull h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_easy_setopt_slist(CURL *_Nonnull h, CURLoption o, struct curl_slist *_Nullable v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_easy_setopt_write(CURL *_Nonnull h, CURLoption o, size_t (*_Nullable f)(char *_Nonnull, size_t, size_t, void *_Nullable)) { return curl_easy_setopt(h, o, f); }
static inline CURLcode ccurl_easy_setopt_opensocket(CURL *_Nonnull h, CURLoption o, curl_socket_t (*_Nullable f)(void *_Nullable, curlsocktype, struct curl_sockaddr *_Nonnull)) { return curl_easy_setopt(h, o, f); }
static inline CURLcode ccurl_easy_getinfo_long(CURL *_Nonnull h, CURLINFO i, long *_Nonnull v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode ccurl_easy_getinfo_ptr(CURL *_Nonnull h, CURLINFO i, void *_Nullable *_Nonnull v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode ccurl_easy_getinfo_double(CURL *_Nonnull h, CURLINFO i, double *_Nonnull v) { return curl_easy_getinfo(h, i, v); }
static inline CURLMcode ccurl_multi_setopt_long(CURLM *_Nonnull m, CURLMoption o, long v) { return curl_multi_setopt(m, o, v); }
static inline curl_version_info_data *_Nonnull ccurl_version_info(void) { return curl_version_info(CURLVERSION_TENTH); }
