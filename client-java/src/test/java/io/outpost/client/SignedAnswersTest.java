package io.outpost.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outpost.client.testing.FakeOutpost;
import io.outpost.client.testing.FakeServer;
import io.outpost.testkit.SigningKeys;
import io.outpost.testkit.TempDirs;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * security=sig and verifykey (docs/client-failover.md "Signed answers"): the configuration, key rotation, and a
 * server that does not sign. Through a real service, Squid and tampering proxies: SignedAnswersThroughSquidTest
 * (server/integration).
 */
class SignedAnswersTest {
    private static Path dir;
    private static SigningKeys oldKey;
    private static SigningKeys newKey;

    @BeforeAll
    static void keys() {
        dir = TempDirs.create("client-signed");
        oldKey = SigningKeys.create(dir, "old");
        newKey = SigningKeys.create(dir, "new");
    }

    @AfterAll
    static void cleanUp() {
        TempDirs.deleteQuietly(dir);
    }

    /** FakeOutpost's answers, signed with {@code key} as {@code keyId} for the target the client sent. */
    private static FakeServer.Handler signedBy(SigningKeys key, String keyId) {
        FakeOutpost outpost = new FakeOutpost();
        return r -> {
            FakeServer.Reply reply = outpost.handle(r);
            if (reply.status() == 200) {
                reply.headers().put("X-Outpost-Signature", key.header(keyId, r.target(), reply.body()));
            }
            return reply;
        };
    }

    @Test
    void theConfigurationNamesItsKeysAndRefusesSigWithoutOne() {
        ClientConfig cfg = ClientConfig.parse("(serverurl=http://a:8000)(security=sig)(verifykey=k-1:" + oldKey.publicKey()
                + ")(verifykey=k-2:" + newKey.publicKey() + ")");
        assertThat(cfg.signedAnswers()).isTrue();
        assertThat(cfg.verifyKeys()).containsExactly(java.util.Map.entry("k-1", oldKey.publicKey().toString()),
                java.util.Map.entry("k-2", newKey.publicKey().toString()));
        assertThat(ClientConfig.parse(cfg.toString()).verifyKeys()).isEqualTo(cfg.verifyKeys());
        assertThatThrownBy(() -> ClientConfig.parse("(serverurl=http://a:8000)(security=sig)"))
                .hasMessageContaining("security=sig needs at least one verifykey=KEYID:FILE");
        assertThatThrownBy(() -> ClientConfig.parse("(serverurl=http://a:8000)(verifykey=" + oldKey.publicKey() + ")"))
                .hasMessageContaining("verifykey is KEYID:FILE");
        assertThatThrownBy(() -> ClientConfig.parse("(serverurl=http://a:8000)(security=md5)"))
                .hasMessageContaining("security must be sig or none");
        assertThat(ClientConfig.parse("(serverurl=http://a:8000)(verifykey=k:" + oldKey.publicKey() + ")").warnings())
                .containsExactly("verifykey is ignored without security=sig: answers are not verified");
    }

    @Test
    void aKeyFileThatIsNoPublicKeyFailsWhenTheClientIsCreated() throws Exception {
        Path bad = Files.writeString(dir.resolve("bad.pub"), "not a key\n");
        ClientConfig cfg = ClientConfig.parse("(serverurl=http://a:8000)(security=sig)(verifykey=k:" + bad + ")");
        assertThatThrownBy(() -> OutpostClient.create(cfg)).hasMessageContaining("verifykey " + bad)
                .hasMessageContaining("not a PEM public key");
    }

    @Test
    void eitherConfiguredKeyVerifiesSoKeysCanBeRotated() throws Exception {
        try (FakeServer old = FakeServer.start(signedBy(oldKey, "k-1"));
             FakeServer rotated = FakeServer.start(signedBy(newKey, "k-2"))) {
            for (FakeServer server : new FakeServer[] {old, rotated}) {
                ClientConfig cfg = ClientConfig.parse("(serverurl=" + server.url() + ")(security=sig)(verifykey=k-1:"
                        + oldKey.publicKey() + ")(verifykey=k-2:" + newKey.publicKey() + ")(retries=0)");
                try (OutpostClient c = OutpostClient.create(cfg)) {
                    assertThat(c.channels("/A/Time")).hasSize(FakeOutpost.CHANNELS);
                }
            }
        }
    }

