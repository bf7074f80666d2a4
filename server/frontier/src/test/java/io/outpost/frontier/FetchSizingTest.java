package io.outpost.frontier;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Short rows are fetched in bigger batches after the first; big rows keep the first size. */
class FetchSizingTest {

    @Test
    void batchesCarryAboutAQuarterMegabyteWithinBounds() {
        assertThat(FetchSizing.size(95)).isEqualTo((int) (FetchSizing.BATCH_BYTES / 95)); // likeLuis1iov: ~2,700
        assertThat(FetchSizing.size(10)).isEqualTo(FetchSizing.MOST);
        assertThat(FetchSizing.size(0)).isEqualTo(FetchSizing.MOST);
        assertThat(FetchSizing.size(1_000)).isEqualTo(FetchSizing.FIRST);
        assertThat(FetchSizing.size(1 << 20)).isEqualTo(FetchSizing.FIRST);
    }
}
