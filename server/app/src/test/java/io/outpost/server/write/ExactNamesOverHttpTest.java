package io.outpost.server.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.server.support.RunningService;
import io.outpost.server.support.WriteClient;
import io.outpost.testkit.MariaDbServer;
import io.outpost.testkit.TokenIssuer;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The write API and the native API on a real MariaDB, where utf8mb4_bin once took 'ch0 ' for 'ch0': a padded
 * spelling of a channel, tag or folder is refused (400) or not found (404), never served or written as the other.
 */
class ExactNamesOverHttpTest {
    private static final String ALL = "/0/9223372036854775807/";

    @Test
    void paddedNamesAreRefusedOrNotFoundNeverTheOtherObject() throws Exception {
        try (TokenIssuer issuer = new TokenIssuer();
             RunningService svc = RunningService.start(MariaDbServer.shared().createDatabase("exact_names_http"),
                     "--outpost.database.user=root", "--outpost.demo-data=false", "--outpost.poll-interval=1h",
                     "--outpost.write.issuer-uri=" + issuer.issuerUri(), "--outpost.write.audience=" + TokenIssuer.AUDIENCE)) {
            WriteClient client = new WriteClient(svc.url(""));
            String token = issuer.token("det-team", "conditions.write:/DET conditions.lock:/DET");
            ok(client.json("POST", "/write/v1/folders/DET/F", token,
                    "{\"versioning\":\"MV\",\"payload\":\"v:Int32\",\"parents\":true}"));
            ok(client.json("POST", "/write/v1/channels/DET/F", token, "{\"id\":0,\"name\":\"ch0\"}"));
            ok(csv(client, "/DET/F", token, "channel,since,until,v\n0,10,max,1\n"));
            ok(client.json("POST", "/write/v1/tags/DET/F", token, "{\"tag\":\"T1\"}"));

            HttpResponse<String> channel = client.json("POST", "/write/v1/channels/DET/F", token,
                    "{\"id\":1,\"name\":\"ch0 \"}");
            assertThat(channel.statusCode()).isEqualTo(400);
            assertThat(channel.body()).contains("channel name 'ch0 ' ends with white space");
            assertThat(client.json("POST", "/write/v1/tags/DET/F", token, "{\"tag\":\"T1 \"}").statusCode()).isEqualTo(400);
            assertThat(csv(client, "/DET/F%20", token, "channel,since,until,v\n0,20,max,2\n").statusCode()).isEqualTo(404);
            assertThat(client.json("POST", "/write/v1/folders/DET/F%20", token, "{\"payload\":\"v:Int32\"}").statusCode())
                    .isEqualTo(400);

            assertThat(svc.get("/v1/json/browse/HEAD" + ALL + "name:ch0/cs/DET/F").statusCode()).isEqualTo(200);
            assertThat(svc.get("/v1/json/browse/HEAD" + ALL + "name:ch0%20/cs/DET/F").statusCode()).isEqualTo(404);
            assertThat(svc.get("/v1/json/browse/T1" + ALL + "all/cs/DET/F").statusCode()).isEqualTo(200);
            assertThat(svc.get("/v1/json/browse/T1%20" + ALL + "all/cs/DET/F").statusCode()).isBetween(400, 404);
            assertThat(svc.get("/v1/json/browse/HEAD" + ALL + "all/cs/DET/F%20").statusCode()).isBetween(400, 404);
            // nothing was written into /DET/F by the refused writes: still the one row, ch0 the one channel
            assertThat(svc.get("/v1/json/browse/HEAD" + ALL + "all/cs/DET/F").headers().firstValue("X-Outpost-Rows"))
                    .hasValue("1");
            assertThat(svc.getString("/v1/json/channels/DET/F")).contains("ch0").doesNotContain("ch0 ");
        }
    }

    private static HttpResponse<String> csv(WriteClient client, String folder, String token, String body) throws Exception {
        return client.send("POST", "/write/v1/iovs" + folder, token, "text/csv", body.getBytes(StandardCharsets.UTF_8));
    }

    private static void ok(HttpResponse<String> r) {
        assertThat(r.statusCode()).as(r.body()).isBetween(200, 201);
    }
}
