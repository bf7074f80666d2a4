package io.outpost.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.server.support.RunningService;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** With the embedded default, /Outpost/Frontier serves the demo database to Frontier clients. */
class FrontierEndpointTest {
    private static RunningService svc;

    @BeforeAll
    static void start() throws Exception {
        svc = RunningService.startSqliteDemo();
    }

    @AfterAll
    static void stop() {
        svc.close();
    }

    /** The Frontier client's encoding of p1 (zlib, URL-safe base64 variant), as the servlet's own codec writes it. */
    private static String p1(String sql) {
        return io.outpost.frontier.protocol.P1Codec.encode(sql);
    }

    @Test
    void demoDatabaseIsServedAtOutpostFrontier() throws Exception {
        String sql = "SELECT NODE_FULLPATH FROM OUTPOST_NODES WHERE NODE_ISLEAF = 1 ORDER BY NODE_FULLPATH";
        HttpResponse<byte[]> r = svc.get("/Outpost/Frontier/type=frontier_request:1:DEFAULT&encoding=BLOB&p1=" + p1(sql),
                "X-Frontier-Id", "outpost-test 1.0");
        assertThat(r.statusCode()).isEqualTo(200);
        String body = new String(r.body(), StandardCharsets.ISO_8859_1);
        assertThat(body).startsWith("<?xml").contains("<frontier version=\"3.42\"").contains("records=\"4\"").contains("<data>");
        assertThat(r.headers().firstValue("Content-Length")).isPresent();
    }

    @Test
    void updateStatementsAreRejectedAsPayloadErrors() throws Exception {
        HttpResponse<byte[]> r = svc.get("/Outpost/Frontier/type=frontier_request:1:DEFAULT&encoding=BLOB&p1="
                + p1("DELETE FROM OUTPOST_NODES"), "X-Frontier-Id", "outpost-test 1.0");
        String body = new String(r.body(), StandardCharsets.ISO_8859_1);
        assertThat(body).contains("error=\"1\"").contains("SQL rejected");
        assertThat(r.headers().firstValue("Last-Modified")).hasValue("Thu, 01 Jan 1970 00:00:00 GMT");
    }

    @Test
    void aRepeatedIovQueryIsServedFromTheAnswerCacheAndCounted() throws Exception {
        String table = svc.bean(io.outpost.store.IovStore.class).folder("/DEMO/Calo/Pedestals").iovTable();
        String path = "/Outpost/Frontier/type=frontier_request:1:DEFAULT&encoding=BLOBzip5&p1="
                + p1("SELECT CHANNEL_ID, IOV_SINCE FROM " + table + " ORDER BY CHANNEL_ID, IOV_SINCE");
        double hits = svc.metric("outpost_frontier_answers_hits_total");
        double kept = answers("kept");
        double database = answers("database");
        double loads = svc.metric("outpost_frontier_answers_loads_total");
        String first = new String(svc.get(path, "X-Frontier-Id", "outpost-test 1.0").body(), StandardCharsets.ISO_8859_1);
        String second = new String(svc.get(path + "&freshkey=1", "X-Frontier-Id", "outpost-test 1.0").body(),
                StandardCharsets.ISO_8859_1);
        assertThat(first).contains("error=\"0\"").contains("records=");
        assertThat(second).isEqualTo(first);
        assertThat(svc.metric("outpost_frontier_answers_loads_total") - loads).isEqualTo(1.0);
        assertThat(svc.metric("outpost_frontier_answers_hits_total") - hits).isEqualTo(1.0);
        assertThat(answers("kept") - kept).as("answers by source: kept").isEqualTo(1.0);
        assertThat(answers("database") - database).as("answers by source: database").isEqualTo(1.0);
    }

