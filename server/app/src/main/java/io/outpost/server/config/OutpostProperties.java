package io.outpost.server.config;

import jakarta.validation.Valid;
import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import java.time.Duration;
import java.util.List;
import org.hibernate.validator.constraints.time.DurationMax;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;

/**
 * The service's settings under the prefix {@code outpost}; the features with settings of their own keep them in a
 * record beside them ({@code outpost.http}, {@code .export}, {@code .rows}, {@code .snapshot}, {@code .signing},
 * {@code .write}, {@code .read-replica}). docs/operations.md lists them all with units, defaults and limits
 * (SettingsTableTest keeps the two in step). A value out of its limits stops the start with a message naming its key.
 *
 * @param database       the conditions database
 * @param demoData       fill an empty database with the demo data set on start
 * @param pollInterval   how often the service looks for writes made by other tools
 * @param cache          the in-memory answer cache
 * @param caching        HTTP cache lifetimes
 * @param frontier       Frontier wire-protocol contexts
 * @param trustedProxies addresses and CIDR blocks of the proxies whose {@code X-Forwarded-For} is believed
 * @param management     who may see the actuator's details
 */
@Validated
@ConfigurationProperties("outpost")
public record OutpostProperties(@DefaultValue @Valid Database database, @DefaultValue("true") boolean demoData,
                                @DefaultValue("5s") Duration pollInterval, @DefaultValue @Valid Cache cache,
                                @DefaultValue @Valid Caching caching, @DefaultValue @Valid Frontier frontier,
                                @DefaultValue @AddressBlocks(key = "outpost.trusted-proxies") List<String> trustedProxies,
                                @DefaultValue @Valid Management management) {

    /**
     * @param url               JDBC URL (jdbc:sqlite:, jdbc:postgresql:, jdbc:oracle:)
     * @param readPoolSize      connections for queries; saturated requests wait {@code connectionTimeout}, then 503
     * @param connectionTimeout longest wait for a free read connection
     * @param statementTimeout  longest a single query may run
     */
    public record Database(@DefaultValue("jdbc:sqlite:data/outpost-demo.db") String url, String user, String password,
                           @DefaultValue("OUTPOST_") String tablePrefix,
                           @DefaultValue("16") @Min(value = 1, message = "outpost.database.read-pool-size must be at"
                                   + " least 1, not ${validatedValue}") int readPoolSize,
                           @DefaultValue("2") @Min(value = 1, message = "outpost.database.write-pool-size must be at"
                                   + " least 1, not ${validatedValue}") int writePoolSize, @DefaultValue("10s") Duration connectionTimeout,
                           @DefaultValue("30s") Duration statementTimeout) {
    }

    /**
     * @param maxSize          bytes of encoded answers kept in memory
     * @param codec            compression of binary answers: zstd (default), zlib or none
     * @param compressionLevel level for the codec (zstd 1 … 19, zlib 1 … 9); 1 is fastest
     */
    public record Cache(@DefaultValue("256MB") DataSize maxSize,
                        @DefaultValue("zstd") @Pattern(regexp = "zstd|zlib|none",
                                message = "outpost.cache.codec must be zstd, zlib or none, not '${validatedValue}'")
                        String codec,
                        @DefaultValue("1") int compressionLevel) {

        @AssertTrue(message = "outpost.cache.compression-level must be 1 to 19 for zstd, 1 to 9 for zlib")
        public boolean isCompressionLevelInRange() {
            return switch (codec) {
                case "zstd" -> compressionLevel >= 1 && compressionLevel <= 19;
                case "zlib" -> compressionLevel >= 1 && compressionLevel <= 9;
                default -> true; // none, or a codec refused on its own
            };
        }
    }

    /**
     * @param lockedMaxAge    answers read through a locked tag never change
     * @param openEndedMaxAge answers that include an open-ended IOV (the current conditions)
     * @param defaultMaxAge   other IOV answers
     * @param metadataMaxAge  node, channel and tag lists and tag resolution
     * @param errorMaxAge     4xx answers; a few seconds at most
     * @param staleIfError    offered as stale-if-error when the request carries max-stale
     * @param classes         per folder-path pattern overrides of the default and open-ended ages, first match wins
     */
    public record Caching(@DefaultValue("365d") Duration lockedMaxAge, @DefaultValue("60s") Duration openEndedMaxAge,
                          @DefaultValue("300s") Duration defaultMaxAge, @DefaultValue("60s") Duration metadataMaxAge,
                          @DefaultValue("5s") @DurationMax(seconds = 10, message = "outpost.caching.error-max-age must"
                                  + " be at most 10s: caches must not keep errors") Duration errorMaxAge,
                          @DefaultValue("1d") Duration staleIfError, List<@Valid CacheClass> classes) {
        public Caching {
            classes = classes == null ? List.of() : List.copyOf(classes);
        }
    }

    /**
     * @param enabled  serve the Frontier protocol at all
     * @param contexts context name → its database and settings; when empty, one context {@code Outpost} serves the
     *                 service's own database, so {@code FRONTIER_SERVER=http://host:8000/Outpost} works out of the box
     */
    public record Frontier(@DefaultValue("true") boolean enabled,
                           java.util.Map<String, @Valid FrontierContext> contexts) {
        public Frontier {
            contexts = contexts == null ? java.util.Map.of() : java.util.Map.copyOf(contexts);
        }
    }

    /**
     * @param url          JDBC URL of the context's database (default: the service's own database)
     * @param tablePrefix  its COOL table prefix
     * @param readPoolSize its own read-only pool
     * @param settings     the upstream servlet's config.properties keys (docs/frontier.md), e.g. LongCacheExpireSeconds
     */
    public record FrontierContext(String url, String user, String password, String tablePrefix,
                                  @DefaultValue("8") @Min(value = 1, message = "outpost.frontier.contexts.<name>"
                                          + ".read-pool-size must be at least 1, not ${validatedValue}")
                                  int readPoolSize,
                                  java.util.Map<String, String> settings) {
        public FrontierContext {
            settings = settings == null ? java.util.Map.of() : java.util.Map.copyOf(settings);
        }
    }

    /**
     * @param pattern a folder path glob: {@code *} matches within one level, {@code **} across levels
     * @param maxAge  max-age for this class's answers
     */
    public record CacheClass(
            @NotBlank(message = "outpost.caching.classes[N].pattern must be set: a folder path glob") String pattern,
            @NotNull(message = "outpost.caching.classes[N].max-age must be set") Duration maxAge) {
    }

    /** @param addresses addresses and CIDR blocks that may see the actuator's details, metrics and Prometheus */
    public record Management(@DefaultValue({"127.0.0.1", "::1"})
                             @AddressBlocks(key = "outpost.management.addresses") List<String> addresses) {
    }
}
