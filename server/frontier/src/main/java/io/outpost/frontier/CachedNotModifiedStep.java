package io.outpost.frontier;

import io.outpost.frontier.answers.TableTimes;
import io.outpost.frontier.protocol.CacheHeaders;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * Sets the request's max-age, and answers 304 at once when the tables' times known without asking the database
 * equal the client's If-Modified-Since.
 */
final class CachedNotModifiedStep implements StepChain.Step<FrontierExchange, Void> {
    private final TableTimes times;

    CachedNotModifiedStep(TableTimes times) {
        this.times = times;
    }

    @Override
    public Void handle(FrontierExchange x, StepChain<FrontierExchange, Void> next) throws IOException {
        x.setAge(x.maxAge());
        long lastModified = cachedLastModified(x);
        long ims = CacheHeaders.ifModifiedSince(x.request);
        x.times(lastModified, ims);
        if (ims > 0 && ims == lastModified) {
            x.response.setStatus(HttpServletResponse.SC_NOT_MODIFIED);
            x.noBody(RequestOutcome.NOT_MODIFIED);
            return null;
        }
        return next.proceed(x);
    }

    /** The latest of the payloads' cached times; -1 when one has none, 0 when one is not cached. */
    private long cachedLastModified(FrontierExchange x) {
        long max = 0;
        for (Payload p : x.payloads()) {
            if (p.error() != null || p.sources() == null) {
                return -1;
            }
            long t = times.cached(p.sources());
            if (t < 0) {
                return -1;
            }
            max = Math.max(max, t);
        }
        return max;
    }
}
