package io.outpost.server.write;

import io.outpost.server.web.StoreStatus;
import io.outpost.store.IovStore;
import io.outpost.store.StoreException;
import io.outpost.store.cli.IovFiles;
import io.outpost.store.globaltag.GlobalTags;
import io.outpost.store.model.KeyText;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.Tag;
import io.outpost.store.model.TagLock;
import io.outpost.store.model.Versioning;
import io.outpost.wire.WireFormat;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.Supplier;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.security.core.annotation.AuthenticationPrincipal;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.util.UriUtils;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The write API (docs/api.md, "Writing"): JSON bodies; CSV, JSON or the binary table format for bulk IOVs. Node paths follow the
 * operation in the URL as in the read API ({@code POST /write/v1/iovs/DET/Calo/Gains}). Every call goes
 * through {@link WriteService} to the same {@link IovStore} methods the loader uses.
 */
@RestController
@RequestMapping(WriteController.BASE)
public class WriteController {
    public static final String BASE = "/write/v1";
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final MediaType CSV = MediaType.parseMediaType("text/csv");
    private static final MediaType TABLE = MediaType.parseMediaType(WireFormat.CONTENT_TYPE);

    /** Body of folderset creation. */
    public record FolderSetBody(String description, Boolean parents) {
    }

    /** Body of folder creation: payload as in the loader, e.g. {@code mean:Float,label:String255}. */
    public record FolderBody(String versioning, String keyType, String payload, String description, Boolean parents) {
    }

    /** Body of channel creation. */
    public record ChannelBody(Long id, String name, String description) {
    }

    /** Body of tagging the HEAD; {@code asOf} an ISO instant to tag the HEAD as it was then. */
    public record TagBody(String tag, String description, String asOf) {
    }

    /** Body of a lock change: {@code locked}, {@code partial} or {@code unlocked}. */
    public record LockBody(String status, String node) {
    }

    /**
     * Body of a tag relation: {@code parent} (a tag of the child's parent folderset) points to {@code child}. With
     * {@code node} (the child node), missing tags are created as COOL does; a global tag is built from the root down.
     */
    public record RelationBody(String parent, String child, String node) {
    }

    /**
     * Body of a global tag's creation, as {@code outpost-loader globaltag create}: the tag each listed folder
     * reads ({@code choices}: folder path → folder tag); {@code lock} locks it and every tag it reaches.
     */
    public record GlobalTagBody(String name, String description, Map<String, String> choices, Boolean lock) {
    }

    /** Body of a tag deletion. */
    public record TagDeletionBody(String tag) {
    }

    /**
     * Body of a truncation: open-ended IOVs valid at {@code until} end there; channels all, N, N-M or name:X.
     * {@code until} is a number, or text as the loader reads keys (RUN/LUMI, an ISO time; docs/api.md).
     */
    public record TruncationBody(String until, String channels) {
    }

    private final IovStore store;
    private final WriteService writes;
    private final AuditLog audit;

    public WriteController(IovStore store, WriteService writes, AuditLog audit) {
        this.store = store;
        this.writes = writes;
        this.audit = audit;
    }

    @PostMapping("/foldersets/**")
    public ResponseEntity<String> createFolderSet(@AuthenticationPrincipal Jwt jwt, HttpServletRequest req,
                                                  @RequestBody(required = false) FolderSetBody body,
                                                  @RequestHeader(value = "Idempotency-Key", required = false) String key) {
        FolderSetBody b = body == null ? new FolderSetBody(null, null) : body;
        return runOnNode(jwt, req, key, "create-folderset", "/foldersets", null, b, 201,
                path -> store.createFolderSet(path, text(b.description()), Boolean.TRUE.equals(b.parents())),
                r -> Map.of("created", "folderset"));
    }

    @PostMapping("/folders/**")
    public ResponseEntity<String> createFolder(@AuthenticationPrincipal Jwt jwt, HttpServletRequest req,
                                               @RequestBody FolderBody b,
                                               @RequestHeader(value = "Idempotency-Key", required = false) String key) {
        return runOnNode(jwt, req, key, "create-folder", "/folders", null, b, 201, path -> {
            if (b.payload() == null) {
                throw new IllegalArgumentException("\"payload\" is required, e.g. \"mean:Float,label:String255\"");
            }
            return store.createFolder(path, Versioning.parse(b.versioning() == null ? "SV" : b.versioning()),
                    KeyType.parse(b.keyType() == null ? "time" : b.keyType()), PayloadSpec.parse(b.payload()),
                    text(b.description()), Boolean.TRUE.equals(b.parents()));
        }, r -> {
            Node n = (Node) r;
            return Map.of("created", "folder", "versioning", n.versioning().shortName(), "keyType",
                    n.keyType().label(), "payload", n.payloadSpec().toString());
        });
    }

