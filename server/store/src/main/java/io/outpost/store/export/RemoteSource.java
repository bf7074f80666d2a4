package io.outpost.store.export;

import io.outpost.store.StoreException;
import io.outpost.store.model.KeyType;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A running Outpost service as the source of an offline snapshot, over HTTP only: the folder list from the native
 * API's {@code /v1/json/nodes}, each folder's copy from {@code /export/v1/…} as a SQLite file (docs/api.md).
 */
final class RemoteSource {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final String base;
    private final HttpClient http;

    RemoteSource(String baseUrl) {
        this.base = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
        this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10))
                .followRedirects(HttpClient.Redirect.NORMAL).build();
    }

    /** A folder of the source: its path and key type. */
    record Folder(String path, KeyType keyType) {
    }

    /** The source's folders matching the glob, as the JDBC export lists them. */
    List<Folder> folders(String glob) {
        PathMatcher m = FileSystems.getDefault().getPathMatcher("glob:" + glob);
        HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create(base + "/v1/json/nodes")).GET(),
                HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        if (r.statusCode() != 200) {
            throw failed("/v1/json/nodes", r.statusCode(), r.body());
        }
        List<Folder> out = new ArrayList<>();
        try {
            for (JsonNode row : JSON.readTree(r.body()).get("rows")) {
                String path = row.get(0).asString();
                if (row.get(1).asBoolean() && m.matches(Path.of(path))) {
                    out.add(new Folder(path, KeyType.parse(row.get(3).asString())));
                }
            }
        } catch (RuntimeException e) {
            throw new StoreException(StoreException.Kind.DATABASE, base + "/v1/json/nodes: unexpected answer (" + e + ")");
        }
        return out;
    }

    /** A downloaded copy of one folder and the table prefix its tables use. */
    record Copy(Path file, String prefix) {
    }

    /**
     * Downloads one folder's copy into {@code file}; null when {@code ifNoneMatch} still names the source's folder
     * (304: nothing changed).
     */
    Copy fetch(FolderExport.Part part, String globalTag, long from, long to, String folder, String ifNoneMatch,
               Path file) {
        String path = "/export/v1/" + part.urlName() + "/" + globalTag + "/" + from + "/" + to + folder;
        HttpRequest.Builder req = HttpRequest.newBuilder(URI.create(base + path)).GET();
        if (ifNoneMatch != null) {
            req.header("If-None-Match", ifNoneMatch);
        }
        HttpResponse<Path> r = send(req, HttpResponse.BodyHandlers.ofFile(file));
        if (r.statusCode() == 304) {
            return null;
        }
        if (r.statusCode() != 200) {
            String body;
            try {
                body = Files.readString(file);
            } catch (IOException e) {
                body = "";
            }
            throw failed(path, r.statusCode(), body);
        }
        return new Copy(file, r.headers().firstValue("X-Outpost-Table-Prefix").orElse("OUTPOST_"));
    }

    private <T> HttpResponse<T> send(HttpRequest.Builder req, HttpResponse.BodyHandler<T> body) {
        try {
            return http.send(req.timeout(Duration.ofMinutes(30)).build(), body);
        } catch (IOException e) {
            throw new StoreException(StoreException.Kind.DATABASE, "cannot reach " + base + ": " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreException(StoreException.Kind.DATABASE, "interrupted while reading " + base);
        }
    }

    private StoreException failed(String path, int status, String body) {
        String detail = body == null ? "" : body.strip();
        detail = detail.length() > 300 ? detail.substring(0, 300) + "..." : detail;
        StoreException.Kind kind = status == 404 ? StoreException.Kind.FOLDER_NOT_FOUND
                : status == 400 ? StoreException.Kind.INVALID_ARGUMENT : StoreException.Kind.DATABASE;
        return new StoreException(kind, base + path + " answered " + status + ": " + detail);
    }
}
