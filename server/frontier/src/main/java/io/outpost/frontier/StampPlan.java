package io.outpost.frontier;

import io.outpost.frontier.answers.FrontierAnswers;
import io.outpost.frontier.answers.PostgresPrelude;
import io.outpost.frontier.answers.TableStamp;
import java.util.Set;

/**
 * How a payload's answer is tied to the stamp of the tables it reads, decided once by {@link StampStep}; the later
 * steps switch over it. An answer is kept for others only at the stamp of the data it was read from.
 */
sealed interface StampPlan {
    /** The answer cannot be kept (a table without a stamp, no answer cache, or the stamp could not be read). */
    record NotKept() implements StampPlan {
    }

    /**
     * The stamp was read on its own before the query, in another snapshot than the query's (no prelude on this
     * database, or something already ran in the transaction): it is read again after the query, and the answer is
     * kept only if it did not change.
     */
    record ReadBefore(Set<String> tables, TableStamp stamp) implements StampPlan {
    }

    /**
     * The stamp (and the cost estimate when one was wanted: {@link PostgresPrelude.Result#cost()}, null when not)
     * was read by the prelude in the query's own snapshot: the answer is the data at that stamp.
     */
    record Prelude(Set<String> tables, PostgresPrelude.Result read) implements StampPlan {
        String stamp() {
            return read.stamp();
        }
    }

    /**
     * Nothing is known for the request and no estimate is wanted: the computation is {@code claimed} before the
     * stamp is known, and the stamp comes with the query's rows, in their snapshot.
     */
    record WithQuery(Set<String> tables, FrontierAnswers.Flight claimed) implements StampPlan {
    }
}