    @Test
    void anUnknownKeyIdOrAnUnsignedServerIsAFailedRouteAndTheNextServerAnswers() throws Exception {
        try (FakeServer unknownKey = FakeServer.start(signedBy(newKey, "k-9"));
             FakeServer unsigned = FakeServer.start(new FakeOutpost());
             FakeServer good = FakeServer.start(signedBy(oldKey, "k-1"))) {
            ClientConfig cfg = ClientConfig.parse("(serverurl=" + unknownKey.url() + ")(serverurl=" + unsigned.url()
                    + ")(serverurl=" + good.url() + ")(security=sig)(verifykey=k-1:" + oldKey.publicKey() + ")(retries=0)");
            java.util.List<ClientEvent> events = new java.util.ArrayList<>();
            try (OutpostClient c = OutpostClient.builder(cfg).eventListener(events::add).build()) {
                assertThat(c.channels("/A/Time")).hasSize(FakeOutpost.CHANNELS);
            }
            assertThat(events).filteredOn(e -> e instanceof ClientEvent.AttemptFailed)
                    .map(e -> ((ClientEvent.AttemptFailed) e).detail())
                    .containsExactly("answer signed with unknown key 'k-9' (verifykey has [k-1])",
                            "answer has no signature (X-Outpost-Signature)");
            try (OutpostClient c = OutpostClient.create(ClientConfig.parse("(serverurl=" + unsigned.url()
                    + ")(security=sig)(verifykey=k-1:" + oldKey.publicKey() + ")(retries=0)"))) {
                assertThatThrownBy(() -> c.channels("/A/Time")).isInstanceOf(OutpostException.class)
                        .hasMessageContaining("answer has no signature");
            }
        }
    }
    /** The configuration of a job asking {@code servers} in order, verifying with the old key as k-1. */
    private static ClientConfig signedConfig(String extra, FakeServer... servers) {
        StringBuilder sb = new StringBuilder();
        for (FakeServer s : servers) {
            sb.append("(serverurl=").append(s.url()).append(')');
        }
        return ClientConfig.parse(sb + "(security=sig)(verifykey=k-1:" + oldKey.publicKey() + ")(retries=0)"
                + "(cachewindow=0)" + extra);
    }

    private static java.util.List<String> failures(java.util.List<ClientEvent> events) {
        return events.stream().filter(e -> e instanceof ClientEvent.AttemptFailed)
                .map(e -> ((ClientEvent.AttemptFailed) e).kind() + " " + ((ClientEvent.AttemptFailed) e).detail())
                .toList();
    }

    /**
     * A server that moves every native read to /moved/…: with a signed 301 (as the service signs its own), or
     * unsigned; what it serves under /moved is FakeOutpost's answer, signed for the target asked.
     */
    private static FakeServer.Handler redirecting(boolean signRedirect) {
        FakeServer.Handler signed = signedBy(oldKey, "k-1");
        return r -> {
            if (r.target().startsWith("/moved/")) {
                FakeServer.Reply reply = signed.handle(new FakeServer.Request(r.method(),
                        r.target().substring("/moved".length()), r.headers()));
                reply.headers().put("X-Outpost-Signature", oldKey.header("k-1", r.target(), reply.body()));
                return reply;
            }
            String location = "/moved" + r.target();
            FakeServer.Reply moved = FakeServer.Reply.of(301, new byte[0], "Location", location);
            if (signRedirect) {
                moved.headers().put("X-Outpost-Signature", oldKey.header("k-1", r.target(), 301, location, "",
                        System.currentTimeMillis() / 1000 + 300, new byte[0]));
            }
            return moved;
        };
    }

    @Test
    void aSignedRedirectIsFollowedAnUnsignedOneIsRefusedLikeABadAnswer() throws Exception {
        try (FakeServer unsignedMove = FakeServer.start(redirecting(false));
             FakeServer signedMove = FakeServer.start(redirecting(true))) {
            java.util.List<ClientEvent> events = new java.util.ArrayList<>();
            try (OutpostClient c = OutpostClient.builder(signedConfig("", unsignedMove, signedMove))
                    .eventListener(events::add).build()) {
                assertThat(c.channels("/A/Time")).hasSize(FakeOutpost.CHANNELS);
            }
            assertThat(failures(events)).containsExactly("UNSIGNED redirect to /moved/v1/bin/channels/A/Time refused:"
                    + " HTTP 301 has no signature (X-Outpost-Signature)");
            assertThat(unsignedMove.requests()).extracting(FakeServer.Request::target)
                    .as("the unsigned redirect was not followed").containsExactly("/v1/bin/channels/A/Time");
            assertThat(signedMove.requests()).extracting(FakeServer.Request::target)
                    .containsExactly("/v1/bin/channels/A/Time", "/moved/v1/bin/channels/A/Time");
        }
    }