    @PostMapping("/channels/**")
    public ResponseEntity<String> createChannel(@AuthenticationPrincipal Jwt jwt, HttpServletRequest req,
                                                @RequestBody ChannelBody b,
                                                @RequestHeader(value = "Idempotency-Key", required = false) String key) {
        return runOnNode(jwt, req, key, "create-channel", "/channels", null, b, 201, path -> {
            if (b.id() == null) {
                throw new IllegalArgumentException("\"id\" (the channel number) is required");
            }
            return store.createChannel(store.folder(path), b.id(), b.name(), text(b.description()));
        }, r -> Map.of("created", "channel", "channel", b.id()));
    }

    /**
     * Stores one batch of IOVs, all or nothing: {@code application/json} (an array as the loader's JSON files),
     * {@code text/csv} (a header line naming channel, since, until and the fields in any order, then one IOV a line) or {@code application/vnd.outpost.table}
     * (the binary format of the native API's answers, kind iovs; the cheapest to parse).
     */
    @PostMapping("/iovs/**")
    public ResponseEntity<String> storeIovs(@AuthenticationPrincipal Jwt jwt, HttpServletRequest req,
                                            @RequestParam(value = "userTag", required = false) String userTag,
                                            @RequestParam(value = "userTagOnly", defaultValue = "false") boolean userTagOnly,
                                            @RequestHeader(value = "Idempotency-Key", required = false) String key)
            throws IOException {
        String path = nodePath(req, "/iovs");
        Caller caller = Caller.of(jwt);
        String requestId = requestId(req);
        byte[] body;
        try {
            body = req.getInputStream().readAllBytes();
        } catch (BodyLimit.TooLarge e) {
            audit.recordRefusal(audit.entry(requestId, caller.subject(), "store-iovs", path, userTag, null, 413,
                    e.getMessage()));
            throw e;
        }
        String hash = hash("store-iovs", path, userTag + "|" + userTagOnly + "|" + req.getContentType(), body);
        List<NewIov>[] rows = new List[1];
        WriteOperation probe = new WriteOperation("store-iovs", path, userTag, null, hash);
        try {
            caller.require(Permission.WRITE, path);
            Node folder = store.folder(path);
            rows[0] = parseIovs(req.getContentType(), body, path, folder, userTag, userTagOnly);
            if (rows[0].isEmpty()) {
                throw new IllegalArgumentException("the body holds no IOVs");
            }
        } catch (WriteRefused e) {
            audit.recordRefusal(audit.entry(requestId, caller.subject(), probe.name(), path, userTag, null, e.status(),
                    e.getMessage()));
            throw e;
        } catch (StoreException e) {
            audit.recordRefusal(audit.entry(requestId, caller.subject(), probe.name(), path, userTag, null,
                    StoreStatus.of(e), e.getMessage()));
            throw e;
        } catch (IllegalArgumentException e) {
            audit.recordRefusal(audit.entry(requestId, caller.subject(), probe.name(), path, userTag, null, 400,
                    e.getMessage()));
            throw e;
        }
        WriteOperation op = new WriteOperation("store-iovs", path, userTag, (long) rows[0].size(), hash);
        return run(caller, requestId, key, op, 200, () -> { }, () -> {
            store.store(store.folder(path), rows[0]);
            return rows[0].size();
        }, r -> Map.of("stored", rows[0].size()));
    }

