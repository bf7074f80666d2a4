package io.outpost.server.web;

import io.outpost.server.cache.CachePolicy;
import io.outpost.server.config.OutpostProperties;
import io.outpost.server.pin.PinnedReads;
import io.outpost.server.pin.SnapshotProperties;
import io.outpost.server.pin.SnapshotService;
import io.outpost.server.pin.StateService;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Registers the global-tag, state, snapshot and pinned-read paths: more specific servlet mappings than the native
 * API's {@code /v1/*}, so they reach {@link PinnedApiServlet}.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(SnapshotProperties.class)
public class PinnedApiConfiguration {

    @Bean
    public ServletRegistrationBean<PinnedApiServlet> pinnedApi(StateService states, PinnedReads pinned,
                                                               SnapshotService snapshots, CachePolicy policy,
                                                               SnapshotProperties props, OutpostProperties outpost,
                                                               io.outpost.server.signing.AnswerSigner signer,
                                                               io.micrometer.core.instrument.MeterRegistry registry) {
        List<String> mappings = new ArrayList<>();
        for (String format : List.of("bin", "json")) {
            mappings.add("/v1/" + format + "/globaltags");
            for (String word : List.of("globaltags", "resolve", "state", "snapshot", "pin")) {
                mappings.add("/v1/" + format + "/" + word + "/*");
            }
        }
        ServletRegistrationBean<PinnedApiServlet> bean = new ServletRegistrationBean<>(
                new PinnedApiServlet(states, pinned, snapshots, policy, props, outpost, signer, registry), mappings.toArray(String[]::new));
        bean.setName("pinned-api");
        bean.setLoadOnStartup(1);
        return bean;
    }
}
