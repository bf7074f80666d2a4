package io.outpost.server.pin;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.outpost.store.model.KeyText;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.Node;
import io.outpost.store.model.ValidityKey;
import java.util.ArrayList;
import java.util.List;
import org.springframework.stereotype.Component;

/**
 * Tells when a snapshot's validity is too short for caches to share it: every job whose key falls outside the
 * validity gets another URL. The limits are {@code outpost.snapshot.min-valid-time} and {@code min-valid-lumis}; a
 * snapshot under them carries a warning naming the folder that bounds it, and is counted in
 * {@code outpost.snapshot.short.validity} (tagged with the global tag).
 */
@Component
public class SnapshotValidity {
    /** One folder's part of a snapshot: its validity interval [since, until). */
    public record FolderValidity(Node folder, long since, long until) {
    }

    private final java.time.Duration minTime;
    private final long minTimeNanos;
    private final long minLumis;
    private final MeterRegistry registry;

    public SnapshotValidity(SnapshotProperties props, MeterRegistry registry) {
        this.minTime = props.minValidTime();
        this.minTimeNanos = minTime.toNanos();
        this.minLumis = props.minValidLumis();
        this.registry = registry;
    }

    /** The warning for a snapshot of {@code state} made of {@code parts}, or null when its validity is long enough. */
    public String warning(State state, List<FolderValidity> parts) {
        List<String> shortOnes = new ArrayList<>();
        for (KeyType type : KeyType.values()) {
            long since = 0;
            long until = ValidityKey.MAX;
            FolderValidity narrowest = null;
            for (FolderValidity p : parts) {
                if (p.folder().keyType() != type) {
                    continue;
                }
                since = Math.max(since, p.since());
                until = Math.min(until, p.until());
                if (narrowest == null || p.until() - p.since() < narrowest.until() - narrowest.since()) {
                    narrowest = p;
                }
            }
            if (narrowest != null && tooShort(type, since, until)) {
                shortOnes.add("the " + type.label() + " folders' snapshot is valid only for [" + text(type, since)
                        + ", " + text(type, until) + "), under the " + (type == KeyType.RUN_LUMI ? minLumis
                        + " lumi sections" : minTime.toString().substring(2).toLowerCase(java.util.Locale.ROOT)) + " minimum; the narrowest folder is "
                        + narrowest.folder().path() + ", valid for [" + text(type, narrowest.since()) + ", "
                        + text(type, narrowest.until()) + ")");
            }
        }
        if (shortOnes.isEmpty()) {
            return null;
        }
        Counter.builder("outpost.snapshot.short.validity")
                .description("snapshots built with a validity under outpost.snapshot.min-valid-time/-lumis")
                .tag("globaltag", state.tag()).register(registry).increment();
        return String.join("; ", shortOnes) + ": jobs at keys outside it get other URLs, so caches share it less";
    }

    private boolean tooShort(KeyType type, long since, long until) {
        if (type == KeyType.RUN_LUMI) {
            // a validity crossing a run boundary spans at least the rest of a run: long enough
            return (since >>> 32) == (until >>> 32) && until - since < minLumis;
        }
        return until - since < minTimeNanos;
    }

    private static String text(KeyType type, long key) {
        return KeyText.format(key, type);
    }
}
