package io.outpost.server.write;

import jakarta.servlet.http.HttpServletResponse;
import java.util.List;
import java.util.UUID;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.DelegatingFilterProxyRegistrationBean;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.oauth2.core.DelegatingOAuth2TokenValidator;
import org.springframework.security.oauth2.core.OAuth2TokenValidator;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtClaimValidator;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.oauth2.jwt.JwtValidators;
import org.springframework.security.oauth2.jwt.NimbusJwtDecoder;
import org.springframework.security.oauth2.jwt.SupplierJwtDecoder;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.firewall.StrictHttpFirewall;
import org.springframework.security.web.AuthenticationEntryPoint;

/**
 * Security for the write API only. Reads stay anonymous and never pass through Spring Security: its filter is
 * registered for {@code /write/*} alone, so the read hot path and Frontier URLs are untouched. With
 * {@code outpost.write.issuer-uri} set, requests need a bearer JWT signed by that issuer (keys from its
 * discovery document, checked by Spring Security's resource server); without it every write is refused.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(WriteProperties.class)
public class WriteSecurityConfiguration {
    static final String PATTERN = "/write/*";

    @Bean
    public SecurityFilterChain writeApiSecurity(HttpSecurity http, WriteProperties props, AuditLog audit)
            throws Exception {
        http.securityMatcher("/write/**")
                .csrf(c -> c.disable())
                .sessionManagement(s -> s.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
                .requestCache(c -> c.disable())
                .headers(h -> h.cacheControl(cc -> { }));
        if (!props.enabled()) {
            http.authorizeHttpRequests(a -> a.anyRequest().denyAll())
                    .exceptionHandling(e -> e.authenticationEntryPoint((req, resp, ex) -> WriteErrors.write(resp, 403,
                            "Forbidden", "writes are disabled on this service: no token issuer is configured "
                                    + "(outpost.write.issuer-uri)", req.getRequestURI()))
                            .accessDeniedHandler((req, resp, ex) -> WriteErrors.write(resp, 403, "Forbidden",
                                    "writes are disabled on this service", req.getRequestURI())));
            return http.build();
        }
        AuthenticationEntryPoint unauthenticated = (req, resp, ex) -> {
            String detail = req.getHeader("Authorization") == null
                    ? "a bearer token is required to write (Authorization: Bearer <JWT>)"
                    : "the bearer token was refused: " + ex.getMessage();
            audit.recordRefusal(audit.entry(requestId(req.getHeader("X-Request-Id")), null,
                    req.getMethod() + " " + operationOf(req.getRequestURI()), null, null, null, 401, detail));
            resp.setHeader("WWW-Authenticate", "Bearer");
            WriteErrors.write(resp, HttpServletResponse.SC_UNAUTHORIZED, "Unauthorized", detail, req.getRequestURI());
        };
        http.authorizeHttpRequests(a -> a.anyRequest().authenticated())
                .oauth2ResourceServer(o -> o.jwt(j -> { }).authenticationEntryPoint(unauthenticated))
                .exceptionHandling(e -> e.authenticationEntryPoint(unauthenticated));
        return http.build();
    }

    /**
     * Spring Security's firewall, letting a folder path written as one percent-encoded segment through
     * ({@code /write/v1/iovs/DET%2FCalo%2FGains}, as clients generated from the OpenAPI document write path
     * parameters): Tomcat passes {@code %2F} on undecoded (WebConfiguration), so the firewall sees a '%' in the
     * decoded path too. The controllers decode the node path once, and that one path is both what a token's scope is
     * checked against and what is written. Everything else the firewall refuses stays refused.
     */
    @Bean
    public StrictHttpFirewall writeApiFirewall() {
        StrictHttpFirewall firewall = new StrictHttpFirewall();
        firewall.setAllowUrlEncodedSlash(true);
        firewall.setAllowUrlEncodedPercent(true);
        return firewall;
    }

    /** Decodes and checks tokens of the configured issuer; the issuer is contacted on the first write, not at start. */
    @Bean
    public JwtDecoder writeTokenDecoder(WriteProperties props) {
        if (!props.enabled()) {
            return token -> {
                throw new org.springframework.security.oauth2.jwt.BadJwtException("writes are disabled");
            };
        }
        return new SupplierJwtDecoder(() -> {
            NimbusJwtDecoder decoder = NimbusJwtDecoder.withIssuerLocation(props.issuerUri()).build();
            OAuth2TokenValidator<Jwt> validator = JwtValidators.createDefaultWithIssuer(props.issuerUri());
            if (props.audience() != null && !props.audience().isBlank()) {
                validator = new DelegatingOAuth2TokenValidator<>(validator, new JwtClaimValidator<List<String>>("aud",
                        aud -> aud != null && aud.contains(props.audience())));
            }
            decoder.setJwtValidator(validator);
            return decoder;
        });
    }

    /** Spring Security's filter runs for the write API only (see the class comment). */
    @Bean
    public static BeanPostProcessor securityFilterOnWritesOnly() {
        return new BeanPostProcessor() {
            @Override
            public Object postProcessBeforeInitialization(Object bean, String name) {
                if (bean instanceof DelegatingFilterProxyRegistrationBean reg) {
                    reg.setUrlPatterns(List.of(PATTERN));
                }
                return bean;
            }
        };
    }

    @Bean
    public FilterRegistrationBean<BodyLimit> writeBodyLimit(WriteProperties props, AuditLog audit) {
        FilterRegistrationBean<BodyLimit> bean = new FilterRegistrationBean<>(new BodyLimit(props.maxBodySize().toBytes(),
                audit));
        bean.setUrlPatterns(List.of(PATTERN));
        bean.setOrder(0); // after Spring Security's filter (-100): a request without a token gets 401 first
        return bean;
    }

    private static String requestId(String header) {
        return header == null || header.isBlank() ? UUID.randomUUID().toString() : header;
    }

    private static String operationOf(String uri) {
        String rest = uri.startsWith(WriteController.BASE) ? uri.substring(WriteController.BASE.length()) : uri;
        int slash = rest.indexOf('/', 1);
        return slash < 0 ? rest : rest.substring(0, slash);
    }
}
