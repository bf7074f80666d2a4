package io.outpost.server.answer;

import io.outpost.wire.AnswerKind;
import io.outpost.wire.Column;
import io.outpost.wire.TableEncoder;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.ObjectWriteContext;
import tools.jackson.core.json.JsonFactory;

/** The JSON answer of docs/wire-format.md, streamed row by row with Jackson's generator. */
public final class JsonEncoder implements TableEncoder {
    public static final String CONTENT_TYPE = "application/json";
    private static final JsonFactory FACTORY = new JsonFactory();

    /** A value that is itself a JSON document (a snapshot's folder answer), written as it is, not as a string. */
    public record Nested(byte[] json) {
    }

    private final Set<String> nestedColumns;
    private final ByteArrayOutputStream buffer = new ByteArrayOutputStream(4096);
    private final JsonGenerator gen = FACTORY.createGenerator(ObjectWriteContext.empty(), buffer);
    private List<Column> columns;
    private long rows;

    public JsonEncoder() {
        this(Set.of());
    }

    /** {@code nestedColumns}: columns whose values are {@link Nested} documents; their type is written "Object". */
    public JsonEncoder(Set<String> nestedColumns) {
        this.nestedColumns = nestedColumns;
    }

    @Override
    public void begin(AnswerKind kind, String folder, String tag, long validSince, long validUntil,
                      List<Column> columns) {
        this.columns = columns;
        gen.writeStartObject();
        gen.writeStringProperty("kind", kind.jsonName());
        gen.writeStringProperty("folder", folder);
        gen.writeStringProperty("tag", tag);
        gen.writeNumberProperty("validSince", validSince);
        gen.writeNumberProperty("validUntil", validUntil);
        gen.writeName("columns");
        gen.writeStartArray();
        for (Column c : columns) {
            gen.writeStartObject();
            gen.writeStringProperty("name", c.name());
            gen.writeStringProperty("type", nestedColumns.contains(c.name()) ? "Object" : c.type().wireName());
            gen.writeEndObject();
        }
        gen.writeEndArray();
        gen.writeName("rows");
        gen.writeStartArray();
    }

    @Override
    public void row(Object[] values) {
        gen.writeStartArray();
        for (int i = 0; i < columns.size(); i++) {
            Object v = values[i];
            switch (v) {
                case null -> gen.writeNull();
                case Boolean b -> gen.writeBoolean(b);
                case Float f when !Float.isFinite(f) -> gen.writeString(f.toString());
                case Double d when !Double.isFinite(d) -> gen.writeString(d.toString());
                case Float f -> gen.writeNumber(f);
                case Double d -> gen.writeNumber(d);
                case Short s -> gen.writeNumber(s);
                case Integer n -> gen.writeNumber(n);
                case Long n -> gen.writeNumber(n);
                case String s -> gen.writeString(s);
                case byte[] b -> gen.writeBinary(b);
                case Nested n -> gen.writeRawValue(new String(n.json(), StandardCharsets.UTF_8));
                default -> gen.writeString(v.toString());
            }
        }
        gen.writeEndArray();
        rows++;
    }

    @Override
    public byte[] finish() {
        return finish(java.util.Map.of());
    }

    /** Ends the document with {@code notes} as string properties after the row count (e.g. a snapshot's warning). */
    public byte[] finish(java.util.Map<String, String> notes) {
        gen.writeEndArray();
        gen.writeNumberProperty("rowCount", rows);
        for (java.util.Map.Entry<String, String> n : notes.entrySet()) {
            gen.writeStringProperty(n.getKey(), n.getValue());
        }
        gen.writeEndObject();
        gen.close();
        return buffer.toByteArray();
    }

    @Override
    public long rows() {
        return rows;
    }

    @Override
    public String contentType() {
        return CONTENT_TYPE;
    }
}
