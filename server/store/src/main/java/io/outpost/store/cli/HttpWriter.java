package io.outpost.store.cli;

import io.outpost.store.StoreException;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.Names;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.TagLock;
import io.outpost.store.model.Versioning;
import io.outpost.wire.AnswerEncoder;
import io.outpost.wire.AnswerKind;
import io.outpost.wire.Codec;
import io.outpost.wire.Column;
import io.outpost.wire.ColumnType;
import io.outpost.wire.WireFormat;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The loader's commands through a service's write API (docs/api.md, "Writing") with a bearer token. Each batch is
 * one request (a binary table, docs/wire-format.md) with its own Idempotency-Key, retried once on a broken connection: the service stores it once. The
 * upload of a batch overlaps the reading (or generating) of the next one.
 * Refusals come back as the same errors the store gives, with the service's message.
 */
final class HttpWriter implements ConditionsWriter {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final String base;
    private final String token;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();
    private final java.util.Map<String, PayloadSpec> specs = new java.util.HashMap<>();
    /** Uploads one batch while the caller prepares the next; at most one is in flight. */
    private final java.util.concurrent.ExecutorService uploader = java.util.concurrent.Executors.newSingleThreadExecutor(
            r -> {
                Thread t = new Thread(r, "outpost-loader-upload");
                t.setDaemon(true);
                return t;
            });
    private java.util.concurrent.Future<Integer> inFlight;

    HttpWriter(String server, String token) {
        if (token == null || token.isBlank()) {
            throw new IllegalArgumentException("--server needs a token: --token or the environment variable OUTPOST_TOKEN");
        }
        this.base = server.endsWith("/") ? server.substring(0, server.length() - 1) : server;
        this.token = token;
    }

    @Override
    public void createFolderSet(String path, String description, boolean parents) {
        Names.checkPath(path); // the service says the same, but a path with a space would not make a URL
        ObjectNode b = JSON.createObjectNode().put("description", description).put("parents", parents);
        send("POST", "/write/v1/foldersets" + path, "application/json", bytes(b));
    }

    @Override
    public String createFolder(String path, Versioning versioning, KeyType keys, PayloadSpec payload, String description,
                               boolean parents) {
        Names.checkPath(path);
        ObjectNode b = JSON.createObjectNode().put("versioning", versioning.shortName()).put("keyType", keys.label())
                .put("payload", payload.toString()).put("description", description).put("parents", parents);
        send("POST", "/write/v1/folders" + path, "application/json", bytes(b));
        return "created folder " + path + ": " + versioning.shortName() + ", " + keys.label() + " keys, " + payload;
    }

    @Override
    public void createChannel(String folder, long id, String name, String description) {
        ObjectNode b = JSON.createObjectNode().put("id", id).put("name", name).put("description", description);
        send("POST", "/write/v1/channels" + folder, "application/json", bytes(b));
    }

    @Override
    public PayloadSpec payloadSpec(String folder) {
        for (JsonNode row : nodes()) {
            if (row.get(0).asString().equals(folder) && row.get(1).asBoolean()) {
                return PayloadSpec.parse(row.get(4).asString());
            }
        }
        throw new StoreException(StoreException.Kind.FOLDER_NOT_FOUND, "no folder '" + folder + "' on " + base);
    }

    @Override
    public KeyType keyType(String folder) {
        for (JsonNode row : nodes()) {
            if (row.get(0).asString().equals(folder) && row.get(1).asBoolean()) {
                return KeyType.parse(row.get(3).asString());
            }
        }
        throw new StoreException(StoreException.Kind.FOLDER_NOT_FOUND, "no folder '" + folder + "' on " + base);
    }

    @Override
    public int store(String folder, List<NewIov> batch) {
        if (batch.isEmpty()) {
            return 0;
        }
        PayloadSpec spec = specs.computeIfAbsent(folder, this::payloadSpec);
        // IOVs of one batch share the user tag (the loader's --user-tag applies to the whole file)
        NewIov first = batch.getFirst();
        String query = first.userTag() == null ? "" : "?userTag=" + URLEncoder.encode(first.userTag(),
                StandardCharsets.UTF_8) + (first.userTagOnly() ? "&userTagOnly=true" : "");
        List<NewIov> mine = List.copyOf(batch);
        int confirmed = finishUpload();
        inFlight = uploader.submit(() -> {
            post("POST", "/write/v1/iovs" + folder + query, WireFormat.CONTENT_TYPE, iovTable(folder, mine, spec));
            return mine.size();
        });
        return confirmed;
    }

    @Override
    public int flush() {
        return finishUpload();
    }

