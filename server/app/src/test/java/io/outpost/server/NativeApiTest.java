package io.outpost.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.server.cache.Catalog;
import io.outpost.server.support.RunningService;
import io.outpost.server.support.WireDecoder;
import io.outpost.store.IovStore;
import io.outpost.store.demo.DemoData;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.Node;
import io.outpost.store.model.ValidityKey;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The native API over real HTTP against the service on its embedded SQLite demo database. */
class NativeApiTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final long T = DemoData.T0 + 3 * DemoData.HOUR + 17;
    private static RunningService svc;

    @BeforeAll
    static void start() throws Exception {
        svc = RunningService.startSqliteDemo();
    }

    @AfterAll
    static void stop() {
        svc.close();
    }

    private static JsonNode json(HttpResponse<byte[]> r) {
        return JSON.readTree(new String(r.body(), StandardCharsets.UTF_8));
    }

    @Test
    void atQueryReturnsOneRowPerChannelWithValidityHeaders() throws Exception {
        HttpResponse<byte[]> r = svc.get("/v1/json/at/HEAD/" + T + "/all/DEMO/Calo/Pedestals");
        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode body = json(r);
        assertThat(body.get("rowCount").asInt()).isEqualTo(16);
        assertThat(body.get("rows").get(0).get(1).asLong()).isEqualTo(DemoData.T0 + 3 * DemoData.HOUR);
        assertThat(r.headers().firstValue("X-Outpost-Valid-Since")).hasValue(Long.toString(DemoData.T0 + 3 * DemoData.HOUR));
        assertThat(r.headers().firstValue("X-Outpost-Valid-Until")).hasValue(Long.toString(DemoData.T0 + 4 * DemoData.HOUR));
        assertThat(r.headers().firstValue("Content-Length")).hasValue(Integer.toString(r.body().length));
        assertThat(r.headers().firstValue("Transfer-Encoding")).isEmpty();
        assertThat(r.headers().firstValue("ETag")).isPresent();
        assertThat(r.headers().firstValue("Cache-Control")).hasValue("public, max-age=300");
    }

    @Test
    void binaryAnswerCarriesTheSameRowsAsJson() throws Exception {
        String q = "/browse/HEAD/0/9223372036854775807/1-3/cs/DEMO/DCS/HV";
        WireDecoder.Table bin = WireDecoder.decode(svc.get("/v1/bin" + q).body());
        JsonNode json = json(svc.get("/v1/json" + q));
        assertThat(bin.rows()).hasSize(json.get("rowCount").asInt()).hasSize(3 * 24);
        assertThat(bin.columns()).extracting(WireDecoder.Column::name)
                .containsExactly("channel", "since", "until", "voltage", "current", "ok", "label");
        assertThat(bin.rows().get(5).get(6)).isEqualTo(json.get("rows").get(5).get(6).asString());
        assertThat((Boolean) bin.rows().get(5).get(5)).isEqualTo(json.get("rows").get(5).get(5).asBoolean());
    }

    /** /v1/binz/… is the binary answer in zlib (codec 1) whatever the configured codec: same rows, own URL. */
    @Test
    void binzAnswersInZlibWithTheSameRows() throws Exception {
        String q = "/browse/HEAD/0/9223372036854775807/1-3/cs/DEMO/DCS/HV";
        byte[] zlib = svc.get("/v1/binz" + q).body();
        byte[] configured = svc.get("/v1/bin" + q).body();
        assertThat(zlib[5]).as("codec byte: zlib").isEqualTo((byte) 1);
        assertThat(configured[5]).as("codec byte: zstd, the default").isEqualTo((byte) 2);
        assertThat(WireDecoder.decode(zlib).rows()).isEqualTo(WireDecoder.decode(configured).rows());
        java.util.zip.Inflater inflater = new java.util.zip.Inflater();
        inflater.setInput(zlib, 16, zlib.length - 32);
        byte[] content = new byte[1 << 20];
        assertThat(inflater.inflate(content)).as("a plain zlib stream").isPositive();
        assertThat(inflater.finished()).isTrue();
        inflater.end();
        assertThat(svc.get("/v1/binx" + q).statusCode()).isEqualTo(400);
    }

    /** A folder path percent-encoded as one segment, as generated clients send it: redirected, not Tomcat's 400. */
    @Test
    void anEncodedFolderPathIsRedirectedToTheCanonicalUrl() throws Exception {
        for (String encoded : new String[] {"DEMO%2FCalo%2FPedestals", "DEMO%2fCalo%2fPedestals"}) {
            HttpResponse<byte[]> r = svc.get("/v1/json/channels/" + encoded);
            assertThat(r.statusCode()).as(encoded).isEqualTo(301);
            assertThat(r.headers().firstValue("Location")).hasValue("/v1/json/channels/DEMO/Calo/Pedestals");
        }
        HttpResponse<byte[]> r = svc.get("/v1/json/at/HEAD/1/all/%2FDEMO%2FNope");
        assertThat(r.headers().firstValue("Content-Type").orElse("")).as("a problem, not Tomcat's page")
                .startsWith("application/problem+json");
    }

    @Test
    void countsTagsChannelsNodesAndTagResolution() throws Exception {
        assertThat(json(svc.get("/v1/json/count/HEAD/0/9223372036854775807/all/DEMO/Calo/Pedestals")).get("rows").get(0).get(0)
                .asLong()).isEqualTo(16 * 48);
        assertThat(json(svc.get("/v1/json/channels/DEMO/DCS/HV")).get("rows").get(2).get(1).asString()).isEqualTo("HV_C");
        assertThat(json(svc.get("/v1/json/tags/DEMO/Calo/Gains")).get("rowCount").asInt()).isEqualTo(3);
        assertThat(json(svc.get("/v1/json/nodes")).get("rowCount").asInt()).isGreaterThanOrEqualTo(7);
        JsonNode resolved = json(svc.get("/v1/json/tag/DEMO-2026/DEMO/Calo/Gains"));
        assertThat(resolved.get("rows").get(0).get(0).asString()).isEqualTo("GAINS-v2");
        long run301 = ValidityKey.fromRunLumi(301, 5);
        JsonNode viaParent = json(svc.get("/v1/json/at/DEMO-2026/" + run301 + "/2/DEMO/Calo/Gains"));
        JsonNode direct = json(svc.get("/v1/json/at/GAINS-v2/" + run301 + "/2/DEMO/Calo/Gains"));
        assertThat(viaParent.get("rows")).isEqualTo(direct.get("rows"));
        assertThat(direct.get("rows").get(0).get(5).asString()).isEqualTo("recalibrated runs 301-302");
        JsonNode v1 = json(svc.get("/v1/json/at/GAINS-v1/" + run301 + "/2/DEMO/Calo/Gains"));
        assertThat(v1.get("rows").get(0).get(5).asString()).isEqualTo("initial");
    }

    @Test
    void lockedTagAnswersAreImmutableForAYear() throws Exception {
        HttpResponse<byte[]> r = svc.get("/v1/json/at/GAINS-v1/" + ValidityKey.fromRunLumi(301, 0) + "/all/DEMO/Calo/Gains");
        assertThat(r.headers().firstValue("Cache-Control")).hasValue("public, max-age=31536000, immutable");
        HttpResponse<byte[]> head = svc.get("/v1/json/at/HEAD/" + ValidityKey.fromRunLumi(310, 0) + "/all/DEMO/Calo/Gains");
        assertThat(head.headers().firstValue("Cache-Control")).hasValue("public, max-age=60");
    }

    @Test
    void nonCanonicalSpellingsRedirectToTheOneCanonicalUrl() throws Exception {
        String folder = "/DEMO/Calo/Pedestals";
        String[][] cases = {
            {"/v1/json/at/HEAD/007/all" + folder, "/v1/json/at/HEAD/7/all" + folder},
            {"/v1/json/at/HEAD/7/5-5" + folder, "/v1/json/at/HEAD/7/5" + folder},
            {"/v1/json/at/HEAD/7/9,1-3,4" + folder, "/v1/json/at/HEAD/7/1-4,9" + folder},
            {"/v1/json/at/HEAD/7/all" + folder + "/", "/v1/json/at/HEAD/7/all" + folder},
            {"/v1/json/at/HEAD/7/name:HV%5fA/DEMO/DCS/HV", "/v1/json/at/HEAD/7/name:HV_A/DEMO/DCS/HV"},
        };
        for (String[] c : cases) {
            HttpResponse<byte[]> r = svc.get(c[0]);
            assertThat(r.statusCode()).as(c[0]).isEqualTo(301);
            assertThat(r.headers().firstValue("Location")).as(c[0]).hasValue(c[1]);
        }
        assertThat(svc.get("/v1/json/at/HEAD/7/all" + folder).statusCode()).isEqualTo(200);
    }

    @Test
    void badInputGetsA4xxProblemThatNoCacheKeeps() throws Exception {
        Object[][] cases = {
            {"/v1/json/browse/HEAD/20/10/all/cs/DEMO/Calo/Pedestals", 400, "is after last key"},
            {"/v1/json/at/HEAD/9223372036854775808/all/DEMO/Calo/Pedestals", 400, "over the largest key"},
            {"/v1/json/at/HEAD/-1/all/DEMO/Calo/Pedestals", 400, "decimal number"},
            // a key as a person writes it: the refusal says how a URL writes it, and which number it stands for
            {"/v1/json/at/HEAD/2026-01-01T01:00:00Z/all/DEMO/Calo/Pedestals", 400,
                "ns since the epoch (2026-01-01T01:00:00Z → 1767229200000000000)"},
            {"/v1/json/at/HEAD/302:0/all/DEMO/Calo/Gains", 400, "(RUN << 32) | LUMI (302/0 → 1297080123392);"
                + " '302:0' is 1297080123392"},
            {"/v1/json/browse/HEAD/0/2026-01-02/all/cs/DEMO/Calo/Pedestals", 400, "'2026-01-02' is 1767312000000000000"},
            {"/v1/json/snapshot/HEAD/300:0", 400, "'300:0' is 1288490188800"},
            {"/v1/json/at/HEAD/1/all/DEMO/Nope", 404, "no folder"},
            {"/v1/json/at/NO-SUCH/1/all/DEMO/Calo/Gains", 404, "no tag"},
            {"/v1/json/at/GAINS-v1/1/all/DEMO/Calo/Pedestals", 404, "single-version"},
            {"/v1/json/count/HEAD/0/9/name:nope/DEMO/DCS/HV", 404, "no channel named"},
            {"/v1/json/tag/HEAD/DEMO/Calo/Gains", 400, "HEAD is not a tag"},
            {"/v1/json/tag/GAINS-v1/DEMO/Calo/Pedestals", 404, "not '/DEMO/Calo/Pedestals' or one of its parents"},
            {"/v1/json/at/HEAD/1/name:nope/DEMO/DCS/HV", 404, "no channel named"},
            {"/v1/xml/at/HEAD/1/all/DEMO/DCS/HV", 400, "bin, binz or json"},
            {"/v1/json/at/HEAD/1/3-1/DEMO/DCS/HV", 400, "N <= M"},
            {"/v1/json/browse/HEAD/1/2/all/zz/DEMO/DCS/HV", 400, "order"},
            {"/v1/json/channels/DEMO", 404, "folderset"},
            {"/v1/json/at/HEAD/1/all/DEMO/DCS/HV?x=1", 400, "path"},
        };
        for (Object[] c : cases) {
            HttpResponse<byte[]> r = svc.get((String) c[0]);
            assertThat(r.statusCode()).as((String) c[0]).isEqualTo(c[1]);
            assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
            assertThat(json(r).get("detail").asString()).as((String) c[0]).contains((String) c[2]);
            assertThat(r.headers().firstValue("Cache-Control")).hasValue("public, max-age=5");
            assertThat(r.headers().firstValue("Last-Modified")).hasValue("Thu, 01 Jan 1970 00:00:00 GMT");
        }
        HttpResponse<byte[]> tooLong = svc.get("/v1/json/at/HEAD/1/" + "1,".repeat(9000) + "3/DEMO/DCS/HV");
        assertThat(tooLong.statusCode()).isEqualTo(414);
    }

    @Test
    void conditionalRequestsGet304WithoutADatabaseQuery() throws Exception {
        String path = "/v1/bin/at/HEAD/" + (T + 1) + "/all/DEMO/Calo/Pedestals";
        HttpResponse<byte[]> first = svc.get(path);
        String etag = first.headers().firstValue("ETag").orElseThrow();
        String lastModified = first.headers().firstValue("Last-Modified").orElseThrow();
        double loads = svc.metric("outpost_cache_loads_total");
        HttpResponse<byte[]> byEtag = svc.get(path, "If-None-Match", etag);
        assertThat(byEtag.statusCode()).isEqualTo(304);
        assertThat(byEtag.body()).isEmpty();
        HttpResponse<byte[]> byDate = svc.get(path, "If-Modified-Since", lastModified);
        assertThat(byDate.statusCode()).isEqualTo(304);
        HttpResponse<byte[]> otherEtag = svc.get(path, "If-None-Match", "\"something-else\"");
        assertThat(otherEtag.statusCode()).isEqualTo(200);
        assertThat(svc.metric("outpost_cache_loads_total")).isEqualTo(loads);
    }

    @Test
    void noStoreRequestsAreAnsweredButNotKept() throws Exception {
        String path = "/v1/bin/at/HEAD/" + (T + 7) + "/all/DEMO/Calo/Pedestals";
        double loads = svc.metric("outpost_cache_loads_total");
        HttpResponse<byte[]> first = svc.get(path, "Cache-Control", "no-store");
        HttpResponse<byte[]> second = svc.get(path, "Cache-Control", "no-store");
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(second.body()).isEqualTo(first.body());
        assertThat(second.headers().firstValue("ETag")).isEqualTo(first.headers().firstValue("ETag"));
        // neither answer was kept: an ordinary request loads it once more, and only then is it kept
        HttpResponse<byte[]> plain = svc.get(path);
        assertThat(plain.body()).isEqualTo(first.body());
        svc.get(path);
        assertThat(svc.metric("outpost_cache_loads_total") - loads).isEqualTo(3.0);
    }

    @Test
    void maxStaleRequestsAreOfferedStaleIfError() throws Exception {
        HttpResponse<byte[]> r = svc.get("/v1/json/at/HEAD/" + T + "/all/DEMO/Calo/Pedestals", "Cache-Control", "max-stale=3600");
        assertThat(r.headers().firstValue("Cache-Control")).hasValue("public, max-age=300, stale-if-error=86400");
    }

    @Test
    void aWriteChangesTheGenerationEtagAndAnswer() throws Exception {
        IovStore store = svc.bean(IovStore.class);
        Node f = store.createFolder("/TEST/live", io.outpost.store.model.Versioning.SINGLE_VERSION,
                io.outpost.store.model.KeyType.TIME, io.outpost.store.model.PayloadSpec.parse("x:Int32"), "", true);
        store.store(f, List.of(new NewIov(1, 0, ValidityKey.MAX, 1)));
        svc.bean(Catalog.class).refresh();
        String path = "/v1/json/at/HEAD/100/all/TEST/live";
        HttpResponse<byte[]> before = svc.get(path);
        assertThat(json(before).get("rows").get(0).get(3).asInt()).isEqualTo(1);
        assertThat(before.headers().firstValue("Cache-Control")).hasValue("public, max-age=60");
        store.store(f, List.of(new NewIov(1, 50, ValidityKey.MAX, 2)));
        svc.bean(Catalog.class).refresh();
        HttpResponse<byte[]> after = svc.get(path);
        assertThat(json(after).get("rows").get(0).get(3).asInt()).isEqualTo(2);
        assertThat(after.headers().firstValue("ETag")).isNotEqualTo(before.headers().firstValue("ETag"));
        assertThat(svc.get(path, "If-None-Match", before.headers().firstValue("ETag").orElseThrow()).statusCode()).isEqualTo(200);
    }

    @Test
    void hundredConcurrentIdenticalColdRequestsCauseOneDatabaseQuery() throws Exception {
        String path = "/v1/bin/browse/HEAD/0/9223372036854775807/all/cs/DEMO/DCS/HV";
        double before = svc.metric("outpost_cache_loads_total");
        var pool = java.util.concurrent.Executors.newFixedThreadPool(100);
        var start = new java.util.concurrent.CountDownLatch(1);
        List<java.util.concurrent.Future<Integer>> results = new java.util.ArrayList<>();
        for (int i = 0; i < 100; i++) {
            results.add(pool.submit(() -> {
                start.await();
                return svc.get(path).statusCode();
            }));
        }
        start.countDown();
        for (var f : results) {
            assertThat(f.get()).isEqualTo(200);
        }
        pool.shutdown();
        assertThat(svc.metric("outpost_cache_loads_total") - before).isEqualTo(1.0);
    }

    @Test
    void operationsEndpointsAnswer() throws Exception {
        assertThat(svc.getString("/actuator/health")).contains("\"status\":\"UP\"");
        String prom = svc.getString("/actuator/prometheus");
        assertThat(prom).contains("outpost_cache_loads_total", "hikaricp_connections", "outpost_query_time_seconds",
                "cache_gets_total", "outpost_singleflight_joins_total");
        assertThat(json(svc.get("/v3/api-docs")).get("openapi").asString()).startsWith("3.");
    }

    /** The OpenAPI document names the endpoints the README shows first, and every answer it lists has a schema. */
    @Test
    void theOpenApiDocumentDescribesEveryAnswer() throws Exception {
        JsonNode doc = json(svc.get("/v3/api-docs"));
        assertThat(doc.get("paths").propertyNames()).contains("/v1/{format}/globaltags", "/v1/{format}/resolve/{globaltag}",
                "/v1/{format}/state/{globaltag}", "/v1/{format}/snapshot/{globaltag}/{t}", "/v1/{format}/nodes",
                "/write/v1/iovs/{folder}");
        int described = 0;
        for (JsonNode path : doc.get("paths")) {
            for (JsonNode op : path) {
                for (JsonNode response : op.get("responses")) {
                    JsonNode content = response.get("content");
                    for (String type : content == null ? java.util.List.<String>of() : content.propertyNames()) {
                        assertThat(content.get(type).has("schema")).as(type + " in " + op.get("summary")).isTrue();
                        described++;
                    }
                }
            }
        }
        assertThat(described).isGreaterThan(100);
        assertThat(doc.at("/components/schemas/Answer/properties/rows").isMissingNode()).isFalse();
    }
}
