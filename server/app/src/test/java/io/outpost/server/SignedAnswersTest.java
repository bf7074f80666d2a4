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
 * against the documented message (outpost-sig-2): computed answers, memory hits, pinned, state and snapshot answers,
 * redirects and 304s; never errors.
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

    /** Checks the signature header of {@code r}, a 200 or 301, against {@code path} with the JDK's own verifier. */
    private static boolean verifies(String path, HttpResponse<byte[]> r) throws Exception {
        return verifies(path, r, r.body());
    }

    /** As {@link #verifies(String, HttpResponse)}, of {@code body} (the stored answer a 304 signs anew). */
    private static boolean verifies(String path, HttpResponse<byte[]> r, byte[] body) throws Exception {
        String[] parts = r.headers().firstValue("X-Outpost-Signature").orElseThrow().split(" ");
        assertThat(parts).hasSize(5);
        assertThat(parts[0]).isEqualTo("outpost-sig-2");
        assertThat(parts[1]).isEqualTo("ed25519");
        assertThat(parts[2]).isEqualTo("site-2026");
        long expires = Long.parseLong(parts[3]);
        long maxAge = io.outpost.server.signing.AnswerSigner.maxAge(r.headers().firstValue("Cache-Control").orElse(""));
        long now = System.currentTimeMillis() / 1000;
        assertThat(expires).as("max-age + the 300 s grace from now").isBetween(now + maxAge + 150, now + maxAge + 301);
        int status = r.statusCode() == 304 ? 200 : r.statusCode();
        String digest = HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(body));
        String message = String.join("\n", "outpost-sig-2", "GET", path, Integer.toString(status),
                r.headers().firstValue("Location").orElse(""), r.headers().firstValue("ETag").orElse(""), parts[3],
                digest);
        Signature s = Signature.getInstance("Ed25519");
        s.initVerify(key);
        s.update(message.getBytes(StandardCharsets.UTF_8));
        return s.verify(Base64.getDecoder().decode(parts[4]));
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
    void redirectsAndNotModifiedAreSignedErrorsAreNot() throws Exception {
        String path = "/v1/json/at/HEAD/" + T + "/all/DEMO/Calo/Pedestals";
        HttpResponse<byte[]> r = svc.get(path);
        String etag = r.headers().firstValue("ETag").orElseThrow();
        HttpResponse<byte[]> notModified = svc.get(path, "If-None-Match", etag);
        assertThat(notModified.statusCode()).isEqualTo(304);
        assertThat(verifies(path, notModified, r.body())).as("a 304 signs the stored answer anew").isTrue();
        String other = "/v1/json/at/HEAD/" + T + "/all/DEMO/DCS/HV";
        HttpResponse<byte[]> computed304 = svc.get(other, "If-None-Match", svc.get(other).headers()
                .firstValue("ETag").orElseThrow());
        assertThat(computed304.statusCode()).isEqualTo(304);
        assertThat(computed304.headers().firstValue("X-Outpost-Signature")).isPresent();

        String spelled = "/v1/json/at/HEAD/" + T + "/all/DEMO%2FCalo%2FPedestals";
        HttpResponse<byte[]> redirect = svc.get(spelled);
        assertThat(redirect.statusCode()).isEqualTo(301);
        assertThat(redirect.headers().firstValue("Location")).contains(path);
        assertThat(verifies(spelled, redirect)).as("the redirect is signed for the target asked").isTrue();
        assertThat(verifies(path, redirect)).isFalse();

        String encodedComma = "/v1/json/snapshot/DEMO-GT-2026/1767229200000000000%2C1297080123392";
        HttpResponse<byte[]> pinnedRedirect = svc.get(encodedComma);
        assertThat(pinnedRedirect.statusCode()).isEqualTo(301);
        assertThat(verifies(encodedComma, pinnedRedirect)).as("the pinned API's redirects too").isTrue();
        HttpResponse<byte[]> missing = svc.get("/v1/json/at/HEAD/" + T + "/all/NO/SUCH");
        assertThat(missing.statusCode()).isEqualTo(404);
        assertThat(missing.headers().firstValue("X-Outpost-Signature")).isEmpty();
    }

    @Test
    void aKeyFileThatIsNoPrivateKeyStopsTheStartNamingTheSetting() throws Exception {
        Path notAKey = Files.writeString(dir.resolve("not-a-key.pem"), "hello\n");
        assertThatThrownBy(() -> AnswerSigner.of(new io.outpost.server.signing.SigningProperties(notAKey, "k", null)))
                .hasMessageContaining("outpost.signing.key-file").hasMessageContaining("PKCS#8");
        // a key file without its key id is refused as the settings are bound (SettingsValidationTest)
        assertThat(new io.outpost.server.signing.SigningProperties(notAKey, null, null).isKeyIdValid()).isFalse();
    }
}
