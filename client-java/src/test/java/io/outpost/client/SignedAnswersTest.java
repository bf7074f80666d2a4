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
}
