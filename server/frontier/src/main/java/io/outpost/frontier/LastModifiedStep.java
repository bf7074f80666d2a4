package io.outpost.frontier;

import io.outpost.frontier.answers.TableStamp;
import io.outpost.frontier.answers.TableTimes;
import io.outpost.frontier.protocol.CacheHeaders;
import io.outpost.frontier.protocol.FrontierConfig;
import java.io.IOException;
import java.sql.SQLException;
import java.util.Set;

/**
 * For a request of one payload whose tables' time was not cached: takes the time from the tables' stamp when it was
 * just read (the same sequence rows), else reads it; answers 304 when it equals the client's If-Modified-Since, else
 * sends it as Last-Modified.
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

    /** Whether this request must learn the time of {@code p}'s tables from the database. */
    static boolean due(FrontierExchange x, Payload p) {
        return x.payloads().size() == 1 && x.lastModified() == 0 && p.sources() != null && !x.out.isCommitted();
    }

    @Override
    public PayloadOutcome handle(PayloadWork w, StepChain<PayloadWork, PayloadOutcome> next) throws IOException {
        FrontierExchange x = w.exchange();
        Set<String> sources = w.payload().sources();
        if (!due(x, w.payload())) {
            return next.proceed(w);
        }
        TableStamp read = switch (w.plan()) {
            case StampPlan.Prelude p when p.tables().equals(sources) -> p.read().read();
            case StampPlan.ReadBefore r when r.tables().equals(sources) -> r.stamp();
            case StampPlan.Prelude p -> null;
            case StampPlan.ReadBefore r -> null;
            case StampPlan.WithQuery q -> null; // not chosen when the time is due (StampStep)
            case StampPlan.NotKept n -> null;
        };
        long lm;
        if (read != null) {
            lm = times.remember(sources, read.modified());
        } else {
            try {
                lm = times.fetch(w.connection(), sources, timeoutSeconds);
                x.transactionFresh(false);
            } catch (SQLException e) {
                if (PayloadEnds.refused(e, w)) {
                    return ends.keptOrRefused(w, e);
                }
                return ends.error(w, ends.databaseFailure(w, "Getting the last-modified time", e), "");
            }
        }
        if (x.ifModifiedSince() > 0 && x.ifModifiedSince() == lm) {
            return new PayloadOutcome.NotModified();
        }
        if (lm > 0) {
            x.response.setHeader("Last-Modified", CacheHeaders.httpDate(lm));
        }
        return next.proceed(w);
    }
}
