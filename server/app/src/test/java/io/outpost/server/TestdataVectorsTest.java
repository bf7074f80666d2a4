package io.outpost.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.server.answer.JsonEncoder;
import io.outpost.server.support.WireDecoder;
import io.outpost.wire.AnswerEncoder;
import io.outpost.wire.AnswerKind;
import io.outpost.wire.Codec;
import io.outpost.wire.Column;
import io.outpost.wire.ColumnType;
import io.outpost.wire.TableEncoder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The shared wire-format vectors in testdata/ (NAME.bin with its decoded NAME.json) that the Java and C++ clients
 * decode. This test checks the committed files are exactly what the encoders produce and that the independent
 * test decoder accepts them; run with -Doutpost.regenerate-testdata=true to rewrite them after a format change.
 */
class TestdataVectorsTest {
    private static final Path DIR = Path.of("../../testdata");

    record Vector(AnswerKind kind, String folder, String tag, long vs, long vu, List<Column> columns, List<Object[]> rows,
                  Codec codec, int level) {
    }

    static Map<String, Vector> vectors() {
        Map<String, Vector> v = new LinkedHashMap<>();
        List<Column> all = new ArrayList<>(List.of(new Column("channel", ColumnType.UINT32),
                new Column("since", ColumnType.UINT63), new Column("until", ColumnType.UINT63)));
        for (ColumnType t : ColumnType.values()) {
            all.add(new Column("f_" + t.wireName(), t));
        }
        List<Object[]> rows = new ArrayList<>();
        rows.add(new Object[] {0L, 0L, 100L, true, (short) 255, (short) -32768, 65535, Integer.MIN_VALUE, 4294967295L,
            Long.MAX_VALUE, Long.MIN_VALUE, 1.5f, -2.25e-300, "short", "Grüße, 世界", "x".repeat(300), "", new byte[] {0, 1, 2, (byte) 255},
            new byte[0]});
        rows.add(new Object[] {4294967295L, 100L, Long.MAX_VALUE, false, (short) 0, (short) 32767, 0, Integer.MAX_VALUE, 0L,
            0L, -1L, -0.0f, Double.NaN, null, null, null, null, null, null});
        rows.add(new Object[] {7L, 5L, 6L, null, null, null, null, null, null, null, null, null, Double.POSITIVE_INFINITY,
            "tab\there \"quoted\" \\ back", "line\nbreak", "ok", "ok", new byte[] {42}, new byte[] {1, 2, 3}});
        v.put("iovs_all_types", new Vector(AnswerKind.IOVS, "/T/all", "HEAD", 5, 6, all, rows, Codec.ZSTD, 3));
        v.put("iovs_all_types_zlib", new Vector(AnswerKind.IOVS, "/T/all", "HEAD", 5, 6, all, rows, Codec.ZLIB, 6));
        v.put("iovs_all_types_uncompressed", new Vector(AnswerKind.IOVS, "/T/all", "HEAD", 5, 6, all, rows, Codec.NONE, 0));
        List<Column> small = List.of(new Column("channel", ColumnType.UINT32), new Column("since", ColumnType.UINT63),
                new Column("until", ColumnType.UINT63), new Column("s", ColumnType.STRING255));
        v.put("iovs_empty", new Vector(AnswerKind.IOVS, "/T/empty", "GAINS-v1", 10, 11, small, List.of(), Codec.ZSTD, 1));
        Random rnd = new Random(7);
        List<Object[]> many = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            StringBuilder s = new StringBuilder();
            for (int k = 0; k < 50; k++) {
                s.append((char) ('a' + rnd.nextInt(26)));
            }
            many.add(new Object[] {(long) i, 1767225600000000000L, Long.MAX_VALUE, s.toString()});
        }
        v.put("iovs_likeluis_2000", new Vector(AnswerKind.IOVS, "/LOAD/likeLuis1iov", "HEAD", 1767225600000000000L,
                Long.MAX_VALUE, small, many, Codec.ZSTD, 1));
        v.put("count", new Vector(AnswerKind.COUNT, "/T/all", "HEAD", 0, 0, List.of(new Column("count", ColumnType.UINT63)),
                List.<Object[]>of(new Object[] {12345L}), Codec.ZSTD, 1));
        v.put("nodes", new Vector(AnswerKind.NODES, "", "", 0, 0, List.of(new Column("path", ColumnType.STRING255),
                new Column("folder", ColumnType.BOOL), new Column("versioning", ColumnType.STRING255)),
                List.of(new Object[] {"/", false, null}, new Object[] {"/A/b", true, "MV"}), Codec.ZLIB, 6));
        return v;
    }

    static byte[] encode(Vector v, TableEncoder e) {
        e.begin(v.kind(), v.folder(), v.tag(), v.vs(), v.vu(), v.columns());
        v.rows().forEach(e::row);
        return e.finish();
    }

    @Test
    void committedVectorsAreWhatTheEncodersProduce() throws IOException {
        boolean regenerate = Boolean.getBoolean("outpost.regenerate-testdata");
        for (var e : vectors().entrySet()) {
            byte[] bin = encode(e.getValue(), new AnswerEncoder(e.getValue().codec(), e.getValue().level()));
            byte[] json = encode(e.getValue(), new JsonEncoder());
            Path binFile = DIR.resolve(e.getKey() + ".bin");
            Path jsonFile = DIR.resolve(e.getKey() + ".json");
            if (regenerate) {
                Files.createDirectories(DIR);
                Files.write(binFile, bin);
                Files.write(jsonFile, json);
            }
            assertThat(Files.readAllBytes(binFile)).as(binFile.toString()).isEqualTo(bin);
            assertThat(Files.readAllBytes(jsonFile)).as(jsonFile.toString()).isEqualTo(json);
            WireDecoder.Table t = WireDecoder.decode(bin);
            assertThat(t.rows()).hasSize(e.getValue().rows().size());
            assertThat(t.columns()).hasSize(e.getValue().columns().size());
            assertThat(t.kind()).isEqualTo(e.getValue().kind().code());
        }
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.EnumSource(Codec.class)
    void decoderRejectsEveryTruncationAndEveryFlippedByte(Codec codec) throws IOException {
        byte[] bin = encode(vectors().get("iovs_all_types"), new AnswerEncoder(codec, codec == Codec.ZLIB ? 6 : 3));
        for (int cut = 0; cut < bin.length; cut += 7) {
            byte[] truncated = java.util.Arrays.copyOf(bin, cut);
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> WireDecoder.decode(truncated)).isInstanceOf(IOException.class);
        }
        // A flipped bit either is detected or fell on bits deflate ignores (padding, unused code lengths):
        // then the decoded table must be exactly the original.
        String original = WireDecoder.decode(bin).toString();
        List<Integer> undetected = new ArrayList<>();
        for (int i = 0; i < bin.length; i++) {
            byte[] flipped = bin.clone();
            flipped[i] ^= 0x20;
            try {
                if (!WireDecoder.decode(flipped).toString().equals(original)) {
                    undetected.add(i);
                }
            } catch (IOException expected) {
                // detected
            }
        }
        assertThat(undetected).as("positions of flipped bytes that changed the table undetected").isEmpty();
    }
}
