package io.outpost.loadtest;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * Reads the service's Prometheus endpoint: answers it computed from the database, i.e. answers computed
 * ({@code outpost_cache_loads_total}) less those computed from held IOV rows ({@code outpost_rows_answers_total}),
 * plus the full-folder reads that built held rows ({@code outpost_rows_builds_total}).
 */
public final class ServiceMetrics {
    private final String base;
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    public ServiceMetrics(String outpostUrl) {
        this.base = outpostUrl.endsWith("/") ? outpostUrl.substring(0, outpostUrl.length() - 1) : outpostUrl;
    }

    /** The current count of database loads, or -1 if the endpoint cannot be read. */
    public long databaseLoads() {
        try {
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(base + "/actuator/prometheus"))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 ? databaseLoads(r.body()) : -1;
        } catch (Exception e) {
            return -1;
        }
    }

    /** The sum of a metric's samples (all label sets), or -1 if the endpoint cannot be read. */
    public long counter(String metric) {
        try {
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(base + "/actuator/prometheus"))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 ? sum(r.body(), metric) : -1;
        } catch (Exception e) {
            return -1;
        }
    }

    public static long databaseLoads(String exposition) {
        long loads = sum(exposition, "outpost_cache_loads_total");
        if (loads < 0) {
            return -1;
        }
        // native answers from held rows only: Frontier's were never answer-cache loads
        return loads - Math.max(0, sum(exposition, "outpost_rows_answers_total", "api=\"native\""))
                + Math.max(0, sum(exposition, "outpost_rows_builds_total"));
    }

    /** Sum of every sample of {@code metric} (all label sets) in a Prometheus text exposition. */
    static long sum(String exposition, String metric) {
        return sum(exposition, metric, "");
    }

    /** Sum of the samples of {@code metric} whose labels include {@code label} (e.g. {@code api="native"}). */
    static long sum(String exposition, String metric, String label) {
        double total = 0;
        boolean found = false;
        for (String line : exposition.split("\n")) {
            boolean labelled = line.startsWith(metric + "{");
            if ((labelled || line.startsWith(metric + " "))
                    && (label.isEmpty() || labelled && line.substring(0, line.indexOf('}') + 1).contains(label))) {
                String v = line.substring(line.lastIndexOf(' ') + 1).trim();
                total += Double.parseDouble(v);
                found = true;
            }
        }
        return found ? Math.round(total) : -1;
    }

    public void close() {
        client.close();
    }
}
