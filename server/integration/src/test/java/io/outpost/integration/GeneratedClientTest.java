package io.outpost.integration;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.outpost.integration.openapi.api.DefaultApi;
import io.outpost.integration.openapi.client.ApiClient;
import io.outpost.integration.openapi.model.Answer;
import io.outpost.integration.openapi.model.CreateFolderRequest;
import io.outpost.integration.openapi.model.WriteSummary;
import io.outpost.store.IovStore;
import io.outpost.store.demo.DemoData;
import io.outpost.store.model.ValidityKey;
import io.outpost.testkit.TokenIssuer;
import java.lang.reflect.Method;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The client OpenAPI Generator makes at build time from the service's own document (server/app's openapi.json, the
 * one /v3/api-docs serves; see this module's pom) reads the demo data and writes with a token against the real
 * service. Its JSON reader here refuses members the document does not name, and every member the document marks
 * required must be in each answer: a path, member or type the document names otherwise than the service fails.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GeneratedClientTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String PEDESTALS = "DEMO/Calo/Pedestals";
    private static final long T = DemoData.T0 + 5 * DemoData.HOUR + 17;
    private static final long RUN_301 = ValidityKey.fromRunLumi(DemoData.FIRST_RUN + 1, 0);

    private Path db;
    private TokenIssuer issuer;
    private OutpostServer outpost;
    private JsonNode document;
    private DefaultApi api;

    @BeforeAll
    void start() throws Exception {
        db = TestData.freshDatabase("openapi-client");
        try (IovStore store = TestData.open(db)) {
            DemoData.load(store);
        }
        issuer = new TokenIssuer();
        outpost = OutpostServer.start(db, 0, "--outpost.write.issuer-uri=" + issuer.issuerUri(),
                "--outpost.write.audience=" + TokenIssuer.AUDIENCE);
        document = JSON.readTree(Layout.repo().resolve("server/app/src/main/resources/openapi.json").toFile());
        api = new DefaultApi(client(null));
    }

    @AfterAll
    void stop() {
        if (outpost != null) {
            outpost.close();
        }
        if (issuer != null) {
            issuer.close();
        }
    }

    @Test
    void theDocumentIsTheOneTheServiceServes() throws Exception {
        HttpResponse<byte[]> served = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create(outpost.baseUrl() + "/v3/api-docs")).build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertThat(served.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(served.body())).isEqualTo(document);
    }

    @Test
    void readsTheDemoData() throws Exception {
        Answer nodes = conforming(api.listNodes("json"));
        assertThat(nodes.getKind()).isEqualTo(Answer.KindEnum.NODES);
        assertThat(column(nodes, "path")).contains("/DEMO/Calo/Pedestals", "/DEMO/Calo/Gains");

        Answer channels = conforming(api.listChannels("json", PEDESTALS));
        assertThat(channels.getRowCount()).isEqualTo(16);

        Answer tags = conforming(api.listTags("json", "DEMO/Calo/Gains"));
        assertThat(column(tags, "name")).contains("GAINS-v1", "GAINS-v2");
        conforming(api.resolveTag("json", "GAINS-v2", "DEMO/Calo/Gains"));

        Answer at = conforming(api.readAt("json", "HEAD", Long.toString(T), "all", PEDESTALS));
        assertThat(at.getFolder()).isEqualTo("/DEMO/Calo/Pedestals");
        assertThat(at.getRowCount()).isEqualTo(16);
        assertThat(at.getValidSince()).isLessThanOrEqualTo(T);
        assertThat(at.getValidUntil()).isGreaterThan(T);

        Answer browse = conforming(api.browse("json", "HEAD", Long.toString(T), Long.toString(T + DemoData.HOUR), "all",
                "cs", PEDESTALS));
        Answer count = conforming(api.count("json", "HEAD", Long.toString(T), Long.toString(T + DemoData.HOUR), "all",
                PEDESTALS));
        assertThat(browse.getRowCount()).isEqualTo(32);
        assertThat(count.getRows().get(0).get(0)).isEqualTo(32);

        Answer globalTags = conforming(api.listGlobalTags("json"));
        assertThat(column(globalTags, "name")).contains(DemoData.GLOBAL_TAG);
        Answer resolved = conforming(api.resolveGlobalTag("json", DemoData.GLOBAL_TAG));
        assertThat(resolved.getRowCount()).isGreaterThanOrEqualTo(4);
        Answer state = conforming(api.currentState("json", DemoData.GLOBAL_TAG));
        assertThat(state.getRowCount()).isEqualTo(resolved.getRowCount());

        // a global tag of time and run-lumi folders: both keys
        Answer snapshot = conforming(api.snapshot("json", DemoData.GLOBAL_TAG, T + "," + RUN_301));
        assertThat(snapshot.getRowCount()).isEqualTo(resolved.getRowCount());
    }

    @Test
    void writesWithAToken() throws Exception {
        String token = issuer.token("openapi-client", "conditions.write:/OPENAPI");
        DefaultApi write = new DefaultApi(client(token));

        WriteSummary folder = write.createFolder("OPENAPI/Gains", new CreateFolderRequest()
                .versioning(CreateFolderRequest.VersioningEnum.SV).keyType(CreateFolderRequest.KeyTypeEnum.TIME)
                .payload("gain:Double").description("written by a generated client").parents(true), null, null);
        assertThat(folder.getPath()).isEqualTo("/OPENAPI/Gains");
        WriteSummary stored = write.storeIovs("OPENAPI/Gains", "channel,since,until,gain\n1,0,100,1.5\n2,0,max,2.5\n",
                null, null, null, "openapi-store-1");
        assertThat(stored.getRequestId()).isEqualTo("openapi-store-1");

        Answer read = conforming(api.readAt("json", "HEAD", "50", "all", "OPENAPI/Gains"));
        assertThat(read.getRowCount()).isEqualTo(2);
        assertThat(column(read, "gain")).containsExactly(1.5, 2.5);
    }

    /** The generated client on this service, strict about members, with {@code token} if not null. */
    private ApiClient client(String token) {
        ApiClient c = new ApiClient();
        c.updateBaseUri(outpost.baseUrl());
        // a folder path is one path parameter, which the generated client percent-encodes (DEMO%2FCalo%2FPedestals):
        // the read API redirects that to the canonical URL, which a client follows; the write API takes it as it is
        c.setHttpClientBuilder(HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NORMAL));
        // members of an answer the document does not name fail (the generated default ignores them)
        c.setObjectMapper(c.getObjectMapper().enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES));
        if (token != null) {
            c.setRequestInterceptor(b -> b.header("Authorization", "Bearer " + token));
        }
        return c;
    }

    /** {@code a} after checking that every member the document's Answer schema requires is there. */
    private Answer conforming(Answer a) throws Exception {
        for (JsonNode name : document.at("/components/schemas/Answer/required")) {
            Method getter = Answer.class.getMethod("get" + name.asText().substring(0, 1).toUpperCase(Locale.ROOT)
                    + name.asText().substring(1));
            assertThat(getter.invoke(a)).as("required member " + name.asText()).isNotNull();
        }
        return a;
    }

    /** The values of one column, found by its name in the answer's columns. */
    private static List<Object> column(Answer a, String name) {
        int i = 0;
        while (i < a.getColumns().size() && !a.getColumns().get(i).getName().equals(name)) {
            i++;
        }
        assertThat(i).as("column " + name + " in " + a.getColumns()).isLessThan(a.getColumns().size());
        List<Object> values = new ArrayList<>();
        for (List<Object> row : a.getRows()) {
            values.add(row.get(i));
        }
        return values;
    }
}
