package io.outpost.testkit;

import java.net.InetAddress;
import java.util.Map;
import no.nav.security.mock.oauth2.MockOAuth2Server;

/** A real OAuth2/OIDC issuer on a loopback port (discovery document, JWKS, RS256-signed tokens). */
public final class TokenIssuer implements AutoCloseable {
    public static final String ISSUER_ID = "conditions";
    public static final String AUDIENCE = "outpost";
    private final MockOAuth2Server server = new MockOAuth2Server();

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

    /** A token signed by this server but for another issuer id: valid signature, wrong issuer. */
    public String foreignToken(String subject, String scopes) {
        return server.issueToken("elsewhere", subject, AUDIENCE, Map.of("scope", scopes), 3600).serialize();
    }

    @Override
    public void close() {
        server.shutdown();
    }
}
