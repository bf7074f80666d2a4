package io.outpost.frontier;

import io.outpost.frontier.protocol.FrontierCommand;
import io.outpost.frontier.sql.CoolRead;
import java.util.List;
import java.util.Set;

/**
 * One payload of a request, decoded and checked before anything is written; a payload that failed its checks
 * carries the error and is answered with it in its turn.
 *
 * @param sql        the checked SQL to run (null on error)
 * @param tables     the tables it reads
 * @param sources    the sequence tables whose times give its Last-Modified, or null when it has none
 * @param dictionary answered from a snapshot of the database's catalog (Oracle data-dictionary views)
 * @param error      why the payload cannot run, or null
 * @param coolRead   the statement as one of COOL's IOV reads, which held rows may answer, or null
 */
record Payload(FrontierCommand cmd, String sql, List<String> binds, Set<String> tables, Set<String> sources,
               boolean dictionary, String error, CoolRead coolRead) {

    static Payload failed(FrontierCommand cmd, String error) {
        return new Payload(cmd, null, List.of(), Set.of(), null, false, error, null);
    }
}
