package io.outpost.server.write;

import io.outpost.server.web.StoreStatus;
import io.outpost.store.IovStore;
import io.outpost.store.StoreException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;
import org.springframework.stereotype.Service;
import tools.jackson.databind.json.JsonMapper;

/**
 * Runs one write for the API: authorization, idempotency key, the store call (the loader's own code path),
 * the audit row, and visibility on this service before answering. Every outcome, accepted or refused, is audited.
 */
@Service
public class WriteService {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** The answer of an accepted (or replayed) write. */
    public record Result(int status, String json, boolean replayed, boolean visible) {
    }

    private final IovStore store;
    private final AuditLog audit;
    private final IdempotencyKeys keys;
    private final WriteVisibility visibility;

    public WriteService(IovStore store, AuditLog audit, IdempotencyKeys keys, WriteVisibility visibility) {
        this.store = store;
        this.audit = audit;
        this.keys = keys;
        this.visibility = visibility;
    }

    /**
     * @param authorize throws {@link WriteRefused} when the caller may not do this
     * @param call      the store call; its result goes to {@code body}
     * @param body      the answer's fields from the store call's result
     */
    public Result execute(Caller caller, String requestId, String idempotencyKey, WriteOperation op, int status,
                          Runnable authorize, Supplier<Object> call, Function<Object, Map<String, Object>> body) {
        try {
            authorize.run();
            if (idempotencyKey != null) {
                Result replay = replay(caller, idempotencyKey, op);
                if (replay != null) {
                    return replay;
                }
            }
            String[] answer = new String[1];
            try {
                store.writeTogether((c, result) -> {
                    answer[0] = json(op, requestId, body.apply(result));
                    audit.insert(c, audit.entry(requestId, caller.subject(), op.name(), op.path(), op.tag(), op.rows(),
                            status, "accepted"));
                    if (idempotencyKey != null) {
                        keys.insert(c, caller.subject(), idempotencyKey, op.requestHash(), status, answer[0]);
                    }
                }, call);
            } catch (StoreException e) {
                if (idempotencyKey != null && e.kind() == StoreException.Kind.ALREADY_EXISTS) {
                    // An identical request with the same key may have committed first.
                    Result replay = replay(caller, idempotencyKey, op);
                    if (replay != null) {
                        return replay;
                    }
                }
                throw e;
            }
            if (answer[0] == null) {
                throw new WriteRefused(400, "Bad Request", "the request writes nothing");
            }
            boolean visible = visibility.afterWrite();
            return new Result(status, answer[0], false, visible);
        } catch (WriteRefused e) {
            audit.recordRefusal(audit.entry(requestId, caller.subject(), op.name(), op.path(), op.tag(), op.rows(),
                    e.status(), e.getMessage()));
            throw e;
        } catch (StoreException e) {
            audit.recordRefusal(audit.entry(requestId, caller.subject(), op.name(), op.path(), op.tag(), op.rows(),
                    StoreStatus.of(e), e.getMessage()));
            throw e;
        } catch (IllegalArgumentException e) {
            audit.recordRefusal(audit.entry(requestId, caller.subject(), op.name(), op.path(), op.tag(), op.rows(),
                    400, e.getMessage()));
            throw e;
        }
    }

    private Result replay(Caller caller, String key, WriteOperation op) {
        IdempotencyKeys.Stored s = keys.find(caller.subject(), key);
        if (s == null) {
            return null;
        }
        if (!s.requestHash().equals(op.requestHash())) {
            throw new WriteRefused(422, "Unprocessable Content", "Idempotency-Key '" + key
                    + "' was already used for a different request");
        }
        return new Result(s.status(), s.response(), true, true);
    }

    private static String json(WriteOperation op, String requestId, Map<String, Object> fields) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("operation", op.name());
        if (op.path() != null) {
            m.put("path", op.path());
        }
        if (op.tag() != null) {
            m.put("tag", op.tag());
        }
        if (op.rows() != null) {
            m.put("rows", op.rows());
        }
        m.putAll(fields);
        m.put("requestId", requestId);
        return JSON.writeValueAsString(m);
    }
}
