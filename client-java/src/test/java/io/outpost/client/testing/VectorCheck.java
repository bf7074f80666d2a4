package io.outpost.client.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.client.Answer;
import io.outpost.wire.AnswerKind;
import io.outpost.wire.Column;
import io.outpost.wire.ColumnType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/** Decodes {@code NAME.bin} and compares it with {@code NAME.json}, the JSON form of docs/wire-format.md. */
public final class VectorCheck {
    private static final ObjectMapper JSON = new ObjectMapper();

    private VectorCheck() {
    }

    /** Compares {@code a}, the client's decoding of {@code bin}, with the JSON next to it. */
    public static void check(Path bin, Answer a) throws IOException {
        Path json = bin.resolveSibling(bin.getFileName().toString().replaceFirst("\\.bin$", ".json"));
        assertThat(json).as("expected decoding next to %s", bin).exists();
        JsonNode e = JSON.readTree(json.toFile());
        assertThat(a.kind()).isEqualTo(AnswerKind.ofJsonName(e.get("kind").stringValue()));
        assertThat(a.folder()).isEqualTo(e.get("folder").stringValue());
        assertThat(a.tag()).isEqualTo(e.get("tag").stringValue());
        assertThat(a.validSince()).isEqualTo(e.get("validSince").longValue());
        assertThat(a.validUntil()).isEqualTo(e.get("validUntil").longValue());
        JsonNode cols = e.get("columns");
        assertThat(a.columns()).hasSize(cols.size());
        for (int i = 0; i < cols.size(); i++) {
            assertThat(a.columns().get(i)).isEqualTo(new Column(cols.get(i).get("name").stringValue(),
                    ColumnType.ofWireName(cols.get(i).get("type").stringValue())));
        }
        JsonNode rows = e.get("rows");
        assertThat(a.rowCount()).isEqualTo(rows.size());
        if (e.has("rowCount")) {
            assertThat(a.rowCount()).isEqualTo(e.get("rowCount").intValue());
        }
        for (int r = 0; r < rows.size(); r++) {
            for (int c = 0; c < cols.size(); c++) {
                Object actual = a.rows().get(r).get(c);
                checkValue(a.columns().get(c), actual, rows.get(r).get(c), bin + " row " + r + " col " + c);
            }
        }
    }

    private static void checkValue(Column col, Object actual, JsonNode expected, String where) {
        if (expected.isNull()) {
            assertThat(actual).as(where).isNull();
            return;
        }
        assertThat(actual).as(where).isNotNull().isInstanceOf(col.type().javaType());
        switch (col.type()) {
            case BOOL -> assertThat(actual).as(where).isEqualTo(expected.asBoolean());
            case FLOAT -> assertThat(Float.floatToIntBits((Float) actual)).as(where)
                    .isEqualTo(Float.floatToIntBits((float) number(expected)));
            case DOUBLE -> assertThat(Double.doubleToLongBits((Double) actual)).as(where)
                    .isEqualTo(Double.doubleToLongBits(number(expected)));
            case STRING255, STRING4K, STRING64K, STRING16M -> assertThat(actual).as(where)
                    .isEqualTo(expected.stringValue());
            case BLOB64K, BLOB16M -> assertThat((byte[]) actual).as(where)
                    .isEqualTo(Base64.getDecoder().decode(expected.stringValue()));
            default -> assertThat(((Number) actual).longValue()).as(where).isEqualTo(expected.longValue());
        }
    }

    private static double number(JsonNode n) {
        if (n.isString()) {
            return switch (n.stringValue()) {
                case "NaN" -> Double.NaN;
                case "Infinity" -> Double.POSITIVE_INFINITY;
                case "-Infinity" -> Double.NEGATIVE_INFINITY;
                default -> throw new AssertionError("not a number: " + n);
            };
        }
        return n.doubleValue();
    }
}