    @PostMapping("/tags/**")
    public ResponseEntity<String> tagHead(@AuthenticationPrincipal Jwt jwt, HttpServletRequest req,
                                         @RequestBody TagBody b,
                                         @RequestHeader(value = "Idempotency-Key", required = false) String key) {
        String path = nodePath(req, "/tags");
        Caller caller = Caller.of(jwt);
        WriteOperation op = new WriteOperation(b.asOf() == null ? "tag-head" : "tag-head-as-of", path, b.tag(), null,
                hash("tag-head", path, b));
        return run(caller, req, key, op, 201, () -> caller.require(Permission.WRITE, path), () -> {
            if (b.tag() == null || b.tag().isBlank()) {
                throw new IllegalArgumentException("\"tag\" is required");
            }
            Node folder = store.folder(path);
            if (b.asOf() == null) {
                return store.tagCurrentHead(folder, b.tag(), text(b.description()));
            }
            Instant asOf;
            try {
                asOf = Instant.parse(b.asOf());
            } catch (DateTimeParseException e) {
                throw new IllegalArgumentException("\"asOf\" must be an ISO instant such as 2026-01-01T00:00:00Z, not '"
                        + b.asOf() + "'");
            }
            return store.tagHeadAsOfDate(folder, b.tag(), asOf, text(b.description()));
        }, r -> Map.of("created", "tag"));
    }

    @PutMapping("/locks/{tag}")
    public ResponseEntity<String> lock(@AuthenticationPrincipal Jwt jwt, HttpServletRequest req,
                                       @PathVariable("tag") String tagName, @RequestBody LockBody b,
                                       @RequestHeader(value = "Idempotency-Key", required = false) String key) {
        Caller caller = Caller.of(jwt);
        WriteOperation op = new WriteOperation("lock-tag", null, tagName, null, hash("lock-tag", tagName, b));
        return run(caller, req, key, op, 200, () -> {
            Node node = b.node() != null ? store.node(b.node()) : nodeOf(store.tag(tagName));
            caller.require(node.parentId() == null ? Permission.GLOBAL_TAG : Permission.LOCK, node.path());
        }, () -> {
            if (b.status() == null) {
                throw new IllegalArgumentException("\"status\" is required: locked, partial or unlocked");
            }
            TagLock lock = TagLock.parse(b.status());
            return b.node() != null ? store.setTagLock(store.node(b.node()), tagName, lock)
                    : store.setTagLock(tagName, lock);
        }, r -> Map.of("lock", ((Tag) r).lock().name().toLowerCase(Locale.ROOT)));
    }

    @PostMapping("/relations")
    public ResponseEntity<String> relate(@AuthenticationPrincipal Jwt jwt, HttpServletRequest req,
                                         @RequestBody RelationBody b,
                                         @RequestHeader(value = "Idempotency-Key", required = false) String key) {
        Caller caller = Caller.of(jwt);
        WriteOperation op = new WriteOperation("relate-tags", null, b.parent(), null, hash("relate-tags", "", b));
        return run(caller, req, key, op, 201, () -> {
            if (b.parent() == null || b.child() == null) {
                throw new IllegalArgumentException("\"parent\" and \"child\" tags are required");
            }
            Node child = b.node() != null ? store.node(b.node()) : nodeOf(store.tag(b.child()));
            Node parent = child.parentId() == null ? child : nodeById(child.parentId());
            caller.require(parent.parentId() == null ? Permission.GLOBAL_TAG : Permission.WRITE, parent.path());
        }, () -> {
            if (b.node() != null) {
                store.createTagRelation(store.node(b.node()), b.parent(), b.child());
            } else {
                store.createTagRelation(b.parent(), b.child());
            }
            return b.child();
        }, r -> Map.of("created", "relation", "child", b.child()));
    }

    /** A global tag from folder=tag choices, with the relations down the path (GlobalTags.create). */
    @PostMapping("/globaltags")
    public ResponseEntity<String> createGlobalTag(@AuthenticationPrincipal Jwt jwt, HttpServletRequest req,
                                                  @RequestBody GlobalTagBody b,
                                                  @RequestHeader(value = "Idempotency-Key", required = false) String key) {
        Caller caller = Caller.of(jwt);
        WriteOperation op = new WriteOperation("create-globaltag", "/", b.name(), null, hash("create-globaltag", "/", b));
        return run(caller, req, key, op, 201, () -> caller.require(Permission.GLOBAL_TAG, "/"), () -> {
            if (b.name() == null || b.choices() == null || b.choices().isEmpty()) {
                throw new IllegalArgumentException("\"name\" and \"choices\" ({\"/DET/Calo/Gains\": \"GAINS-v2\", …})"
                        + " are required");
            }
            GlobalTags gts = new GlobalTags(store);
            gts.create(b.name(), text(b.description()), b.choices());
            return Boolean.TRUE.equals(b.lock()) ? gts.lock(b.name(), TagLock.LOCKED, caller.subject())
                    : gts.find(b.name());
        }, r -> Map.of("created", "globaltag", "tag", b.name()));
    }

