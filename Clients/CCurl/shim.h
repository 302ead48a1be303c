#ifndef CARDEALER_CCURL_SHIM_H
#define CARDEALER_CCURL_SHIM_H

#include <curl/curl.h>

// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: one typed
// wrapper per kind of argument.

static inline CURLcode cardealer_curl_set_long(CURL *curl, CURLoption option, long value) {
    return curl_easy_setopt(curl, option, value);
}

static inline CURLcode cardealer_curl_set_offset(CURL *curl, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(curl, option, value);
}

static inline CURLcode cardealer_curl_set_pointer(CURL *curl, CURLoption option, void *value) {
    return curl_easy_setopt(curl, option, value);
}

static inline CURLcode cardealer_curl_set_string(CURL *curl, CURLoption option, const char *value) {
    return curl_easy_setopt(curl, option, value);
}

static inline CURLcode cardealer_curl_set_blob(CURL *curl, CURLoption option, void *data, size_t length) {
    struct curl_blob blob = { data, length, CURL_BLOB_COPY };
    return curl_easy_setopt(curl, option, &blob);
}

typedef size_t (*cardealer_curl_data_callback)(char *data, size_t size, size_t count, void *context);
typedef int (*cardealer_curl_progress_callback)(void *context, curl_off_t download_total, curl_off_t downloaded,
                                                curl_off_t upload_total, curl_off_t uploaded);

static inline CURLcode cardealer_curl_set_data_callback(CURL *curl, CURLoption option, cardealer_curl_data_callback callback) {
    return curl_easy_setopt(curl, option, callback);
}

static inline CURLcode cardealer_curl_set_progress_callback(CURL *curl, cardealer_curl_progress_callback callback) {
    return curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, callback);
}

static inline CURLcode cardealer_curl_get_long(CURL *curl, CURLINFO info, long *value) {
    return curl_easy_getinfo(curl, info, value);
}

#endif
