package io.outpost.server.pin;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.ValidityKey;
import io.outpost.store.model.Versioning;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.util.unit.DataSize;

/** The short-validity rule per key type: time against a duration, run-lumi against lumi sections within a run. */
class SnapshotValidityWarningTest {
    private static final State STATE = new State("GT-W", "/", List.of(), "0123456789abcdef");

    private static Node folder(String path, KeyType type) {
        return new Node(1, 0L, path.substring(1), path, "", true, Versioning.MULTI_VERSION, type,
                PayloadSpec.parse("v:Int32"), "OUTPOST_F0001", "");
    }

    private static SnapshotValidity rule(SimpleMeterRegistry registry) {
        return new SnapshotValidity(new SnapshotProperties(Duration.ofSeconds(10), Duration.ofDays(365),
                Duration.ofSeconds(2), DataSize.ofKilobytes(32), Duration.ofMinutes(1), 10), registry);
    }

    @Test
    void runLumiSnapshotsWarnUnderTheLumiMinimumWithinARunOnly() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        SnapshotValidity rule = rule(registry);
        Node calib = folder("/CALIB", KeyType.RUN_LUMI);
        long run302 = ValidityKey.fromRunLumi(302, 0);
        String warning = rule.warning(STATE, List.of(new SnapshotValidity.FolderValidity(calib, run302 + 5,
                run302 + 9)));
        assertThat(warning).contains("run-lumi", "[302/5, 302/9)", "10 lumi sections", "/CALIB");
        // from run 302 into run 303: long enough, whatever the lumi numbers
        assertThat(rule.warning(STATE, List.of(new SnapshotValidity.FolderValidity(calib, run302 + 100,
                ValidityKey.fromRunLumi(303, 2))))).isNull();
        assertThat(registry.counter("outpost.snapshot.short.validity", "globaltag", "GT-W").count()).isEqualTo(1);
    }

    @Test
    void timeSnapshotsWarnUnderTheDurationNamingTheNarrowestFolder() {
        SnapshotValidity rule = rule(new SimpleMeterRegistry());
        long minute = 60_000_000_000L;
        Node wide = folder("/WIDE", KeyType.TIME);
        Node narrow = folder("/NARROW", KeyType.TIME);
        assertThat(rule.warning(STATE, List.of(new SnapshotValidity.FolderValidity(wide, 0, 10 * minute),
                new SnapshotValidity.FolderValidity(narrow, 5 * minute, 5 * minute + 30_000_000_000L))))
                .contains("time folders", "/NARROW", "1m minimum");
        assertThat(rule.warning(STATE, List.of(new SnapshotValidity.FolderValidity(wide, 0, minute)))).isNull();
    }
}
