package io.outpost.testkit;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.net.InetAddress;
import java.util.Date;
import java.util.Map;
import java.util.UUID;
import no.nav.security.mock.oauth2.MockOAuth2Server;
import no.nav.security.mock.oauth2.OAuth2Config;
import no.nav.security.mock.oauth2.token.KeyProvider;
import no.nav.security.mock.oauth2.token.OAuth2TokenProvider;

/** A real OAuth2/OIDC issuer on a loopback port (discovery document, JWKS, RS256-signed tokens). */
public final class TokenIssuer implements AutoCloseable {
    public static final String ISSUER_ID = "conditions";
    public static final String AUDIENCE = "outpost";
    /** The issuer's signing keys, kept to sign a token the server itself would not issue (no expiry). */
    private final KeyProvider keys = new KeyProvider();
    private final MockOAuth2Server server = new MockOAuth2Server(
            new OAuth2Config(false, null, null, false, new OAuth2TokenProvider(keys)));

    public TokenIssuer() {
        this(0);
    }

    /** An issuer on the given loopback port (0: any free one). */
    public TokenIssuer(int port) {
        try {
            server.start(InetAddress.getLoopbackAddress(), port);
        } catch (RuntimeException e) {
            server.shutdown();
            throw e;
        }
    }

    /** The issuer URI to configure as {@code outpost.write.issuer-uri}. */
    public String issuerUri() {
        return server.issuerUrl(ISSUER_ID).toString();
    }

    /** A signed token for {@code subject} carrying {@code scopes} (space-separated, as OAuth2 sends them). */
    public String token(String subject, String scopes) {
        return server.issueToken(ISSUER_ID, subject, AUDIENCE, Map.of("scope", scopes), 3600).serialize();
    }

    /** As {@link #token(String, String)}, valid for {@code seconds}. */
    public String token(String subject, String scopes, long seconds) {
        return server.issueToken(ISSUER_ID, subject, AUDIENCE, Map.of("scope", scopes), seconds).serialize();
    }

    /**
     * A token as {@link #token(String, String)} (this issuer, its key, audience and scopes) but without an expiry:
     * no {@code exp} claim, which the issuer itself never leaves out.
     */
    public String tokenWithoutExpiry(String subject, String scopes) {
        try {
            RSAKey key = keys.signingKey(ISSUER_ID).toRSAKey();
            Date now = new Date();
            JWTClaimsSet claims = new JWTClaimsSet.Builder().issuer(issuerUri()).subject(subject).audience(AUDIENCE)
                    .claim("scope", scopes).issueTime(now).notBeforeTime(now).jwtID(UUID.randomUUID().toString())
                    .build();
            SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(key.getKeyID())
                    .type(JOSEObjectType.JWT).build(), claims);
            jwt.sign(new RSASSASigner(key));
            return jwt.serialize();
        } catch (JOSEException e) {
            throw new IllegalStateException("cannot sign a token: " + e.getMessage(), e);
        }
    }

    /** A token signed by this server but for another issuer id: valid signature, wrong issuer. */
    public String foreignToken(String subject, String scopes) {
        return server.issueToken("elsewhere", subject, AUDIENCE, Map.of("scope", scopes), 3600).serialize();
    }

    @Override
    public void close() {
        server.shutdown();
    }
}
