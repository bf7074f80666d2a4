package io.outpost.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outpost.client.testing.FakeOutpost;
import io.outpost.client.testing.FakeServer;
import io.outpost.client.testing.WireEncoder;
import io.outpost.wire.AnswerDecoder;
import io.outpost.wire.CorruptAnswerException;
import java.io.ByteArrayInputStream;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * maxanswerbytes (docs/client-failover.md): a compressed answer that expands past the limit is refused while it is
 * decoded, and an answer over the limit is a corrupt answer on that route, whose honest neighbour then answers.
 */
class BoundedAnswersTest {

    private static byte[] manyRows(int n) {
        List<Object[]> rows = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            rows.add(new Object[] {0L, (long) i, (long) i + 1, 1.0, "x".repeat(200)});
        }
        return WireEncoder.iovs("/A/Time", "HEAD", FakeOutpost.PAYLOAD).codec(WireEncoder.CODEC_ZSTD).encode(rows);
    }

    @Test
    void aSmallCompressedBodyThatExpandsPastTheLimitIsRefusedWhileDecoded() throws Exception {
        byte[] bytes = manyRows(20_000); // about 4.5 MB decompressed, a few KB compressed
        assertThat(bytes.length).isLessThan(200_000);
        try (AnswerDecoder d = new AnswerDecoder(new ByteArrayInputStream(bytes), bytes.length, 1 << 20)) {
            d.readHeader();
            assertThatThrownBy(() -> {
                while (d.nextRow() != null) {
                    // decode until refused
                }
            }).isInstanceOf(CorruptAnswerException.class).hasMessageContaining("decompressed answer larger than 1048576");
        }
    }

    @Test
    void anAnswerOverTheLimitIsCorruptOnItsRouteAndTheNextServerAnswers() throws Exception {
        byte[] big = manyRows(20_000);
        FakeOutpost honest = new FakeOutpost();
        try (FakeServer bloated = FakeServer.start(r -> FakeServer.Reply.of(200, big, "Cache-Control", "max-age=60"));
             FakeServer good = FakeServer.start(honest)) {
            List<ClientEvent> events = new ArrayList<>();
            ClientConfig cfg = ClientConfig.parse("(serverurl=" + bloated.url() + ")(serverurl=" + good.url()
                    + ")(retries=0)(maxanswerbytes=1048576)(cachewindow=0)");
            assertThat(cfg.maxAnswerBytes()).isEqualTo(1 << 20);
            assertThat(ClientConfig.parse(cfg.toString()).maxAnswerBytes()).isEqualTo(1 << 20);
            try (OutpostClient c = OutpostClient.builder(cfg).eventListener(events::add).build()) {
                assertThat(c.channels("/A/Time")).hasSize(FakeOutpost.CHANNELS);
            }
            assertThat(events).filteredOn(e -> e instanceof ClientEvent.AttemptFailed)
                    .map(e -> (ClientEvent.AttemptFailed) e).hasSize(3).allSatisfy(f -> {
                        assertThat(f.kind()).isEqualTo(OutpostException.Kind.CORRUPT);
                        assertThat(f.detail()).contains("larger than");
                    });
        }
    }

    @Test
    void withSecurityASignedAnswerOverTheLimitIsRefusedWhileItIsReadAndTheNextServerAnswers() throws Exception {
        java.nio.file.Path dir = io.outpost.testkit.TempDirs.create("bounded-signed");
        try {
            io.outpost.testkit.SigningKeys key = io.outpost.testkit.SigningKeys.create(dir, "k");
            byte[] big = manyRows(20_000);
            FakeOutpost honest = new FakeOutpost();
            try (FakeServer bloated = FakeServer.start(r -> FakeServer.Reply.of(200, big, "Cache-Control", "max-age=60",
                    "X-Outpost-Signature", key.header("k", r.target(), big)));
                 FakeServer good = FakeServer.start(r -> {
                     FakeServer.Reply reply = honest.handle(r);
                     reply.headers().put("X-Outpost-Signature", key.header("k", r.target(), reply.body()));
                     return reply;
                 })) {
                List<ClientEvent> events = new ArrayList<>();
                ClientConfig cfg = ClientConfig.parse("(serverurl=" + bloated.url() + ")(serverurl=" + good.url()
                        + ")(retries=0)(maxanswerbytes=1048576)(cachewindow=0)(security=sig)(verifykey=k:"
                        + key.publicKey() + ")");
                try (OutpostClient c = OutpostClient.builder(cfg).eventListener(events::add).build()) {
                    assertThat(c.channels("/A/Time")).hasSize(FakeOutpost.CHANNELS);
                }
                assertThat(events).filteredOn(e -> e instanceof ClientEvent.AttemptFailed)
                        .map(e -> (ClientEvent.AttemptFailed) e).isNotEmpty().allSatisfy(f -> {
                            assertThat(f.kind()).isEqualTo(OutpostException.Kind.CORRUPT);
                            assertThat(f.detail()).contains("decompressed answer larger than 1048576");
                        });
            }
        } finally {
            io.outpost.testkit.TempDirs.deleteQuietly(dir);
        }
    }

    @Test
    void theLimitsHaveSaneDefaultsAndRefuseNonsense() {
        ClientConfig cfg = ClientConfig.parse("(serverurl=http://a:8000)");
        assertThat(cfg.maxAnswerBytes()).isEqualTo(256L << 20);
        assertThat(cfg.attemptTimeout()).hasSeconds(30);
        assertThat(ClientConfig.parse("(serverurl=http://a:8000)(attempttimeoutsecs=2.5)").attemptTimeout())
                .hasMillis(2500);
        assertThat(ClientConfig.parse("(serverurl=http://a:8000)(attempttimeout=7)").attemptTimeout()).hasSeconds(7);
        assertThatThrownBy(() -> ClientConfig.parse("(serverurl=http://a:8000)(maxanswerbytes=10)"))
                .hasMessageContaining("maxanswerbytes must be at least 1024");
        assertThatThrownBy(() -> ClientConfig.parse("(serverurl=http://a:8000)(attempttimeoutsecs=-1)"))
                .hasMessageContaining("(attempttimeoutsecs=-1): expected seconds");
    }
}
