package io.outpost.server.cache;

import io.outpost.server.config.OutpostProperties;
import io.outpost.server.query.Query;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.stereotype.Component;

/**
 * Chooses the Cache-Control of an answer by how mutable it is (docs/caching.md): locked tags never change;
 * metadata and answers holding the current (open-ended) conditions live briefly; per-folder classes override.
 */
@Component
public class CachePolicy {
    private record Rule(PathMatcher matcher, Duration maxAge) {
    }

    private final OutpostProperties.Caching caching;
    private final List<Rule> rules = new ArrayList<>();

    public CachePolicy(OutpostProperties props) {
        this.caching = props.caching();
        for (OutpostProperties.CacheClass c : caching.classes()) {
            rules.add(new Rule(FileSystems.getDefault().getPathMatcher("glob:" + c.pattern()), c.maxAge()));
        }
    }

    /** The Cache-Control value for a successful answer (or a 304 of it). */
    public String cacheControl(Query q, Answer a, boolean requestAllowsStale) {
        if (a != null && a.immutable()) {
            return "public, max-age=" + caching.lockedMaxAge().toSeconds() + ", immutable";
        }
        long age = maxAge(q, a).toSeconds();
        String value = "public, max-age=" + age;
        if (requestAllowsStale) {
            value += ", stale-if-error=" + caching.staleIfError().toSeconds();
        }
        return value;
    }

    Duration maxAge(Query q, Answer a) {
        if (!q.op().readsIovs()) {
            return caching.metadataMaxAge();
        }
        for (Rule r : rules) {
            if (r.matcher.matches(Path.of(q.path()))) {
                return r.maxAge;
            }
        }
        // Unknown answer (a 304 without the body in memory): assume the short life of current conditions.
        if (a == null || a.touchesOpenEnded()) {
            return caching.openEndedMaxAge();
        }
        return caching.defaultMaxAge();
    }

    public String errorCacheControl(int status) {
        return status >= 500 ? "public, max-age=1" : "public, max-age=" + caching.errorMaxAge().toSeconds();
    }
}
