package io.outpost.server.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.server.support.DatabaseDump;
import io.outpost.server.support.RunningService;
import io.outpost.server.support.WriteClient;
import io.outpost.store.IovStore;
import io.outpost.testkit.TempDirs;
import io.outpost.testkit.TokenIssuer;
import io.outpost.wire.AnswerEncoder;
import io.outpost.wire.AnswerKind;
import io.outpost.wire.Codec;
import io.outpost.wire.Column;
import io.outpost.wire.ColumnType;
import io.outpost.wire.WireFormat;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The write API against a real token issuer and a real service on SQLite: what it accepts is readable at once
 * (the poll interval is an hour, so only the write path can make it visible), every invalid write is a 4xx
 * problem+json that leaves the conditions tables exactly as they were, and every attempt is audited.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WriteApiTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String CALO = "conditions.write:/DET/Calo conditions.lock:/DET/Calo";

    private Path dir;
    private TokenIssuer issuer;
    private RunningService svc;
    private WriteClient client;
    private String calo;

    @BeforeAll
    void start() throws IOException {
        dir = TempDirs.create("outpost-write");
        issuer = new TokenIssuer();
        svc = RunningService.start("jdbc:sqlite:" + dir.resolve("w.db"), "--outpost.demo-data=false",
                "--outpost.poll-interval=1h", "--outpost.write.issuer-uri=" + issuer.issuerUri(),
                "--outpost.write.audience=" + TokenIssuer.AUDIENCE, "--outpost.write.max-body-size=64KB");
        client = new WriteClient(svc.url(""));
        calo = issuer.token("calo-team", CALO);
    }

    @AfterAll
    void stop() throws IOException {
        if (svc != null) {
            svc.close();
        }
        if (issuer != null) {
            issuer.close();
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    private String dump() throws SQLException {
        return DatabaseDump.of(svc.bean(IovStore.class).database().writePool());
    }

    private static JsonNode body(HttpResponse<String> r) {
        return JSON.readTree(r.body());
    }

    private HttpResponse<String> csv(String folder, String token, String csv, String... headers) throws Exception {
        return client.send("POST", "/write/v1/iovs" + folder, token, "text/csv", csv.getBytes(StandardCharsets.UTF_8),
                headers);
    }

    private void created(HttpResponse<String> r) {
        assertThat(r.statusCode()).as(r.body()).isBetween(200, 201);
    }

    @Test
    void storedDataIsReadableAtOnceAndAudited() throws Exception {
        created(client.json("POST", "/write/v1/folders/DET/Calo/Gains", calo,
                "{\"versioning\":\"MV\",\"keyType\":\"time\",\"payload\":\"gain:Double,label:String255\","
                        + "\"description\":\"gains\",\"parents\":true}"));
        String url = "/v1/json/browse/HEAD/0/9223372036854775807/all/cs/DET/Calo/Gains";
        HttpResponse<byte[]> before = svc.get(url);
        assertThat(before.statusCode()).isEqualTo(200);
        assertThat(before.headers().firstValue("X-Outpost-Rows")).hasValue("0");

        HttpResponse<String> stored = csv("/DET/Calo/Gains", calo, "channel,since,until,gain,label\n1,0,100,1.5,a\n2,0,max,2.5,b\n",
                "X-Request-Id", "req-gains-1");
        assertThat(stored.statusCode()).as(stored.body()).isEqualTo(200);
        assertThat(body(stored).get("stored").asInt()).isEqualTo(2);

        HttpResponse<byte[]> after = svc.get(url);
        assertThat(after.headers().firstValue("X-Outpost-Rows")).hasValue("2");
        assertThat(after.headers().firstValue("ETag")).isNotEqualTo(before.headers().firstValue("ETag"));
        assertThat(new String(after.body(), StandardCharsets.UTF_8)).contains("2.5");

        HttpResponse<String> json = client.json("POST", "/write/v1/iovs/DET/Calo/Gains?userTag=CALIB-A", calo,
                "[{\"channel\":3,\"since\":10,\"until\":20,\"payload\":{\"gain\":9.25,\"label\":\"c\"}}]");
        assertThat(json.statusCode()).as(json.body()).isEqualTo(200);
        assertThat(svc.get(url).headers().firstValue("X-Outpost-Rows")).hasValue("3");
        // the columns in another order, keys as dates: each value goes to the column its header names
        HttpResponse<String> shuffled = csv("/DET/Calo/Gains", calo,
                "label,until,gain,channel,since\nshuffled,1970-01-01T00:00:00.000001Z,7.75,4,1970-01-01T00:00:00.0000005Z\n");
        assertThat(shuffled.statusCode()).as(shuffled.body()).isEqualTo(200);
        assertThat(svc.getString("/v1/json/browse/HEAD/0/9223372036854775807/4/cs/DET/Calo/Gains"))
                .contains("[4,500,1000,7.75,\"shuffled\"]");

        created(client.json("POST", "/write/v1/tags/DET/Calo/Gains", calo, "{\"tag\":\"GAINS-1\"}"));
        assertThat(svc.getString("/v1/json/tag/GAINS-1/DET/Calo/Gains")).contains("GAINS-1");
        HttpResponse<String> lock = client.json("PUT", "/write/v1/locks/GAINS-1", calo, "{\"status\":\"locked\"}");
        assertThat(lock.statusCode()).as(lock.body()).isEqualTo(200);
        assertThat(svc.getString("/v1/json/tag/GAINS-1/DET/Calo/Gains")).contains("locked");

        HttpResponse<String> audit = client.get("/write/v1/audit?limit=50", issuer.token("admin", "conditions.audit"));
        assertThat(audit.statusCode()).isEqualTo(200);
        JsonNode entries = body(audit);
        JsonNode gains = null;
        for (JsonNode e : entries) {
            if ("req-gains-1".equals(e.path("requestId").asString())) {
                gains = e;
            }
        }
        assertThat(gains).as(audit.body()).isNotNull();
        assertThat(gains.get("subject").asString()).isEqualTo("calo-team");
        assertThat(gains.get("operation").asString()).isEqualTo("store-iovs");
        assertThat(gains.get("path").asString()).isEqualTo("/DET/Calo/Gains");
        assertThat(gains.get("rows").asLong()).isEqualTo(2);
        assertThat(gains.get("status").asInt()).isEqualTo(200);
        assertThat(client.get("/write/v1/audit", calo).statusCode()).isEqualTo(403);
    }

    /** Keys as typed and doubles as written, or a 400 naming the line: the loader's rules, in every body format. */
    @Test
    void keysAndDoublesAreStoredAsWrittenOrRefused() throws Exception {
        created(client.json("POST", "/write/v1/folders/DET/Calo/Dbl", calo,
                "{\"versioning\":\"MV\",\"keyType\":\"run-lumi\",\"payload\":\"g:Double\",\"parents\":true}"));
        refused(400, "line 2: '320' is not a run-lumi key: write RUN/LUMI, e.g. 320/0 for run 320, lumi 0",
                csv("/DET/Calo/Dbl", calo, "channel,since,until,g\n1,320,max,1.5\n"));
        refused(400, "line 2: column 4, field 'g': 'NaN' is not a valid Double",
                csv("/DET/Calo/Dbl", calo, "channel,since,until,g\n1,320/0,max,NaN\n"));
        refused(400, "beyond the range of a Double", client.json("POST", "/write/v1/iovs/DET/Calo/Dbl", calo,
                "[{\"channel\":1,\"since\":\"320/0\",\"until\":\"max\",\"payload\":{\"g\":1e400}}]"));
        refused(400, "NaN and infinities", client.json("POST", "/write/v1/iovs/DET/Calo/Dbl", calo,
                "[{\"channel\":1,\"since\":\"320/0\",\"until\":\"max\",\"payload\":{\"g\":\"-Infinity\"}}]"));
        refused(400, "line 3: the IOV of channel 1 from 320/0 to max is given twice, also at CSV body line 2",
                csv("/DET/Calo/Dbl", calo, "channel,since,until,g\n1,320/0,max,1\n1,320/0,max,2\n"));
        refused(400, "line 2: the quote opened", csv("/DET/Calo/Dbl", calo, "channel,since,until,g\n1,320/0,max,\"1\n"));
        assertThat(client.get("/v1/json/count/HEAD/0/9223372036854775807/all/DET/Calo/Dbl", null).body())
                .contains("[0]");
        created(csv("/DET/Calo/Dbl", calo, "channel,since,until,g\n1,320/0,raw:1378684502016,1.5\n"));
        assertThat(client.get("/v1/json/browse/HEAD/0/9223372036854775807/all/cs/DET/Calo/Dbl", null).body())
                .contains("[1," + (320L << 32) + "," + (321L << 32) + ",1.5]");
    }

    @Test
    void everyInvalidWriteIsA4xxAndChangesNothing() throws Exception {
        created(client.json("POST", "/write/v1/folders/DET/Calo/Bad", calo,
                "{\"versioning\":\"MV\",\"payload\":\"i:Int32\",\"parents\":true}"));
        created(csv("/DET/Calo/Bad", calo, "channel,since,until,i\n1,100,200,1\n", "X-Request-Id", "bad-setup"));
        created(client.send("POST", "/write/v1/iovs/DET/Calo/Bad?userTag=BAD-LOCKED", calo, "text/csv",
                "channel,since,until,i\n7,0,10,1\n".getBytes(StandardCharsets.UTF_8)));
        created(client.json("PUT", "/write/v1/locks/BAD-LOCKED", calo, "{\"status\":\"locked\"}"));
        created(csv("/DET/Calo/Bad", calo, "channel,since,until,i\n1,300,400,1\n", "X-Request-Id", "bad-setup-2"));
        String before = dump();

        refused(401, "bearer token is required", csv("/DET/Calo/Bad", null, "channel,since,until,i\n2,0,10,1\n"));
        refused(401, "refused", csv("/DET/Calo/Bad", "not.a.jwt", "channel,since,until,i\n2,0,10,1\n"));
        refused(401, "refused", csv("/DET/Calo/Bad", issuer.foreignToken("x", CALO), "channel,since,until,i\n2,0,10,1\n"));
        // signed by the issuer with the writer's scope, but never expiring
        refused(401, "the token has no expiry (exp); write tokens must expire", csv("/DET/Calo/Bad",
                issuer.tokenWithoutExpiry("calo", CALO), "channel,since,until,i\n2,0,10,1\n"));
        refused(403, "conditions.write", csv("/DET/Calo/Bad", issuer.token("reader", "openid"),
                "channel,since,until,i\n2,0,10,1\n"));
        refused(403, "'/DET/Calo/Bad'", csv("/DET/Calo/Bad", issuer.token("pixel", "conditions.write:/DET/Pixel"),
                "channel,since,until,i\n2,0,10,1\n"));
        refused(403, "'/DET/CaloX'", client.json("POST", "/write/v1/folders/DET/CaloX", calo, "{\"payload\":\"i:Int32\"}"));
        refused(403, "conditions.lock", client.json("PUT", "/write/v1/locks/BAD-LOCKED",
                issuer.token("writer", "conditions.write:/DET/Calo"), "{\"status\":\"unlocked\"}"));
        refused(400, "field 'i'", csv("/DET/Calo/Bad", calo, "channel,since,until,i\n2,0,10,notanumber\n"));
        refused(400, "expected 4 columns", csv("/DET/Calo/Bad", calo, "channel,since,until,i\n2,0,10\n"));
        refused(400, "line 3", csv("/DET/Calo/Bad", calo, "channel,since,until,i\n2,0,10,1\nx,0,10,1\n"));
        refused(400, "lower than until", csv("/DET/Calo/Bad", calo, "channel,since,until,i\n2,10,10,1\n"));
        refused(400, "not valid JSON", client.json("POST", "/write/v1/iovs/DET/Calo/Bad", calo, "[{\"channel\":"));
        refused(400, "whole number", client.json("POST", "/write/v1/iovs/DET/Calo/Bad", calo,
                "[{\"channel\":\"two\",\"since\":0,\"until\":5,\"payload\":{\"i\":1}}]"));
        refused(400, "no IOVs", csv("/DET/Calo/Bad", calo, "channel,since,until,i\n"));
        // columns are matched by their names: unknown, missing or repeated ones refuse the body (no value can land
        // in the wrong field)
        refused(400, "line 1: unknown column 'chan'", csv("/DET/Calo/Bad", calo, "chan,since,until,i\n2,0,10,1\n"));
        refused(400, "line 1: missing column i", csv("/DET/Calo/Bad", calo, "channel,since,until\n2,0,10\n"));
        refused(400, "line 1: column 'since' appears twice", csv("/DET/Calo/Bad", calo,
                "channel,since,since,until,i\n2,0,0,10,1\n"));
        refused(400, "RUN/LUMI is for run-lumi folders", client.json("POST", "/write/v1/truncations/DET/Calo/Bad", calo,
                "{\"until\":\"300/0\"}"));
        refused(400, "unknown payload field 'j'", client.json("POST", "/write/v1/iovs/DET/Calo/Bad", calo,
                "[{\"channel\":2,\"since\":0,\"until\":5,\"payload\":{\"j\":1}}]"));
        refused(415, "text/csv", client.send("POST", "/write/v1/iovs/DET/Calo/Bad", calo, "application/xml",
                "<x/>".getBytes(StandardCharsets.UTF_8)));
        refused(409, "locked", client.send("POST", "/write/v1/iovs/DET/Calo/Bad?userTag=BAD-LOCKED", calo, "text/csv",
                "channel,since,until,i\n5,0,10,1\n".getBytes(StandardCharsets.UTF_8)));
        refused(404, "no folder", csv("/DET/Calo/Nope", calo, "channel,since,until,i\n2,0,10,1\n"));
        refused(404, "no tag", client.json("PUT", "/write/v1/locks/NO-SUCH-TAG", calo, "{\"status\":\"locked\"}"));
        refused(409, "already exists", client.json("POST", "/write/v1/folders/DET/Calo/Bad", calo, "{\"payload\":\"i:Int32\"}"));
        refused(400, "payload", client.json("POST", "/write/v1/folders/DET/Calo/NoPayload", calo, "{}"));
        refused(400, "versioning", client.json("POST", "/write/v1/folders/DET/Calo/V", calo,
                "{\"payload\":\"i:Int32\",\"versioning\":\"XV\"}"));
        refused(400, "not valid JSON", client.json("POST", "/write/v1/tags/DET/Calo/Bad", calo, "{\"tag\":"));
        refused(400, "asOf", client.json("POST", "/write/v1/tags/DET/Calo/Bad", calo, "{\"tag\":\"T2\",\"asOf\":\"yesterday\"}"));
        StringBuilder big = new StringBuilder("channel,since,until,i\n");
        for (int i = 0; big.length() < 70_000; i++) {
            big.append(i).append(",0,10,1\n");
        }
        refused(413, "larger than the limit", csv("/DET/Calo/Bad", calo, big.toString()));
        assertThat(dump()).as("conditions tables after refused writes").isEqualTo(before);

        HttpResponse<String> audit = client.get("/write/v1/audit?limit=1000", issuer.token("admin", "conditions.audit"));
        String text = audit.body();
        assertThat(text).contains("\"status\":401").contains("\"status\":403").contains("\"status\":409")
                .contains("\"status\":413").contains("\"subject\":\"pixel\"");
    }

    /**
     * curl asks first ("Expect: 100-continue") before sending a large body: an upload over the limit is refused
     * before its body is sent, and one within it is asked for and stored.
     */
    @Test
    void anUploadThatAsksFirstIsRefusedOrAskedForBeforeItsBodyIsSent() throws Exception {
        created(client.json("POST", "/write/v1/folders/DET/Calo/Ask", calo,
                "{\"versioning\":\"MV\",\"payload\":\"i:Int32\",\"parents\":true}"));
        String head = "POST /write/v1/iovs/DET/Calo/Ask HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + calo
                + "\r\nContent-Type: text/csv\r\nExpect: 100-continue\r\nContent-Length: ";
        try (java.net.Socket s = new java.net.Socket("127.0.0.1", svc.port())) {
            s.setSoTimeout(30_000);
            s.getOutputStream().write((head + "100000000\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            String answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
            assertThat(answer).as("no body was sent").startsWith("HTTP/1.1 413").contains("larger than the limit");
        }
        byte[] csv = "channel,since,until,i\n1,0,10,7\n".getBytes(StandardCharsets.US_ASCII);
        try (java.net.Socket s = new java.net.Socket("127.0.0.1", svc.port())) {
            s.setSoTimeout(30_000);
            s.getOutputStream().write((head + csv.length + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            java.io.InputStream in = s.getInputStream();
            StringBuilder interim = new StringBuilder();
            while (!interim.toString().endsWith("\r\n\r\n")) {
                int c = in.read();
                assertThat(c).as("the answer so far: " + interim).isNotNegative();
                interim.append((char) c);
            }
            assertThat(interim.toString()).startsWith("HTTP/1.1 100");
            s.getOutputStream().write(csv);
            String answer = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
            assertThat(answer).startsWith("HTTP/1.1 200").contains("\"stored\":1");
        }
    }

    private static byte[] table(Codec codec, AnswerKind kind, String folder, List<Column> columns,
                                Object[]... rows) {
        AnswerEncoder e = new AnswerEncoder(codec, 1);
        e.begin(kind, folder, "", 0, 0, columns);
        for (Object[] r : rows) {
            e.row(r);
        }
        return e.finish();
    }

    private HttpResponse<String> binary(String folder, byte[] body) throws Exception {
        return client.send("POST", "/write/v1/iovs" + folder, calo, WireFormat.CONTENT_TYPE, body);
    }

    @Test
    void binaryBatchesInEveryCodecAreStoredAndDamagedOnesChangeNothing() throws Exception {
        created(client.json("POST", "/write/v1/folders/DET/Calo/Bin", calo,
                "{\"payload\":\"gain:Float,label:String255,raw:Blob64k\",\"parents\":true}"));
        List<Column> columns = List.of(new Column("channel", ColumnType.UINT32), new Column("since", ColumnType.UINT63),
                new Column("until", ColumnType.UINT63), new Column("gain", ColumnType.FLOAT),
                new Column("label", ColumnType.STRING255), new Column("raw", ColumnType.BLOB64K));
        long since = 0;
        for (Codec codec : Codec.values()) {
            HttpResponse<String> r = binary("/DET/Calo/Bin", table(codec, AnswerKind.IOVS, "/DET/Calo/Bin", columns,
                    new Object[] {1L, since, since + 10, 1.5f, "é " + codec, new byte[] {0, 1, 2}},
                    new Object[] {4_000_000_000L, since, since + 10, null, null, null}));
            assertThat(r.statusCode()).as(codec + ": " + r.body()).isEqualTo(200);
            assertThat(body(r).get("stored").asInt()).isEqualTo(2);
            since += 10;
        }
        String rows = svc.getString("/v1/json/browse/HEAD/0/9223372036854775807/all/cs/DET/Calo/Bin");
        assertThat(rows).contains("\"é NONE\"", "\"é ZLIB\"", "\"é ZSTD\"", "4000000000", "\"AAEC\"", "1.5");
        String before = dump();

        byte[] good = table(Codec.ZSTD, AnswerKind.IOVS, "", columns,
                new Object[] {2L, 100L, 200L, 2.5f, "x", new byte[0]});
        byte[] flipped = good.clone();
        flipped[20] ^= 0x40;
        refused(400, "not a whole table", binary("/DET/Calo/Bin", flipped));
        refused(400, "not a whole table", binary("/DET/Calo/Bin", Arrays.copyOf(good, good.length - 5)));
        refused(400, "not a whole table", binary("/DET/Calo/Bin", "OUTPnonsense".getBytes(StandardCharsets.UTF_8)));
        refused(400, "not a whole table", binary("/DET/Calo/Bin", new byte[] {1, 2, 3}));
        refused(400, "folder /DET/Calo/Bin takes (channel UInt32, since UInt63, until UInt63, gain Float",
                binary("/DET/Calo/Bin", table(Codec.NONE, AnswerKind.IOVS, "", columns.subList(0, 3),
                        new Object[] {2L, 100L, 200L})));
        refused(400, "kind", binary("/DET/Calo/Bin", table(Codec.NONE, AnswerKind.COUNT, "",
                List.of(new Column("count", ColumnType.UINT63)), new Object[] {1L})));
        refused(400, "the URL names '/DET/Calo/Bin'", binary("/DET/Calo/Bin", table(Codec.NONE,
                AnswerKind.IOVS, "/DET/Calo/Other", columns, new Object[] {2L, 100L, 200L, 2.5f, "x", null})));
        refused(400, "since is NULL", binary("/DET/Calo/Bin", table(Codec.NONE, AnswerKind.IOVS, "", columns,
                new Object[] {2L, null, 200L, 2.5f, "x", null})));
        refused(409, "overlap", binary("/DET/Calo/Bin", table(Codec.ZLIB, AnswerKind.IOVS, "", columns,
                new Object[] {1L, 5L, 15L, 2.5f, "x", null})));
        assertThat(dump()).as("conditions tables after refused binary batches").isEqualTo(before);
    }

    private static void refused(int status, String message, HttpResponse<String> r) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("application/problem+json"));
        assertThat(r.headers().firstValue("Cache-Control")).hasValue("no-store");
        assertThat(body(r).get("detail").asString()).contains(message);
    }

    @Test
    void aRetryWithTheSameIdempotencyKeyStoresOnce() throws Exception {
        created(client.json("POST", "/write/v1/folders/DET/Calo/Idem", calo, "{\"payload\":\"i:Int32\",\"parents\":true}"));
        String rows = "channel,since,until,i\n1,0,10,1\n1,10,20,2\n";
        HttpResponse<String> first = csv("/DET/Calo/Idem", calo, rows, "Idempotency-Key", "upload-42");
        HttpResponse<String> again = csv("/DET/Calo/Idem", calo, rows, "Idempotency-Key", "upload-42");
        assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
        assertThat(again.statusCode()).isEqualTo(200);
        assertThat(again.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(again.body()).isEqualTo(first.body());
        assertThat(svc.get("/v1/json/count/HEAD/0/9223372036854775807/all/DET/Calo/Idem").body())
                .asString(StandardCharsets.UTF_8).contains("2");
        refused(422, "different request", csv("/DET/Calo/Idem", calo, "channel,since,until,i\n2,0,10,1\n",
                "Idempotency-Key", "upload-42"));
        // without a key, the same batch is a second write and overlaps the first
        refused(409, "overlap", csv("/DET/Calo/Idem", calo, rows));
    }

    @Test
    void theOpenApiDescriptionListsEveryWriteEndpoint() throws Exception {
        JsonNode paths = JSON.readTree(svc.getString("/v3/api-docs")).get("paths");
        for (String p : List.of("foldersets/{folder}", "folders/{folder}", "channels/{folder}", "iovs/{folder}",
                "tags/{folder}", "locks/{tag}", "relations", "tag-deletions/{folder}", "truncations/{folder}", "audit")) {
            assertThat(paths.has("/write/v1/" + p)).as(p).isTrue();
        }
        assertThat(paths.get("/write/v1/iovs/{folder}").get("post").get("requestBody").get("content")
                .has(WireFormat.CONTENT_TYPE)).isTrue();
    }

    @Test
    void writesAreRefusedWhenNoIssuerIsConfigured() throws Exception {
        Path other = TempDirs.create("outpost-nowrite");
        try (RunningService off = RunningService.start("jdbc:sqlite:" + other.resolve("o.db"), "--outpost.demo-data=false")) {
            HttpResponse<String> r = new WriteClient(off.url("")).json("POST", "/write/v1/folders/A/B", calo,
                    "{\"payload\":\"i:Int32\",\"parents\":true}");
            refused(403, "writes are disabled", r);
            assertThat(off.getString("/v1/json/nodes")).doesNotContain("/A/B");
            assertThat(off.get("/v1/json/nodes").statusCode()).isEqualTo(200);
        } finally {
            try (Stream<Path> files = Files.walk(other)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
