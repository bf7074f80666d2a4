package io.outpost.server.write;

import com.nimbusds.jwt.JWTParser;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.text.ParseException;
import java.util.List;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.DelegatingFilterProxyRegistrationBean;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.authentication.AuthenticationServiceException;
import org.springframework.security.config.ObjectPostProcessor;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.oauth2.core.DelegatingOAuth2TokenValidator;
import org.springframework.security.oauth2.core.OAuth2TokenValidator;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.BadJwtException;
import org.springframework.security.oauth2.jwt.JwtClaimValidator;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.oauth2.jwt.JwtDecoderInitializationException;
import org.springframework.security.oauth2.jwt.JwtException;
import org.springframework.security.oauth2.jwt.JwtValidators;
import org.springframework.security.oauth2.jwt.NimbusJwtDecoder;
import org.springframework.security.oauth2.jwt.SupplierJwtDecoder;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.oauth2.server.resource.web.authentication.BearerTokenAuthenticationFilter;
import org.springframework.security.web.AuthenticationEntryPoint;
import org.springframework.security.web.authentication.AuthenticationFailureHandler;
import org.springframework.security.web.firewall.StrictHttpFirewall;

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
    private static final Logger log = LoggerFactory.getLogger(WriteSecurityConfiguration.class);
    /** Retry-After while the token issuer cannot be reached: an outage, not a moment's overload. */
    private static final String ISSUER_RETRY_SECONDS = "10";

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
        // Spring Security's default rethrows AuthenticationServiceException (the issuer or its keys unreachable),
        // which would end as a 500: the filter's failure handler is its hook for telling the two apart
        AuthenticationFailureHandler failed = (req, resp, ex) -> {
            if (ex instanceof AuthenticationServiceException) {
                issuerUnreachable(req, resp, ex, props, audit);
            } else {
                unauthenticated.commence(req, resp, ex);
            }
        };
        http.authorizeHttpRequests(a -> a.anyRequest().authenticated())
                .oauth2ResourceServer(o -> o.jwt(j -> { }).authenticationEntryPoint(unauthenticated)
                        .withObjectPostProcessor(new ObjectPostProcessor<BearerTokenAuthenticationFilter>() {
                            @Override
                            public <O extends BearerTokenAuthenticationFilter> O postProcess(O filter) {
                                filter.setAuthenticationFailureHandler(failed);
                                return filter;
                            }
                        }))
                .exceptionHandling(e -> e.authenticationEntryPoint(unauthenticated));
        return http.build();
    }

    /**
     * The issuer's outage, not the caller's fault: 503 with a retry time and plain words; the issuer and the cause
     * go to the log, one line a refused write.
     */
    private static void issuerUnreachable(HttpServletRequest req, HttpServletResponse resp, Exception ex,
                                          WriteProperties props, AuditLog audit) throws IOException {
        log.warn("write refused with 503: the token issuer {} could not be reached: {}", props.issuerUri(),
                causes(ex));
        String detail = "the token issuer could not be reached; try again later";
        audit.recordRefusal(audit.entry(requestId(req.getHeader("X-Request-Id")), null,
                req.getMethod() + " " + operationOf(req.getRequestURI()), null, null, null, 503, detail));
        resp.setHeader("Retry-After", ISSUER_RETRY_SECONDS);
        WriteErrors.write(resp, HttpServletResponse.SC_SERVICE_UNAVAILABLE, "Service Unavailable", detail,
                req.getRequestURI());
    }

    /** The causes under Spring Security's and this class's wrappers (the I/O error and its host), on one line. */
    private static String causes(Throwable ex) {
        Throwable t = ex;
        while (t.getCause() != null && (t instanceof AuthenticationServiceException || t instanceof JwtException
                || t instanceof JwtDecoderInitializationException)) {
            t = t.getCause();
        }
        StringBuilder b = new StringBuilder();
        for (; t != null; t = t.getCause()) {
            b.append(b.isEmpty() ? "" : " <- ").append(t.getClass().getSimpleName()).append(": ").append(t.getMessage());
        }
        return b.toString();
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

    /**
     * Decodes and checks tokens of the configured issuer; the issuer is contacted on the first write, not at start,
     * and again on each write until it answers (a failure is not kept). A token that is not a JWT is refused before
     * (401 even while the issuer is unreachable); the issuer unreachable is a service failure (503), where
     * {@link SupplierJwtDecoder} would throw an exception Spring Security does not handle (a 500).
     */
    @Bean
    public JwtDecoder writeTokenDecoder(WriteProperties props) {
        if (!props.enabled()) {
            return token -> {
                throw new BadJwtException("writes are disabled");
            };
        }
        JwtDecoder issuers = issuerDecoder(props);
        return token -> {
            try {
                JWTParser.parse(token);
            } catch (ParseException e) {
                throw new BadJwtException("An error occurred while attempting to decode the Jwt: " + e.getMessage(), e);
            }
            try {
                return issuers.decode(token);
            } catch (JwtDecoderInitializationException e) {
                throw new JwtException("the token issuer could not be reached", e);
            }
        };
    }

    private static JwtDecoder issuerDecoder(WriteProperties props) {
        return new SupplierJwtDecoder(() -> {
            NimbusJwtDecoder decoder = NimbusJwtDecoder.withIssuerLocation(props.issuerUri()).build();
            // Spring checks exp only when a token has one: a token without it would write for ever
            OAuth2TokenValidator<Jwt> validator = new DelegatingOAuth2TokenValidator<>(
                    JwtValidators.createDefaultWithIssuer(props.issuerUri()), WriteSecurityConfiguration::expires);
            if (props.audience() != null && !props.audience().isBlank()) {
                validator = new DelegatingOAuth2TokenValidator<>(validator, new JwtClaimValidator<List<String>>("aud",
                        aud -> aud != null && aud.contains(props.audience())));
            }
            decoder.setJwtValidator(validator);
            return decoder;
        });
    }

    /** A write token must say when it ends: one without {@code exp} is refused (401). */
    private static org.springframework.security.oauth2.core.OAuth2TokenValidatorResult expires(Jwt token) {
        return token.getExpiresAt() != null ? org.springframework.security.oauth2.core.OAuth2TokenValidatorResult.success()
                : org.springframework.security.oauth2.core.OAuth2TokenValidatorResult.failure(
                        new org.springframework.security.oauth2.core.OAuth2Error("invalid_token",
                                "the token has no expiry (exp); write tokens must expire", null));
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
