package io.outpost.integration;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.frontier.protocol.P1Codec;
import io.outpost.testkit.MariaDbServer;
import io.outpost.testkit.PostgresServer;
import io.outpost.testkit.SquidProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * CMS conditions through a real Squid: the service configured with three Frontier contexts of the
 * {@code cms-conddb-v2} profile, on SQLite, a real PostgreSQL and a real MariaDB, each holding the CMS CondDB v2
 * tables;
 * a CMSSW job's statements (as CORAL's Frontier plugin sends them) are answered, cached by Squid and served as hits.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CmsThroughSquidTest {
    private static final String IOVS = "SELECT \"IOV\".\"SINCE\", \"IOV\".\"PAYLOAD_HASH\" FROM \"CMS_CONDITIONS\".\"IOV\" "
            + "\"IOV\" WHERE \"IOV\".\"TAG_NAME\" = 'BeamSpot_v1'  ORDER BY \"IOV\".\"SINCE\", \"IOV\".\"INSERTION_TIME\" "
            + "DESC\n";
    private static final String PAYLOAD = "SELECT \"PAYLOAD\".\"DATA\", \"PAYLOAD\".\"STREAMER_INFO\", "
            + "\"PAYLOAD\".\"OBJECT_TYPE\" FROM \"CMS_CONDITIONS\".\"PAYLOAD\" \"PAYLOAD\" WHERE \"PAYLOAD\".\"HASH\" = "
            + "'2222222222222222222222222222222222222222' \n";
    private static final String COLUMNS = "SELECT TABLE_NAME, COLUMN_NAME FROM ALL_TAB_COLUMNS WHERE "
            + "OWNER='CMS_CONDITIONS' ORDER BY TABLE_NAME, COLUMN_ID\n";

    private OutpostServer outpost;
    private SquidProcess squid;
    private HttpClient client;

    @BeforeAll
    void start() throws Exception {
        Assumptions.assumeTrue(SquidProcess.installed(), SquidProcess.NOT_INSTALLED);
        Path lite = TestData.freshDatabase("cms-conddb");
        String liteUrl = "jdbc:sqlite:" + lite.toAbsolutePath();
        load(liteUrl, "", "sqlite");
        String pgUrl = PostgresServer.shared().createDatabase("cms_squid");
        load(pgUrl, "postgres", "postgresql");
        String mariaDbUrl = MariaDbServer.shared().createDatabase("cms_squid");
        load(mariaDbUrl, "root", "mariadb");
        Path main = TestData.freshDatabase("cms-main");
        String c = "--outpost.frontier.contexts.";
        outpost = OutpostServer.start(main, 0,
                c + "CMSlite.url=" + liteUrl, c + "CMSlite.settings.Profile=cms-conddb-v2",
                c + "CMSlite.settings.SchemaName=CMS_CONDITIONS",
                c + "CMSpg.url=" + pgUrl, c + "CMSpg.user=postgres", c + "CMSpg.settings.Profile=cms-conddb-v2",
                c + "CMSpg.settings.SchemaName=CMS_CONDITIONS",
                c + "CMSmaria.url=" + mariaDbUrl, c + "CMSmaria.user=root",
                c + "CMSmaria.settings.Profile=cms-conddb-v2",
                c + "CMSmaria.settings.SchemaName=CMS_CONDITIONS");
        squid = Layout.startSquid("cms-squid", "--outpost", outpost.baseUrl());
        client = squid.client();
    }

    @AfterAll
    void stop() {
        if (squid != null) {
            squid.close();
        }
        if (outpost != null) {
            outpost.close();
        }
    }

    /** The CMS schema and sample data shared with the Frontier module's tests. */
    private static void load(String url, String user, String dialect) throws Exception {
        Path script = Layout.repo().resolve("server/frontier/src/test/resources/cms/conddb-v2-" + dialect + ".sql");
        try (Connection c = DriverManager.getConnection(url, user, ""); Statement st = c.createStatement()) {
            for (String sql : Files.readString(script).split(";\\s*\\n")) {
                String s = sql.lines().filter(l -> !l.startsWith("--")).reduce("", (x, y) -> x + "\n" + y).strip();
                if (!s.isEmpty()) {
                    st.execute(s);
                }
            }
        }
    }

    private HttpResponse<String> get(String path) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create(outpost.baseUrl() + path)).timeout(Duration.ofSeconds(30))
                .header("X-Frontier-Id", "CMSSW_14_0_7 1234 cmsuser").build(), HttpResponse.BodyHandlers.ofString());
    }

    @ParameterizedTest
    @ValueSource(strings = {"CMSlite", "CMSpg", "CMSmaria"})
    void conditionsStatementsAreAnsweredCachedAndServedAsHits(String context) throws Exception {
        for (String[] q : new String[][] {{IOVS, "4"}, {PAYLOAD, "1"}, {COLUMNS, "29"}}) {
            String path = "/" + context + "/Frontier/type=frontier_request:1:DEFAULT&encoding=BLOBzip5&p1="
                    + P1Codec.encode(q[0]);
            HttpResponse<String> first = get(path);
            HttpResponse<String> second = get(path);
            assertThat(first.statusCode()).isEqualTo(200);
            assertThat(first.body()).contains("<quality error=\"0\"").contains("records=\"" + q[1] + "\"");
            assertThat(first.headers().firstValue("Cache-Control").orElse("")).startsWith("max-age=");
            assertThat(second.body()).isEqualTo(first.body());
            assertThat(second.headers().firstValue("X-Cache").orElse("")).startsWith("HIT");
            assertThat(outpost.requests().count(path)).as("requests reaching Outpost for " + q[0]).isEqualTo(1);
        }
    }
}
