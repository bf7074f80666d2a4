package io.outpost.loadtest;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class CoreSplitTest {

    @Test
    void cpuListsAreParsedAsTheKernelWritesThem() {
        assertThat(CoreSplit.parseList("0-1")).containsExactly(0, 1);
        assertThat(CoreSplit.parseList("0-3,6,8-9")).containsExactly(0, 1, 2, 3, 6, 8, 9);
        assertThat(CoreSplit.parseList("5")).containsExactly(5);
        assertThat(CoreSplit.list(List.of(2, 3))).isEqualTo("2,3");
    }

    @Test
    void thisProcessKnowsWhichCpusItMayUse() {
        // read-only: the split itself would restrict the test JVM, so only the discovery is exercised here
        assertThat(CoreSplit.allowedCpus()).isNotEmpty().hasSizeGreaterThanOrEqualTo(1)
                .allSatisfy(c -> assertThat(c).isNotNegative());
    }
}
