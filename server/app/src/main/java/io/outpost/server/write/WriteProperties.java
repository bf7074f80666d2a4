package io.outpost.server.write;

import java.time.Duration;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;

/**
 * The write API's settings (prefix {@code outpost.write}, docs/operations.md). Writes are off unless
 * {@code issuerUri} names the OAuth2/OIDC issuer whose tokens the service accepts.
 *
 * @param issuerUri   the token issuer (its {@code /.well-known/openid-configuration} gives the signing keys)
 * @param audience    when set, tokens must name it in {@code aud}
 * @param maxBodySize largest request body accepted (bulk IOV uploads)
 * @param replicaWait longest a write waits for the read pool's database (a streaming replica) to replay it
 */
@Validated
@ConfigurationProperties("outpost.write")
public record WriteProperties(String issuerUri, String audience, @DefaultValue("64MB") DataSize maxBodySize,
                              @DefaultValue("10s") @DurationMin(seconds = 0,
                                      message = "outpost.write.replica-wait must not be negative")
                              Duration replicaWait) {

    public boolean enabled() {
        return issuerUri != null && !issuerUri.isBlank();
    }
}
