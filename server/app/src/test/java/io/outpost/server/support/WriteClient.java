package io.outpost.server.support;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** Sends write API requests to a running service. */
public final class WriteClient {
    private final String base;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    public WriteClient(String base) {
        this.base = base;
    }

    /** {@code headers} are name, value pairs; a null token sends no Authorization header. */
    public HttpResponse<String> send(String method, String path, String token, String contentType, byte[] body,
                                     String... headers) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(60))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofByteArray(body));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        if (contentType != null) {
            b.header("Content-Type", contentType);
        }
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    public HttpResponse<String> json(String method, String path, String token, String json, String... headers)
            throws IOException, InterruptedException {
        return send(method, path, token, "application/json", json.getBytes(StandardCharsets.UTF_8), headers);
    }

    public HttpResponse<String> get(String path, String token) throws IOException, InterruptedException {
        return send("GET", path, token, null, null);
    }
}