    /**
     * Waits for the batch in flight; its refusal surfaces here, before anything else is sent. Returns how many
     * IOVs the service confirmed (0 when none was in flight).
     */
    private int finishUpload() {
        java.util.concurrent.Future<Integer> f = inFlight;
        inFlight = null;
        if (f == null) {
            return 0;
        }
        try {
            return f.get();
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new StoreException(StoreException.Kind.DATABASE, "upload failed: " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreException(StoreException.Kind.DATABASE, "interrupted", e);
        }
    }

    /**
     * The batch as one binary table (docs/wire-format.md, kind iovs), written by the same encoder as the native
     * API's answers: the cheapest body for the service to read. Values are checked against the folder's fields
     * first, as the store would, so that none is narrowed silently by the encoding.
     */
    static byte[] iovTable(String folder, List<NewIov> batch, PayloadSpec spec) {
        List<Column> columns = new ArrayList<>(3 + spec.size());
        columns.add(new Column("channel", ColumnType.UINT32));
        columns.add(new Column("since", ColumnType.UINT63));
        columns.add(new Column("until", ColumnType.UINT63));
        for (int i = 0; i < spec.size(); i++) {
            columns.add(new Column(spec.field(i).name(), spec.field(i).type().columnType()));
        }
        AnswerEncoder table = new AnswerEncoder(Codec.ZSTD, 1);
        boolean done = false;
        try {
            table.begin(AnswerKind.IOVS, folder, "", 0, 0, columns);
            Object[] row = new Object[columns.size()];
            for (NewIov o : batch) {
                if (o.channelId() < 0 || o.channelId() > 0xFFFF_FFFFL) {
                    throw new StoreException(StoreException.Kind.INVALID_ARGUMENT, "channel " + o.channelId()
                            + " is out of range (0 … 4294967295)");
                }
                row[0] = o.channelId();
                row[1] = o.since();
                row[2] = o.until();
                Object[] payload;
                try {
                    payload = spec.coerce(o.payload() == null ? new Object[spec.size()] : o.payload());
                } catch (IllegalArgumentException e) {
                    throw new StoreException(StoreException.Kind.INVALID_ARGUMENT, e.getMessage(), e);
                }
                System.arraycopy(payload, 0, row, 3, payload.length);
                table.row(row);
            }
            byte[] bytes = table.finish();
            done = true;
            return bytes;
        } finally {
            if (!done) {
                table.abandon();
            }
        }
    }

    @Override
    public void tag(String folder, String tag, Instant asOf, String description) {
        ObjectNode b = JSON.createObjectNode().put("tag", tag).put("description", description);
        if (asOf != null) {
            b.put("asOf", asOf.toString());
        }
        send("POST", "/write/v1/tags" + folder, "application/json", bytes(b));
    }

    @Override
    public void lock(String node, String tag, TagLock lock) {
        ObjectNode b = JSON.createObjectNode().put("status", status(lock));
        if (node != null) {
            b.put("node", node);
        }
        send("PUT", "/write/v1/locks/" + URLEncoder.encode(tag, StandardCharsets.UTF_8), "application/json", bytes(b));
    }

    @Override
    public void relate(String node, String parent, String child) {
        ObjectNode b = JSON.createObjectNode().put("parent", parent).put("child", child);
        if (node != null) {
            b.put("node", node);
        }
        send("POST", "/write/v1/relations", "application/json", bytes(b));
    }

    @Override
    public boolean deleteTag(String folder, String tag) {
        return answer("POST", "/write/v1/tag-deletions" + folder, bytes(JSON.createObjectNode().put("tag", tag)))
                .path("freed").asBoolean();
    }

    @Override
    public int truncate(String folder, long until, String channels) {
        return answer("POST", "/write/v1/truncations" + folder,
                bytes(JSON.createObjectNode().put("until", "raw:" + until).put("channels", channels))).path("truncated").asInt();
    }

    @Override
    public void createGlobalTag(String name, String description, java.util.Map<String, String> choices, boolean lock) {
        ObjectNode b = JSON.createObjectNode().put("name", name).put("description", description).put("lock", lock);
        ObjectNode c = b.putObject("choices");
        choices.forEach(c::put);
        send("POST", "/write/v1/globaltags", "application/json", bytes(b));
    }

    @Override
    public String lockGlobalTag(String name, TagLock lock) {
        send("PUT", "/write/v1/globaltags/" + URLEncoder.encode(name, StandardCharsets.UTF_8) + "/lock",
                "application/json", bytes(JSON.createObjectNode().put("status", status(lock))));
        return lock == TagLock.LOCKED ? " (frozen by the service: see its snapshot)" : "";
    }

    @Override
    public List<String> globalTags() {
        List<String> out = new ArrayList<>();
        // the read API's columns: name, lock, description, insertionTime
        for (JsonNode row : read("/v1/json/globaltags")) {
            out.add(row.get(0).asString() + "\t" + row.get(1).asString() + "\t" + row.get(3).asString() + "\t"
                    + row.get(2).asString());
        }
        return out;
    }

    @Override
    public List<String> resolveGlobalTag(String name) {
        List<String> out = new ArrayList<>();
        // folder, tag, lock, versioning, keyType, generation
        for (JsonNode row : read("/v1/json/resolve/" + URLEncoder.encode(name, StandardCharsets.UTF_8))) {
            out.add(row.get(0).asString() + "\t" + row.get(1).asString());
        }
        return out;
    }

    private static String status(TagLock lock) {
        return switch (lock) {
            case LOCKED -> "locked";
            case UNLOCKED -> "unlocked";
            case PARTIALLY_LOCKED -> "partial";
        };
    }

    private JsonNode answer(String method, String path, byte[] body) {
        finishUpload();
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofMinutes(10))
                .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
                .header("Idempotency-Key", UUID.randomUUID().toString())
                .method(method, HttpRequest.BodyPublishers.ofByteArray(body));
        HttpResponse<byte[]> r = exchange(b, true);
        check(r);
        return JSON.readTree(r.body());
    }