    /** The lock of a global tag and of every tag it reaches (GlobalTags.lock). */
    @PutMapping("/globaltags/{name}/lock")
    public ResponseEntity<String> lockGlobalTag(@AuthenticationPrincipal Jwt jwt, HttpServletRequest req,
                                                @PathVariable("name") String name, @RequestBody LockBody b,
                                                @RequestHeader(value = "Idempotency-Key", required = false) String key) {
        Caller caller = Caller.of(jwt);
        WriteOperation op = new WriteOperation("lock-globaltag", "/", name, null, hash("lock-globaltag", name, b));
        return run(caller, req, key, op, 200, () -> caller.require(Permission.GLOBAL_TAG, "/"), () -> {
            if (b.status() == null) {
                throw new IllegalArgumentException("\"status\" is required: locked, partial or unlocked");
            }
            return new GlobalTags(store).lock(name, TagLock.parse(b.status()), caller.subject());
        }, r -> Map.of("lock", b.status()));
    }

    /** COOL's deleteTag: a folder tag's IOVs and, unless a relation still uses it, the tag itself. */
    @PostMapping("/tag-deletions/**")
    public ResponseEntity<String> deleteTag(@AuthenticationPrincipal Jwt jwt, HttpServletRequest req,
                                            @RequestBody TagDeletionBody b,
                                            @RequestHeader(value = "Idempotency-Key", required = false) String key) {
        return runOnNode(jwt, req, key, "delete-tag", "/tag-deletions", b.tag(), b, 200, path -> {
            if (b.tag() == null) {
                throw new IllegalArgumentException("\"tag\" is required");
            }
            return store.deleteTag(store.folder(path), b.tag());
        }, r -> Map.of("freed", r));
    }

    /** COOL's truncateObjectValidity on a single-version folder. */
    @PostMapping("/truncations/**")
    public ResponseEntity<String> truncate(@AuthenticationPrincipal Jwt jwt, HttpServletRequest req,
                                           @RequestBody TruncationBody b,
                                           @RequestHeader(value = "Idempotency-Key", required = false) String key) {
        return runOnNode(jwt, req, key, "truncate", "/truncations", null, b, 200, path -> {
            if (b.until() == null) {
                throw new IllegalArgumentException("\"until\" is required");
            }
            Node folder = store.folder(path);
            return store.truncateValidity(folder, KeyText.parse(b.until(), folder.keyType()),
                    io.outpost.store.cli.LoaderCli.channelSelection(b.channels() == null ? "all" : b.channels()));
        }, r -> Map.of("truncated", r));
    }

