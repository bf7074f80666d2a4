package io.outpost.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jose.crypto.RSASSAVerifier;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jwt.SignedJWT;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The issuer publishes its keys over real HTTP, and the tokens it issues verify against them. */
class TokenIssuerTest {
    @Test
    void issuesTokensThatVerifyAgainstThePublishedKeys() throws Exception {
        try (TokenIssuer issuer = new TokenIssuer(); HttpClient http = HttpClient.newHttpClient()) {
            HttpResponse<String> discovery = http.send(HttpRequest.newBuilder(
                    URI.create(issuer.issuerUri() + "/.well-known/openid-configuration")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(discovery.statusCode()).isEqualTo(200);
            Matcher jwks = Pattern.compile("\"jwks_uri\"\\s*:\\s*\"([^\"]+)\"").matcher(discovery.body());
            assertThat(jwks.find()).as(discovery.body()).isTrue();
            JWKSet keys = JWKSet.load(new URL(jwks.group(1)));

            SignedJWT token = SignedJWT.parse(issuer.token("alice", "storage.create:/ storage.modify:/"));
            RSAKey key = (RSAKey) keys.getKeyByKeyId(token.getHeader().getKeyID());
            assertThat(key).as("the token's key is published").isNotNull();
            assertThat(token.verify(new RSASSAVerifier(key))).as("signature").isTrue();
            assertThat(token.getJWTClaimsSet().getIssuer()).isEqualTo(issuer.issuerUri());
            assertThat(token.getJWTClaimsSet().getSubject()).isEqualTo("alice");
            assertThat(token.getJWTClaimsSet().getAudience()).containsExactly(TokenIssuer.AUDIENCE);
            assertThat(token.getJWTClaimsSet().getStringClaim("scope")).isEqualTo("storage.create:/ storage.modify:/");

            SignedJWT foreign = SignedJWT.parse(issuer.foreignToken("mallory", "storage.create:/"));
            assertThat(foreign.getJWTClaimsSet().getIssuer()).isNotEqualTo(issuer.issuerUri());
        }
    }
}
