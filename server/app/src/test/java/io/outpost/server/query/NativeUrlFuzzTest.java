package io.outpost.server.query;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;

/**
 * Jazzer fuzz target for the native API's URL parser. The only failure it may report is a BadQueryException with a
 * 4xx status and a message; a parsed query's canonical path must parse to itself.
 *
 * <p>In the normal suite the target runs over its committed corpus in
 * {@code src/test/resources/io/outpost/server/query/NativeUrlFuzzTestInputs/nativePath/} (regression mode), which
 * {@code FuzzCorpusOverHttpTest} also sends to a running service. To fuzz, run with {@code JAZZER_FUZZ=1} and
 * {@code -Dtest=NativeUrlFuzzTest}; new findings land in that folder.
 */
class NativeUrlFuzzTest {

    @FuzzTest(maxDuration = "30s")
    void nativePath(byte[] input) {
        String path = new String(input, StandardCharsets.UTF_8);
        try {
            Query q = QueryParser.parse(path);
            String canonical = q.canonicalPath();
            assertThat(QueryParser.parse(canonical).canonicalPath()).isEqualTo(canonical);
        } catch (BadQueryException e) {
            assertThat(e.status()).isBetween(400, 499);
            assertThat(e.getMessage()).isNotBlank();
        }
    }
}
