package io.outpost.server.signing;

import java.nio.file.Path;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Signed answers (prefix {@code outpost.signing}; docs/api.md "Signed answers"). Without a key file nothing is signed.
 *
 * @param keyFile an Ed25519 private key, PKCS#8 PEM ({@code openssl genpkey -algorithm ed25519})
 * @param keyId   the name clients know the matching public key by; sent in every signature header
 * @param grace   added to an answer's max-age for its signature's expiry: room for client clock skew and transfer
 */
@ConfigurationProperties("outpost.signing")
public record SigningProperties(Path keyFile, String keyId, @DefaultValue("300s") Duration grace) {
    public SigningProperties {
        if (keyFile != null && (keyId == null || !AnswerSigner.KEY_ID.matcher(keyId).matches())) {
            throw new IllegalArgumentException("outpost.signing.key-id must be set with outpost.signing.key-file: 1 to 64"
                    + " letters, digits, '.', '_' or '-'");
        }
        if (grace == null) {
            grace = Duration.ofSeconds(300);
        }
        if (grace.isNegative() || grace.toSeconds() > 86400) {
            throw new IllegalArgumentException("outpost.signing.grace must be between 0 and 1d: it is how long after"
                    + " its max-age a replayed answer still verifies");
        }
    }
}