    /** The audit log, newest first. */
    @GetMapping("/audit")
    public ResponseEntity<String> audit(@AuthenticationPrincipal Jwt jwt,
                                        @RequestParam(value = "limit", defaultValue = "100") int limit,
                                        @RequestParam(value = "since", required = false) String since) {
        Caller caller = Caller.of(jwt);
        caller.require(Permission.AUDIT, "/");
        if (limit < 1 || limit > 10_000) {
            throw new IllegalArgumentException("limit must be between 1 and 10000");
        }
        Instant from;
        try {
            from = since == null ? null : Instant.parse(since);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("since must be an ISO instant such as 2026-01-01T00:00:00Z");
        }
        return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).header("Cache-Control", "no-store")
                .body(JSON.writeValueAsString(audit.list(limit, from)));
    }

    // ---------------------------------------------------------------- helpers

    /**
     * A write to the node whose path ends the URL after {@code /write/v1<operation>}, which the caller must be
     * allowed to write: the common form of the folder, channel, tag-deletion and truncation writes.
     */
    private ResponseEntity<String> runOnNode(Jwt jwt, HttpServletRequest req, String key, String name,
                                             String operation, String tag, Object request, int status,
                                             Function<String, Object> call,
                                             Function<Object, Map<String, Object>> body) {
        String path = nodePath(req, operation);
        Caller caller = Caller.of(jwt);
        WriteOperation op = new WriteOperation(name, path, tag, null, hash(name, path, request));
        return run(caller, req, key, op, status, () -> caller.require(Permission.WRITE, path), () -> call.apply(path),
                body);
    }

    private ResponseEntity<String> run(Caller caller, HttpServletRequest req, String key, WriteOperation op, int status,
                                       Runnable authorize, Supplier<Object> call,
                                       Function<Object, Map<String, Object>> body) {
        return run(caller, requestId(req), key, op, status, authorize, call, body);
    }

    private ResponseEntity<String> run(Caller caller, String requestId, String key, WriteOperation op, int status,
                                       Runnable authorize, Supplier<Object> call,
                                       Function<Object, Map<String, Object>> body) {
        if (key != null && (key.isBlank() || key.length() > 255)) {
            throw new WriteRefused(400, "Bad Request", "Idempotency-Key must be 1 to 255 characters");
        }
        WriteService.Result r = writes.execute(caller, requestId, key, op, status, authorize, call, body);
        ResponseEntity.BodyBuilder b = ResponseEntity.status(r.status()).contentType(MediaType.APPLICATION_JSON)
                .header("Cache-Control", "no-store");
        if (r.replayed()) {
            b.header("Idempotent-Replayed", "true");
        }
        if (!r.visible()) {
            b.header("X-Outpost-Replica", "behind");
        }
        return b.body(r.json());
    }

    private static List<NewIov> parseIovs(String contentType, byte[] body, String path, Node folder,
                                          String userTag, boolean userTagOnly) {
        PayloadSpec spec = folder.payloadSpec();
        MediaType type;
        try {
            type = contentType == null ? MediaType.APPLICATION_JSON : MediaType.parseMediaType(contentType);
        } catch (RuntimeException e) {
            throw new WriteRefused(415, "Unsupported Media Type", "unreadable Content-Type '" + contentType + "'");
        }
        List<NewIov> rows;
        if (type.isCompatibleWith(TABLE)) {
            rows = BinaryIovBatch.read(body, path, spec);
        } else if (type.isCompatibleWith(CSV)) {
            String text = new String(body, StandardCharsets.UTF_8);
            rows = IovFiles.csv(Arrays.asList(text.split("\r?\n", -1)), "CSV body", spec, folder.keyType());
        } else if (type.isCompatibleWith(MediaType.APPLICATION_JSON)) {
            JsonNode root;
            try {
                root = JSON.readTree(body);
            } catch (JacksonException e) {
                throw new IllegalArgumentException("the body is not valid JSON: " + e.getOriginalMessage());
            }
            rows = IovFiles.json(root, spec, folder.keyType());
        } else {
            throw new WriteRefused(415, "Unsupported Media Type", "IOV batches are application/json, text/csv or "
                    + WireFormat.CONTENT_TYPE + ", not '"
                    + contentType + "'");
        }
        if (userTag == null) {
            if (userTagOnly) {
                throw new IllegalArgumentException("userTagOnly needs a userTag");
            }
            return rows;
        }
        return rows.stream().map(r -> r.withUserTag(userTag, userTagOnly)).toList();
    }

    private Node nodeOf(Tag t) {
        return nodeById(t.nodeId());
    }

    private Node nodeById(long id) {
        return store.listNodes().stream().filter(n -> n.id() == id).findFirst()
                .orElseThrow(() -> new StoreException(StoreException.Kind.FOLDER_NOT_FOUND, "no node with id " + id));
    }

    /** The node path after {@code /write/v1<operation>}, percent-decoded. */
    private static String nodePath(HttpServletRequest req, String operation) {
        String uri = req.getRequestURI();
        String prefix = req.getContextPath() + BASE + operation;
        String path = UriUtils.decode(uri.substring(Math.min(uri.length(), prefix.length())), StandardCharsets.UTF_8);
        if (path.isEmpty() || path.equals("/")) {
            throw new IllegalArgumentException("the URL must end in the node path, e.g. " + BASE + operation
                    + "/DET/Calo/Gains");
        }
        return path;
    }

    private static String requestId(HttpServletRequest req) {
        String id = req.getHeader("X-Request-Id");
        return id == null || id.isBlank() ? UUID.randomUUID().toString() : id;
    }

    private static String text(String s) {
        return s == null ? "" : s;
    }

    private static String hash(String operation, String path, Object request) {
        return hash(operation, path, String.valueOf(request), new byte[0]);
    }

    private static String hash(String operation, String path, String parameters, byte[] body) {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            md.update((operation + "\n" + path + "\n" + parameters + "\n").getBytes(StandardCharsets.UTF_8));
            md.update(body);
            return HexFormat.of().formatHex(md.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
