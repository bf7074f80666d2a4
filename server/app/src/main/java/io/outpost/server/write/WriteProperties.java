package io.outpost.server.write;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * The write API's settings (prefix {@code outpost.write}, docs/operations.md). Writes are off unless
 * {@code issuerUri} names the OAuth2/OIDC issuer whose tokens the service accepts.
 *
 * @param issuerUri   the token issuer (its {@code /.well-known/openid-configuration} gives the signing keys)
 * @param audience    when set, tokens must name it in {@code aud}
 * @param maxBodySize largest request body accepted (bulk IOV uploads)
 * @param replicaWait longest a write waits for the read pool's database (a streaming replica) to replay it
 */
@ConfigurationProperties("outpost.write")
public record WriteProperties(String issuerUri, String audience, @DefaultValue("64MB") DataSize maxBodySize,
                              @DefaultValue("10s") Duration replicaWait) {

    public boolean enabled() {
        return issuerUri != null && !issuerUri.isBlank();
    }
}
