package io.outpost.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jwt.SignedJWT;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** ./outpost dev-token prints the service's option and a token of the issuer it runs, with the scopes asked for. */
class DevTokenIssuerTest {
    @Test
    void printsTheIssuerOptionAndATokenOfThatIssuer() throws Exception {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        try (TokenIssuer issuer = DevTokenIssuer.start(new String[] {"--port", "0", "--scopes", "conditions.write:/DEV"},
                new PrintStream(printed, true, StandardCharsets.UTF_8)); HttpClient http = HttpClient.newHttpClient()) {
            String out = printed.toString(StandardCharsets.UTF_8);
            assertThat(out).contains("--outpost.write.issuer-uri=" + issuer.issuerUri()).contains("not for production");
            Matcher token = Pattern.compile("export OUTPOST_TOKEN=(\\S+)").matcher(out);
            assertThat(token.find()).as(out).isTrue();
            SignedJWT jwt = SignedJWT.parse(token.group(1));
            assertThat(jwt.getJWTClaimsSet().getIssuer()).isEqualTo(issuer.issuerUri());
            assertThat(jwt.getJWTClaimsSet().getStringClaim("scope")).isEqualTo("conditions.write:/DEV");
            HttpResponse<String> discovery = http.send(HttpRequest.newBuilder(
                    URI.create(issuer.issuerUri() + "/.well-known/openid-configuration")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(discovery.statusCode()).isEqualTo(200);
        }
    }
}