    @Override
    public List<String> list() {
        List<String> out = new ArrayList<>();
        for (JsonNode row : nodes()) {
            out.add(row.get(1).asBoolean() ? row.get(0).asString() + "  " + row.get(2).asString() + " "
                    + row.get(3).asString() + " " + row.get(4).asString() : row.get(0).asString() + "/");
        }
        return out;
    }

    private JsonNode nodes() {
        return read("/v1/json/nodes");
    }

    /** The rows of a read API answer, asked past any cache. */
    private JsonNode read(String path) {
        finishUpload();
        HttpResponse<byte[]> r = exchange(HttpRequest.newBuilder(URI.create(base + path))
                .header("Cache-Control", "no-cache").GET(), true);
        check(r);
        return JSON.readTree(r.body()).get("rows");
    }

    private static byte[] bytes(ObjectNode n) {
        return JSON.writeValueAsBytes(n);
    }

    /** Sends after the batch in flight, so requests keep their order. */
    private void send(String method, String path, String contentType, byte[] body) {
        finishUpload();
        post(method, path, contentType, body);
    }

    private void post(String method, String path, String contentType, byte[] body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofMinutes(10))
                .header("Authorization", "Bearer " + token).header("Content-Type", contentType)
                .header("Idempotency-Key", UUID.randomUUID().toString())
                .method(method, HttpRequest.BodyPublishers.ofByteArray(body));
        check(exchange(b, true));
    }

    /** Sends; one retry on a broken connection (safe: writes carry an Idempotency-Key). */
    private HttpResponse<byte[]> exchange(HttpRequest.Builder b, boolean retry) {
        HttpRequest request = b.build();
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
            if (retry) {
                return exchange(b, false);
            }
            throw new StoreException(StoreException.Kind.DATABASE, "cannot reach " + base + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreException(StoreException.Kind.DATABASE, "interrupted", e);
        }
    }

    private void check(HttpResponse<byte[]> r) {
        int s = r.statusCode();
        if (s < 300) {
            return;
        }
        String detail = new String(r.body(), StandardCharsets.UTF_8);
        try {
            JsonNode p = JSON.readTree(r.body());
            if (p.hasNonNull("detail")) {
                detail = p.get("detail").asString();
            }
        } catch (RuntimeException notJson) {
            // keep the raw body
        }
        String message = "the service answered " + s + ": " + detail;
        StoreException.Kind kind = switch (s) {
            case 404 -> detail.toLowerCase(Locale.ROOT).contains("tag") ? StoreException.Kind.TAG_NOT_FOUND
                    : StoreException.Kind.FOLDER_NOT_FOUND;
            case 409 -> StoreException.Kind.OVERLAP;
            case 400, 422 -> StoreException.Kind.INVALID_ARGUMENT;
            default -> s < 500 ? null : StoreException.Kind.DATABASE;
        };
        if (kind == null) {
            throw new Refused(message);
        }
        throw new StoreException(kind, message);
    }

    /** The service refused the request for a reason other than its content (e.g. 401, 403: not permitted). */
    static final class Refused extends RuntimeException {
        Refused(String message) {
            super(message);
        }
    }

    /** Waits for the last batch, so a refusal of it is reported and the exit code says so. */
    @Override
    public void close() {
        try {
            finishUpload();
        } finally {
            uploader.shutdownNow();
            http.close();
        }
    }
}
