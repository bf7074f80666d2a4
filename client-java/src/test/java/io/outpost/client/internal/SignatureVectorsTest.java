package io.outpost.client.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The shared signature vectors (testdata/signatures/cases.json), read as the C++ and Python clients read them: the
 * verifier reaches every case's verdict at the case's {@code now}, and together the cases reach every verdict.
 */
class SignatureVectorsTest {
    private static final Path DIR = Path.of(System.getProperty("outpost.testdata", "../testdata")).resolve("signatures");

    @Test
    void everyCaseGetsItsVerdictAndEveryVerdictIsReached() throws Exception {
        JsonNode root = JsonMapper.builder().build().readTree(DIR.resolve("cases.json").toFile());
        String keyId = root.get("key_id").asString();
        String publicKey = DIR.resolve(root.get("public_key").asString()).toString();
        AnswerVerifier strict = AnswerVerifier.of(Map.of(keyId, publicKey), false);
        AnswerVerifier acceptsSig1 = AnswerVerifier.of(Map.of(keyId, publicKey), true);
        Set<AnswerVerifier.Verdict> reached = EnumSet.noneOf(AnswerVerifier.Verdict.class);
        int cases = 0;
        for (JsonNode c : root.get("cases")) {
            String name = c.get("name").asString();
            String header = c.get("header").asString();
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(
                    Base64.getDecoder().decode(c.get("body_base64").asString()));
            AnswerVerifier.Check check = strict.check(c.get("target").asString(), c.get("status").asInt(),
                    c.get("location").asString(), c.get("etag").asString(), header.isEmpty() ? null : header, digest,
                    c.get("now").asLong());
            assertThat(check.verdict().label()).as(name + ": " + check.problem()).isEqualTo(c.get("verdict").asString());
            assertThat(check.ok() || check.problem() != null).isTrue();
            if (check.verdict() == AnswerVerifier.Verdict.EXPIRED) {
                assertThat(check.problem()).contains("expired");
            }
            if (check.verdict() == AnswerVerifier.Verdict.SIG1_REFUSED) {
                assertThat(acceptsSig1.check(c.get("target").asString(), c.get("status").asInt(),
                        c.get("location").asString(), c.get("etag").asString(), header, digest, c.get("now").asLong())
                        .verdict()).as(name + " with acceptsig1=yes").isEqualTo(AnswerVerifier.Verdict.OK);
            }
            reached.add(check.verdict());
            cases++;
        }
        assertThat(cases).isGreaterThanOrEqualTo(18);
        assertThat(reached).containsExactlyInAnyOrder(AnswerVerifier.Verdict.values());
    }
}
