package io.outpost.frontier.encode;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Short rows are fetched in bigger batches after the first; big rows keep the first size. */
class FetchSizingTest {

    @Test
    void batchesCarryAboutHalfAMegabyteWithinBounds() {
        assertThat(FetchSizing.size(95)).isEqualTo(FetchSizing.MOST); // likeLuis1iov: 5,000 a fetch, 3 fetches in all
        assertThat(FetchSizing.size(200)).isEqualTo((int) (FetchSizing.BATCH_BYTES / 200));
        assertThat(FetchSizing.size(10)).isEqualTo(FetchSizing.MOST);
        assertThat(FetchSizing.size(0)).isEqualTo(FetchSizing.MOST);
        assertThat(FetchSizing.size(1_000)).isEqualTo((int) (FetchSizing.BATCH_BYTES / 1_000));
        assertThat(FetchSizing.size(2_000)).isEqualTo(FetchSizing.FIRST);
        assertThat(FetchSizing.size(1 << 20)).isEqualTo(FetchSizing.FIRST);
    }
}
