package io.outpost.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outpost.server.signing.AnswerSigner;
import io.outpost.server.support.RunningService;
import io.outpost.store.demo.DemoData;
import io.outpost.testkit.SigningKeys;
import io.outpost.testkit.TempDirs;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;
import java.util.HexFormat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Answers signed with a configured Ed25519 key (docs/api.md "Signed answers"), checked here with the JDK alone
 * against the documented message: computed answers, memory hits, pinned, state and snapshot answers; none on
 * redirects and 304s.
 */
class SignedAnswersTest {
    private static final long T = DemoData.T0 + 5 * DemoData.HOUR + 7;
    private static Path dir;
    private static PublicKey key;
    private static RunningService svc;

    @BeforeAll
    static void start() throws Exception {
        dir = TempDirs.create("signed-answers");
        SigningKeys keys = SigningKeys.create(dir, "site");
        key = KeyFactory.getInstance("Ed25519").generatePublic(new X509EncodedKeySpec(Base64.getMimeDecoder().decode(
                Files.readString(keys.publicKey()).replaceAll("-----[A-Z ]+-----", ""))));
        svc = RunningService.startSqliteDemo("--outpost.signing.key-file=" + keys.privateKey(),
                "--outpost.signing.key-id=site-2026");
    }

    @AfterAll
    static void stop() {
        if (svc != null) {
            svc.close();
        }
        TempDirs.deleteQuietly(dir);
    }

    /** Checks the signature header of a 200 against {@code path} with the JDK's own verifier. */
    private static boolean verifies(String path, HttpResponse<byte[]> r) throws Exception {
        String[] parts = r.headers().firstValue("X-Outpost-Signature").orElseThrow().split(" ");
        assertThat(parts).hasSize(3);
        assertThat(parts[0]).isEqualTo("ed25519");
        assertThat(parts[1]).isEqualTo("site-2026");
        String digest = HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(r.body()));
        Signature s = Signature.getInstance("Ed25519");
        s.initVerify(key);
        s.update(("outpost-sig-1\n" + path + "\n" + digest).getBytes(StandardCharsets.UTF_8));
        return s.verify(Base64.getDecoder().decode(parts[2]));
    }

    @Test
    void computedAnswersAndTheirMemoryHitsCarryTheSameValidSignature() throws Exception {
        String path = "/v1/bin/at/HEAD/" + T + "/all/DEMO/Calo/Pedestals";
        HttpResponse<byte[]> computed = svc.get(path);
        HttpResponse<byte[]> hit = svc.get(path);
        assertThat(verifies(path, computed)).isTrue();
        assertThat(hit.headers().firstValue("X-Outpost-Signature")).isEqualTo(
                computed.headers().firstValue("X-Outpost-Signature"));
        assertThat(verifies("/v1/bin/at/HEAD/" + (T + 1) + "/all/DEMO/Calo/Pedestals", hit))
                .as("the URL is part of the message").isFalse();
        assertThat(verifies("/v1/json/nodes", svc.get("/v1/json/nodes"))).isTrue();
    }

    @Test
    void statePinnedAndSnapshotAnswersAreSigned() throws Exception {
        for (String path : new String[] {"/v1/json/state/HEAD/DEMO/Calo", "/v1/bin/globaltags",
            "/v1/json/snapshot/DEMO-GT-2026/1767229200000000000,1297080123392"}) {
            HttpResponse<byte[]> r = svc.get(path);
            assertThat(r.statusCode()).as(path).isEqualTo(200);
            assertThat(verifies(path, r)).as(path).isTrue();
            String pinned = r.headers().firstValue("X-Outpost-Snapshot").orElse(null);
            if (pinned != null) {
                HttpResponse<byte[]> p = svc.get(pinned);
                assertThat(p.statusCode()).isEqualTo(200);
                assertThat(verifies(pinned, p)).as("the same answer at its pinned URL is signed for that URL").isTrue();
                assertThat(verifies(path, svc.get(path))).as("and again at the first one").isTrue();
            }
        }
    }

    @Test
    void redirectsNotModifiedAndErrorsCarryNoSignature() throws Exception {
        String path = "/v1/json/at/HEAD/" + T + "/all/DEMO/Calo/Pedestals";
        HttpResponse<byte[]> r = svc.get(path);
        HttpResponse<byte[]> notModified = svc.get(path, "If-None-Match", r.headers().firstValue("ETag").orElseThrow());
        assertThat(notModified.statusCode()).isEqualTo(304);
        HttpResponse<byte[]> redirect = svc.get("/v1/json/at/HEAD/" + T + "/all/DEMO%2FCalo%2FPedestals");
        assertThat(redirect.statusCode()).isEqualTo(301);
        HttpResponse<byte[]> missing = svc.get("/v1/json/at/HEAD/" + T + "/all/NO/SUCH");
        assertThat(missing.statusCode()).isEqualTo(404);
        for (HttpResponse<byte[]> unsigned : java.util.List.of(notModified, redirect, missing)) {
            assertThat(unsigned.headers().firstValue("X-Outpost-Signature")).isEmpty();
        }
    }

    @Test
    void aKeyFileThatIsNoPrivateKeyStopsTheStartNamingTheSetting() throws Exception {
        Path notAKey = Files.writeString(dir.resolve("not-a-key.pem"), "hello\n");
        assertThatThrownBy(() -> AnswerSigner.of(new io.outpost.server.signing.SigningProperties(notAKey, "k")))
                .hasMessageContaining("outpost.signing.key-file").hasMessageContaining("PKCS#8");
        assertThatThrownBy(() -> new io.outpost.server.signing.SigningProperties(notAKey, null))
                .hasMessageContaining("outpost.signing.key-id");
    }
}
