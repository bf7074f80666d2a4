package io.outpost.server.cache;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A kept signature is reused while it outlives the max-age about to be sent by half the grace, re-signed after. */
class SignatureMemoTest {
    private final SignatureMemo memo = new SignatureMemo();
    private final List<Long> signed = new ArrayList<>();

    private String header(String path, long now, long maxAge) {
        return memo.header(path, now, maxAge, 300, expires -> {
            signed.add(expires);
            return path + "@" + expires;
        });
    }

    @Test
    void reusedWhileLongEnoughThenResigned() {
        assertThat(header("/a", 1000, 60)).isEqualTo("/a@1360");
        assertThat(header("/a", 1100, 60)).as("1360 >= 1100 + 60 + 150").isEqualTo("/a@1360");
        assertThat(header("/a", 1150, 60)).as("exactly enough left").isEqualTo("/a@1360");
        assertThat(header("/a", 1151, 60)).as("too little left for the max-age sent: re-signed").isEqualTo("/a@1511");
        assertThat(signed).containsExactly(1360L, 1511L);
    }

    @Test
    void twoPathsAreKeptApart() {
        assertThat(header("/current", 1000, 60)).isEqualTo("/current@1360");
        assertThat(header("/pinned", 1000, 31536000)).isEqualTo("/pinned@31537300");
        assertThat(header("/current", 1001, 60)).isEqualTo("/current@1360");
        assertThat(header("/pinned", 1001, 31536000)).isEqualTo("/pinned@31537300");
        assertThat(signed).hasSize(2);
    }
}
