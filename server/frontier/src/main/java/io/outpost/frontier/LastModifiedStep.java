package io.outpost.frontier;

import io.outpost.frontier.answers.TableTimes;
import io.outpost.frontier.protocol.CacheHeaders;
import java.io.IOException;
import java.sql.SQLException;

/**
 * For a request of one payload whose tables' time was not cached: reads the time, answers 304 when it equals the
 * client's If-Modified-Since, else sends it as Last-Modified.
 */
final class LastModifiedStep implements StepChain.Step<PayloadWork, PayloadOutcome> {
    private final TableTimes times;
    private final PayloadEnds ends;
    private final int timeoutSeconds;

    LastModifiedStep(TableTimes times, PayloadEnds ends, FrontierConfig config) {
        this.times = times;
        this.ends = ends;
        this.timeoutSeconds = config.statementTimeoutSeconds();
    }

    @Override
    public PayloadOutcome handle(PayloadWork w, StepChain<PayloadWork, PayloadOutcome> next) throws IOException {
        FrontierExchange x = w.exchange;
        if (x.payloads().size() == 1 && x.lastModified() == 0 && w.payload.sources() != null
                && !x.out.isCommitted()) {
            w.freshTransaction = false;
            long lm;
            try {
                lm = times.fetch(w.connection(), w.payload.sources(), timeoutSeconds);
            } catch (SQLException e) {
                if (PayloadEnds.refused(e, w)) {
                    return ends.keptOrRefused(w, e);
                }
                return ends.error(w, ends.databaseFailure(w, "Getting the last-modified time", e), "");
            }
            if (x.ifModifiedSince() > 0 && x.ifModifiedSince() == lm) {
                return new PayloadOutcome.NotModified();
            }
            if (lm > 0) {
                x.response.setHeader("Last-Modified", CacheHeaders.httpDate(lm));
            }
        }
        return next.proceed(w);
    }
}
