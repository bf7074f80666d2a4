package io.outpost.frontier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outpost.frontier.encode.AnswerDeflate;
import io.outpost.frontier.encode.BlobEncoder;
import io.outpost.frontier.protocol.FrontierCommand;
import io.outpost.frontier.protocol.FrontierException;
import io.outpost.frontier.protocol.P1Codec;
import io.outpost.testkit.FrontierDecoder;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Byte-exact vectors written from the protocol reference (§1.2, §2.2, §2.3). */
class GoldenVectorsTest {

    @Test
    void p1EncodingOfTheReferenceExample() throws Exception {
        assertThat(P1Codec.encode("select 1 from dual")).isEqualTo("eNorTs1JTS5RMFRIK8rPVUgpTcwBAD0rBmw_");
        assertThat(P1Codec.encode("select 1 from dual\n")).isEqualTo("eNorTs1JTS5RMFRIK8rPVUgpTcwBAD0rBmw_");
        assertThat(P1Codec.decode("eNorTs1JTS5RMFRIK8rPVUgpTcwBAD0rBmw_")).isEqualTo("select 1 from dual");
        // padding is optional, as with upstream Base64Coder
        assertThat(P1Codec.decode("eNorTs1JTS5RMFRIK8rPVUgpTcwBAD0rBmw")).isEqualTo("select 1 from dual");
    }

    @Test
    void p1UsesTheUrlSafeSubstitutions() throws Exception {
        String sql = "SELECT \"I3\".\"CHANNEL_ID\" FROM OUTPOST_F0001_IOVS \"I3\" WHERE x > '??>>~~' ".repeat(3);
        String p1 = P1Codec.encode(sql);
        assertThat(p1).doesNotContain("+", "/", "=").startsWith("eNo");
        assertThat(P1Codec.decode(p1)).isEqualTo(sql);
    }

    @Test
    void p1RejectsGarbageWithClearMessages() {
        assertThatThrownBy(() -> P1Codec.decode("!!!!")).isInstanceOf(FrontierException.class).hasMessageContaining("base64");
        assertThatThrownBy(() -> P1Codec.decode("AAAA")).isInstanceOf(FrontierException.class).hasMessageContaining("zlib");
        assertThatThrownBy(() -> P1Codec.decode("eNorTs1JTS5RMFRIK8rP")).isInstanceOf(FrontierException.class)
                .hasMessageContaining("truncated");
    }

    private static String encode(int level) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BlobEncoder e = new BlobEncoder(out, level);
        e.writeString("ID");
        e.writeString("NUMBER(10)");
        e.writeEOR();
        e.writeString("1");
        e.writeEOR();
        e.close();
        assertThat(e.fullSize()).isEqualTo(30);
        return out.toString(StandardCharsets.US_ASCII) + "|" + e.md5Hex();
    }

    @Test
    void recordStreamOfTheReferenceHexExample() throws Exception {
        // 06 00000002 4944  06 0000000A 4E554D42455228313029  07   06 00000001 31  07
        assertThat(encode(-1)).isEqualTo("BgAAAAJJRAYAAAAKTlVNQkVSKDEwKQcGAAAAATEH|0e859fcda5515dfe607711285c274589");
        // zlib format (78 5E at level 5), md5 over the compressed bytes: the bytes of zlib itself (java.util.zip)
        System.setProperty(AnswerDeflate.PROPERTY, "jdk");
        try {
            assertThat(encode(5)).isEqualTo("eF5jY2BgYPJ0YQNSXH6hvk6uQRqGBprsID6jITsAM6gDZw==|14890f212dbe52d7367e0ce6431196c2");
        } finally {
            System.clearProperty(AnswerDeflate.PROPERTY);
        }
    }

    @Test
    void nullsAndBase64LinesOf76Columns() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BlobEncoder e = new BlobEncoder(out, -1);
        e.writeString(null);
        e.writeBytes(new byte[250]);
        e.writeEOR();
        e.close();
        String b64 = out.toString(StandardCharsets.US_ASCII);
        String[] lines = b64.split("\n", -1);
        assertThat(lines).hasSize(5);
        assertThat(lines[0]).hasSize(76).startsWith("hgYAAAD6");
        assertThat(b64).doesNotEndWith("\n");
        assertThat(FrontierDecoder.records(java.util.Base64.getMimeDecoder().decode(b64)))
                .hasSize(1).first().satisfies(r -> assertThat(r.get(0)).isNull());
    }

    @Test
    void encodingNames() throws Exception {
        assertThat(BlobEncoder.zipLevel("BLOB")).isEqualTo(-1);
        assertThat(BlobEncoder.zipLevel("BLOBzip")).isEqualTo(5);
        for (int i = 0; i <= 9; i++) {
            assertThat(BlobEncoder.zipLevel("BLOBzip" + i)).isEqualTo(i);
        }
        for (String bad : List.of("BLOBzip10", "BLOBzip-1", "BLOBzipx", "BLOBgz", "XML", "blob")) {
            assertThatThrownBy(() -> BlobEncoder.zipLevel(bad)).isInstanceOf(FrontierException.class);
        }
    }

    @Test
    void commandParsingFollowsUpstreamOrderRules() throws Exception {
        List<FrontierCommand> c = FrontierCommand.parse("/type=frontier_request:1:DEFAULT&encoding=BLOBzip5&p1=abc_"
                + "&ttl=short&freshkey=k&type=frontier_request:1&encoding=BLOB&p1=x%2By");
        assertThat(c).hasSize(2);
        assertThat(c.get(0).objectName()).isEqualTo("frontier_request");
        assertThat(c.get(0).params()).containsExactly(java.util.Map.entry("p1", "abc_"), java.util.Map.entry("ttl", "short"),
                java.util.Map.entry("freshkey", "k"));
        assertThat(c.get(1).method()).isEqualTo("DEFAULT");
        assertThat(c.get(1).param("p1")).isEqualTo("x+y");
        // only the text between the first and the second '=' is the value
        assertThat(FrontierCommand.parse("type=a:1&encoding=BLOB&p1=ab=cd").get(0).param("p1")).isEqualTo("ab");
        assertThatThrownBy(() -> FrontierCommand.parse("encoding=BLOB&type=a:1")).hasMessage("Unsupported request type [encoding]");
        assertThatThrownBy(() -> FrontierCommand.parse("type=a:1&p1=x&encoding=BLOB")).hasMessage("Unexpected parameter [p1=x]");
        assertThatThrownBy(() -> FrontierCommand.parse("type=a:1&encoding=BLOB&p1=x&p1=y")).hasMessageContaining("Duplicate");
        assertThatThrownBy(() -> FrontierCommand.parse("type=a:1")).hasMessageContaining("prematurely");
    }
}
