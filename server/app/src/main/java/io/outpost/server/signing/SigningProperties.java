package io.outpost.server.signing;

import jakarta.validation.constraints.AssertTrue;
import java.nio.file.Path;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.hibernate.validator.constraints.time.DurationMax;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * Signed answers (prefix {@code outpost.signing}; docs/api.md "Signed answers"). Without a key file nothing is signed.
 *
 * @param keyFile an Ed25519 private key, PKCS#8 PEM ({@code openssl genpkey -algorithm ed25519})
 * @param keyId   the name clients know the matching public key by; sent in every signature header
 * @param grace   added to an answer's max-age for its signature's expiry: room for client clock skew and transfer
 */
@Validated
@ConfigurationProperties("outpost.signing")
public record SigningProperties(Path keyFile, String keyId,
                                @DefaultValue("300s") @DurationMin(seconds = 0, message = GRACE)
                                @DurationMax(days = 1, message = GRACE) Duration grace) {

    private static final String GRACE = "outpost.signing.grace must be between 0 and 1d: it is how long after its"
            + " max-age a replayed answer still verifies";

    public SigningProperties {
        if (grace == null) { // (built by hand, in tests)
            grace = Duration.ofSeconds(300);
        }
    }

    /** A key file needs the name clients know its public key by. */
    @AssertTrue(message = "outpost.signing.key-id must be set with outpost.signing.key-file: 1 to 64 letters, digits,"
            + " '.', '_' or '-'")
    public boolean isKeyIdValid() {
        return keyFile == null || keyId != null && AnswerSigner.KEY_ID.matcher(keyId).matches();
    }
}
