package io.outpost.server.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.server.support.RunningService;
import io.outpost.server.support.ServerLogCapture;
import io.outpost.server.support.WriteClient;
import io.outpost.testkit.TokenIssuer;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A write while the token issuer cannot be reached is the issuer's outage, not the caller's fault nor a bug: 503 with
 * Retry-After and plain words, nothing internal, one log line with the cause; a token that is not a JWT stays 401;
 * and once the issuer is back the same write succeeds (the failure is not kept). The issuer is real, stopped and
 * started again on its port.
 */
class IssuerOutageTest {
    private static final String SCOPES = "conditions.write:/DEMO";
    private static final String CSV = "channel,since,until,mean,rms,nsamples\n1,0,100,1.5,0.5,10\n";
    /** Java's and the issuer's words, and where the issuer lives. */
    private static final List<String> INTERNAL = List.of("exception", "java.", "org.", "127.0.0.1", "localhost",
            "connection refused", "jwk");

    @Test
    void aWriteWhileTheIssuerIsUnreachableIs503AndSucceedsOnceItIsBack() throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        String issuerUri;
        String token;
        try (TokenIssuer issuer = new TokenIssuer(port)) {
            issuerUri = issuer.issuerUri();
            token = issuer.token("calo-team", SCOPES);
        }
        // the issuer is gone before the service first needs it
        try (RunningService svc = RunningService.startSqliteDemo("--outpost.write.issuer-uri=" + issuerUri,
                "--outpost.write.audience=" + TokenIssuer.AUDIENCE);
             ServerLogCapture log = new ServerLogCapture()) {
            WriteClient client = new WriteClient(svc.url(""));

            HttpResponse<String> down = write(client, token);
            assertThat(down.statusCode()).as(down.body()).isEqualTo(503);
            assertThat(down.headers().firstValue("Retry-After")).hasValue("10");
            assertThat(down.headers().firstValue("Content-Type")).hasValue("application/problem+json");
            assertThat(down.body()).contains("the token issuer could not be reached; try again later");
            for (String word : INTERNAL) {
                assertThat(down.body()).as(down.body()).doesNotContainIgnoringCase(word);
            }
            // one line, naming the issuer and the cause
            assertThat(log.lines()).singleElement().satisfies(l -> assertThat(l.message())
                    .contains("token issuer").contains(issuerUri).containsIgnoringCase("refused"));

            HttpResponse<String> notAJwt = write(client, "not.a.jwt");
            assertThat(notAJwt.statusCode()).as(notAJwt.body()).isEqualTo(401);
            assertThat(write(client, null).statusCode()).isEqualTo(401);

            try (TokenIssuer back = new TokenIssuer(port)) { // (the test issuer signs with the same key each start)
                HttpResponse<String> up = write(client, token);
                assertThat(up.statusCode()).as(up.body()).isEqualTo(200);
                HttpResponse<String> foreign = write(client, back.foreignToken("calo-team", SCOPES));
                assertThat(foreign.statusCode()).as(foreign.body()).isEqualTo(401);
            }
        }
    }

    private static HttpResponse<String> write(WriteClient client, String token) throws Exception {
        return client.send("POST", "/write/v1/iovs/DEMO/Calo/Pedestals", token, "text/csv",
                CSV.getBytes(StandardCharsets.UTF_8));
    }
}
