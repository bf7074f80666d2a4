package io.outpost.server.signing;

import org.slf4j.LoggerFactory;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The answer signer of {@code outpost.signing}: every native answer signed, or none. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(SigningProperties.class)
public class SigningConfiguration {

    @Bean
    public AnswerSigner answerSigner(SigningProperties props) {
        AnswerSigner signer = AnswerSigner.of(props);
        if (signer.enabled()) {
            LoggerFactory.getLogger(AnswerSigner.class).info("signing answers with Ed25519 key '{}'", props.keyId());
        }
        return signer;
    }
}
