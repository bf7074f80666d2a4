package io.outpost.server.signing;

import java.nio.file.Path;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Signed answers (prefix {@code outpost.signing}; docs/api.md "Signed answers"). Without a key file nothing is signed.
 *
 * @param keyFile an Ed25519 private key, PKCS#8 PEM ({@code openssl genpkey -algorithm ed25519})
 * @param keyId   the name clients know the matching public key by; sent in every signature header
 */
@ConfigurationProperties("outpost.signing")
public record SigningProperties(Path keyFile, String keyId) {
    public SigningProperties {
        if (keyFile != null && (keyId == null || !AnswerSigner.KEY_ID.matcher(keyId).matches())) {
            throw new IllegalArgumentException("outpost.signing.key-id must be set with outpost.signing.key-file: 1 to 64"
                    + " letters, digits, '.', '_' or '-'");
        }
    }
}
