package io.outpost.server.signing;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The shared signature vectors (testdata/signatures/cases.json): with the published test key the signer writes every
 * {@code ok} header byte for byte, so the service and the three clients agree on the message, not only each with
 * itself.
 */
class SignatureVectorsTest {
    private static final Path DIR = Path.of("../../testdata/signatures");

    @Test
    void theSignerReproducesEveryOkHeaderOfTheVectors() throws Exception {
        JsonNode root = JsonMapper.builder().build().readTree(DIR.resolve("cases.json").toFile());
        AnswerSigner signer = AnswerSigner.of(new SigningProperties(DIR.resolve(root.get("private_key").asString()),
                root.get("key_id").asString(), Duration.ofSeconds(300)));
        List<String> checked = new ArrayList<>();
        for (JsonNode c : root.get("cases")) {
            String header = c.get("header").asString();
            if (!c.get("verdict").asString().equals("ok")) {
                continue;
            }
            long expires = Long.parseLong(header.split(" ")[3]);
            byte[] body = Base64.getDecoder().decode(c.get("body_base64").asString());
            String signed = signer.header(c.get("target").asString(), c.get("status").asInt(),
                    c.get("location").asString(), c.get("etag").asString(), expires, body);
            assertThat(signed).as(c.get("name").asString()).isEqualTo(header);
            checked.add(c.get("name").asString());
        }
        assertThat(checked).contains("answer", "redirect", "empty-body", "percent-encoded-target", "expires-now");
    }

    @Test
    void theExpiryIsTheMaxAgeSentPlusTheGrace() throws Exception {
        Path key = DIR.resolve("test-2026.key.pem");
        AnswerSigner signer = AnswerSigner.of(new SigningProperties(key, "test-2026", Duration.ofSeconds(300)),
                InstantSource.fixed(Instant.ofEpochSecond(1798761600L)));
        assertThat(signer.expiresFor("public, max-age=86400")).isEqualTo(1798848300L);
        assertThat(signer.expiresFor("public, max-age=60, stale-if-error=86400")).isEqualTo(1798761960L);
        assertThat(signer.expiresFor("no-store")).as("no max-age: the grace alone").isEqualTo(1798761900L);
        assertThat(signer.redirectHeader("/v1/json/at/HEAD/1767243600000000000/1/DEMO%2FCalo%2FPedestals",
                "/v1/json/at/HEAD/1767243600000000000/1/DEMO/Calo/Pedestals", signer.expiresFor("public, max-age=86400")))
                .as("the vectors' signed redirect").startsWith("outpost-sig-2 ed25519 test-2026 1798848300 faEvKPd0");
    }
}
