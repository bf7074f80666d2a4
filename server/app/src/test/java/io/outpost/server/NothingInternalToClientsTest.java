package io.outpost.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.frontier.protocol.P1Codec;
import io.outpost.server.support.RunningService;
import io.outpost.server.support.ServerLogCapture;
import io.outpost.server.support.WriteClient;
import io.outpost.store.IovStore;
import io.outpost.store.demo.DemoData;
import io.outpost.testkit.TokenIssuer;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A failure inside the service reaches an anonymous client as fixed words and an id, never as the exception's class,
 * message or the database's words (which once carried a table's DDL); the id finds the server log line with the
 * whole exception. The fault is real: a table renamed behind the service's back.
 */
class NothingInternalToClientsTest {
    private static final long T = DemoData.T0 + 7 * DemoData.HOUR + 3;
    private static final Pattern ID = Pattern.compile("id=([0-9a-f]+)");
    /** The database's and Java's words, and where the database lives. */
    private static final List<String> INTERNAL = List.of("sqlite", "no such table", "exception", "error:", "java.",
            "org.", "io.outpost", ".db");

    @Test
    void aTableGoneBehindTheServicesBackIsReportedByAnIdOnly() throws Exception {
        // rows not held in memory: every native read asks the database
        try (TokenIssuer issuer = new TokenIssuer();
             RunningService svc = RunningService.startSqliteDemo("--outpost.rows.enabled=false",
                     "--outpost.write.issuer-uri=" + issuer.issuerUri(), "--outpost.write.audience=" + TokenIssuer.AUDIENCE);
             ServerLogCapture log = new ServerLogCapture()) {
            String url = svc.context().getEnvironment().getProperty("outpost.database.url");
            String table = svc.bean(IovStore.class).folder("/DEMO/Calo/Pedestals").iovTable();
            try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
                s.execute("ALTER TABLE " + table + " RENAME TO " + table + "_MOVED");
            }

            HttpResponse<byte[]> nativeRead = svc.get("/v1/json/at/HEAD/" + T + "/all/DEMO/Calo/Pedestals");
            assertThat(nativeRead.statusCode()).isEqualTo(503);
            assertThat(nativeRead.headers().firstValue("Content-Type")).hasValue("application/problem+json");
            assertReportedByIdOnly(new String(nativeRead.body(), StandardCharsets.UTF_8), log);

            HttpResponse<byte[]> frontier = svc.get("/Outpost/Frontier/type=frontier_request:1:DEFAULT&encoding=BLOB&p1="
                    + P1Codec.encode("SELECT CHANNEL_ID, IOV_SINCE FROM " + table + " ORDER BY CHANNEL_ID"),
                    "X-Frontier-Id", "outpost-test 1.0");
            String answer = new String(frontier.body(), StandardCharsets.ISO_8859_1);
            assertThat(answer).contains("error=\"1\"").contains("failed");
            assertReportedByIdOnly(answer.replace("<?xml version=\"1.0\"", ""), log);

            // the write API's callers are known, but the database's words are not for them either
            HttpResponse<String> write = new WriteClient(svc.url("")).send("POST", "/write/v1/iovs/DEMO/Calo/Pedestals",
                    issuer.token("calo-team", "conditions.write:/DEMO"), "text/csv",
                    "channel,since,until,mean,rms,nsamples\n1,0,100,1.5,0.5,10\n".getBytes(StandardCharsets.UTF_8));
            assertThat(write.statusCode()).as(write.body()).isEqualTo(503);
            assertReportedByIdOnly(write.body(), log);
        }
    }

    /** The answer names an id, holds nothing internal, and the log has that id's line with the exception. */
    private static void assertReportedByIdOnly(String answer, ServerLogCapture log) {
        for (String word : INTERNAL) {
            assertThat(answer).as(answer).doesNotContainIgnoringCase(word);
        }
        Matcher m = ID.matcher(answer);
        assertThat(m.find()).as("an id in: " + answer).isTrue();
        Pattern line = Pattern.compile("\\bid=" + m.group(1) + "\\b");
        assertThat(log.lines()).as("the log line of " + m.group()).anySatisfy(l -> {
            assertThat(line.matcher(l.message()).find()).isTrue();
            assertThat(l.exception()).isNotNull();
        });
    }
}