    @Test
    void anExpiredSignatureIsRefusedSayingSo() throws Exception {
        FakeOutpost outpost = new FakeOutpost();
        try (FakeServer replaying = FakeServer.start(r -> {
            FakeServer.Reply reply = outpost.handle(r);
            reply.headers().put("X-Outpost-Signature", oldKey.header("k-1", r.target(), 200, "", "",
                    System.currentTimeMillis() / 1000 - 10, reply.body()));
            return reply;
        }); OutpostClient c = OutpostClient.create(signedConfig("", replaying))) {
            assertThatThrownBy(() -> c.channels("/A/Time")).isInstanceOf(OutpostException.class)
                    .hasMessageContaining("signature by key 'k-1' expired");
        }
    }

    @Test
    void theOldFormatIsAcceptedOnlyWhereConfigured() throws Exception {
        FakeOutpost outpost = new FakeOutpost();
        try (FakeServer old = FakeServer.start(r -> {
            FakeServer.Reply reply = outpost.handle(r);
            reply.headers().put("X-Outpost-Signature", oldKey.headerSig1("k-1", r.target(), reply.body()));
            return reply;
        })) {
            try (OutpostClient c = OutpostClient.create(signedConfig("", old))) {
                assertThatThrownBy(() -> c.channels("/A/Time")).isInstanceOf(OutpostException.class)
                        .hasMessageContaining("accepted only with acceptsig1=yes");
            }
            ClientConfig accepting = signedConfig("(acceptsig1=yes)", old);
            assertThat(accepting.acceptSig1()).isTrue();
            assertThat(ClientConfig.parse(accepting.toString()).acceptSig1()).isTrue();
            try (OutpostClient c = OutpostClient.create(accepting)) {
                assertThat(c.channels("/A/Time")).hasSize(FakeOutpost.CHANNELS);
            }
        }
    }

    @Test
    void anAtTimeAnswerNotValidAtTheKeyAskedIsRefusedAndTheNextServerAsked() throws Exception {
        FakeOutpost outpost = new FakeOutpost();
        // a signer that signs whatever it is handed: another key's answer under the target asked
        try (FakeServer misplaced = FakeServer.start(r -> {
            String target = r.target().replaceFirst("/at/HEAD/550/", "/at/HEAD/150/");
            FakeServer.Reply reply = outpost.handle(new FakeServer.Request(r.method(), target, r.headers()));
            reply.headers().put("X-Outpost-Signature", oldKey.header("k-1", r.target(), reply.body()));
            return reply;
        }); FakeServer good = FakeServer.start(signedBy(oldKey, "k-1"))) {
            java.util.List<ClientEvent> events = new java.util.ArrayList<>();
            try (OutpostClient c = OutpostClient.builder(signedConfig("", misplaced, good)).eventListener(events::add)
                    .build()) {
                Iov iov = c.find("/A/Time", OutpostClient.HEAD, 3, 550).orElseThrow();
                assertThat(iov.since()).isEqualTo(500);
            }
            assertThat(failures(events)).singleElement().asString().startsWith("UNSIGNED ")
                    .contains("GET /v1/bin/at/HEAD/550/3/A/Time: the answer holds channel 3")
                    .contains("[100, 200), not valid at the key 550");
        }
    }
    @Test
    void aStreamedBrowseIsVerifiedWholeBeforeItsFirstRow() throws Exception {
        FakeOutpost outpost = new FakeOutpost();
        try (FakeServer altered = FakeServer.start(r -> {
            FakeServer.Reply reply = outpost.handle(r);
            reply.headers().put("X-Outpost-Signature", oldKey.header("k-1", r.target(), reply.body()));
            reply.body()[reply.body().length / 2] ^= 1; // altered after signing
            return reply;
        }); FakeServer good = FakeServer.start(signedBy(oldKey, "k-1"))) {
            java.util.List<ClientEvent> events = new java.util.ArrayList<>();
            int rows = 0;
            try (OutpostClient c = OutpostClient.builder(signedConfig("", altered, good)).eventListener(events::add)
                    .build(); IovStream s = c.browseStream("/A/Time", OutpostClient.HEAD, 0, 999,
                    ChannelSelection.all(), Order.CHANNEL_SINCE)) {
                while (s.next() != null) {
                    rows++;
                }
            }
            assertThat(rows).isEqualTo(FakeOutpost.CHANNELS * 10);
            assertThat(failures(events)).singleElement().asString().startsWith("UNSIGNED signature by key 'k-1' does"
                    + " not verify");
        }
    }
}