    /** COOL's at-time read of a single-version folder is answered from held rows, and counted so. */
    @Test
    void coolsAtTimeReadIsAnsweredFromHeldRowsAndCounted() throws Exception {
        io.outpost.store.model.Node f = svc.bean(io.outpost.store.IovStore.class).folder("/DEMO/Calo/Pedestals");
        String iovs = f.iovTable().toUpperCase(java.util.Locale.ROOT);
        String sql = "SELECT /*+ QB_NAME(MAIN) */ I3.CHANNEL_ID, I3.IOV_SINCE, I3.IOV_UNTIL FROM "
                + f.channelTable().toUpperCase(java.util.Locale.ROOT) + " C2, " + iovs + " I3 WHERE I3.CHANNEL_ID = "
                + "C2.CHANNEL_ID AND I3.IOV_SINCE >= COALESCE((SELECT /*+ QB_NAME(MAX1) */ MAX(I1.IOV_SINCE) FROM " + iovs
                + " I1 WHERE I1.CHANNEL_ID = C2.CHANNEL_ID AND I1.IOV_SINCE <= 9000000000000000000), 9000000000000000000) AND I3.IOV_SINCE <= 9000000000000000000 AND "
                + "I3.IOV_UNTIL > 9000000000000000000 ORDER BY I3.CHANNEL_ID, I3.IOV_SINCE";
        double held = answers("held");
        String path = "/Outpost/Frontier/type=frontier_request:1:DEFAULT&encoding=BLOBzip5&p1=" + p1(sql);
        HttpResponse<byte[]> r = svc.get(path, "X-Frontier-Id", "outpost-test 1.0");
        assertThat(new String(r.body(), StandardCharsets.ISO_8859_1)).contains("error=\"0\"").contains("records=\"16\"");
        assertThat(answers("held") - held).isEqualTo(1.0);
        // its Last-Modified is the folder's, from the stamp the rows are at: a revalidation gets 304
        String lastModified = r.headers().firstValue("Last-Modified").orElseThrow();
        assertThat(lastModified).isNotEqualTo("Thu, 01 Jan 1970 00:00:00 GMT");
        assertThat(svc.get(path + "&freshkey=2", "X-Frontier-Id", "outpost-test 1.0", "If-Modified-Since", lastModified)
                .statusCode()).isEqualTo(304);
    }

    private static double answers(String source) throws Exception {
        return svc.metric("outpost_frontier_answers_total", java.util.regex.Pattern.compile("source=\"" + source + "\""));
    }

    /**
     * A CORAL client on the default start, no configuration ({@code frontier://(serverurl=…/Outpost)/OUTPOST}): the
     * schema exists, and every table the dictionary lists reads whole with CORAL's schema-qualified quoted query.
     * (Types and values, column by column, are checked in the Frontier module's CoralReadsTest.)
     */
    @Test
    void aCoralClientReadsEveryDemoTableWithNoConfiguration() throws Exception {
        assertThat(frontier("SELECT USERNAME FROM ALL_USERS WHERE USERNAME='OUTPOST'\n")).contains("records=\"1\"");
        io.outpost.store.IovStore store = svc.bean(io.outpost.store.IovStore.class);
        java.util.Map<String, Long> rows = store.read(c -> {
            java.util.Map<String, Long> out = new java.util.TreeMap<>();
            try (java.sql.ResultSet rs = c.getMetaData().getTables(null, null, "OUTPOST_%", new String[] {"TABLE"})) {
                while (rs.next()) {
                    out.put(rs.getString("TABLE_NAME").toUpperCase(java.util.Locale.ROOT), 0L);
                }
            }
            for (String t : out.keySet()) {
                try (java.sql.Statement st = c.createStatement();
                     java.sql.ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM " + t)) {
                    rs.next();
                    out.put(t, rs.getLong(1));
                }
            }
            return out;
        });
        String dictionary = frontier("SELECT TABLE_NAME, COLUMN_NAME FROM ALL_TAB_COLUMNS WHERE OWNER='OUTPOST' "
                + "ORDER BY TABLE_NAME, COLUMN_ID\n");
        assertThat(dictionary).contains("error=\"0\"");
        int read = 0;
        for (var e : rows.entrySet()) {
            if (!e.getKey().matches("OUTPOST_(NODES|TAGS|TAG2TAG|NODES_SEQ|TAGS_SEQ|DB_ATTRIBUTES|F[0-9]{4}_.*)")) {
                continue; // the service's own bookkeeping tables are not COOL's and not served
            }
            String t = e.getKey();
            assertThat(frontier("SELECT * FROM \"OUTPOST\".\"" + t + "\" \"" + t + "\"\n")).as(t)
                    .contains("error=\"0\"").contains("records=\"" + e.getValue() + "\"");
            read++;
        }
        assertThat(read).isGreaterThan(10);
    }

    private static String frontier(String sql) throws Exception {
        HttpResponse<byte[]> r = svc.get("/Outpost/Frontier/type=frontier_request:1:DEFAULT&encoding=BLOB&p1=" + p1(sql),
                "X-Frontier-Id", "outpost-test 1.0");
        assertThat(r.statusCode()).isEqualTo(200);
        return new String(r.body(), StandardCharsets.ISO_8859_1);
    }
}
