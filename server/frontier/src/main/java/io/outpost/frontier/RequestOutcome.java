package io.outpost.frontier;

/** How a request ended, as counted by {@link FrontierMetrics#request}. */
enum RequestOutcome {
    OK("ok"),
    NOT_MODIFIED("not_modified"),
    BUSY("busy"),
    CLIENT_BUSY("client_busy"),
    DB_UNAVAILABLE("db_unavailable"),
    PAYLOAD_ERROR("payload_error"),
    GLOBAL_ERROR("global_error"),
    CLIENT_ABORT("client_abort");

    final String metricName;

    RequestOutcome(String metricName) {
        this.metricName = metricName;
    }
}
