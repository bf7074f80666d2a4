package io.outpost.frontier.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The parse-tree shape the SQL guard was reviewed against: every node class {@link KnownNodes} admits, with every
 * field {@link ParseTreeWalk} reads (and the primitive ones it does not), as JSqlParser 5.4 declares them. A JSqlParser
 * upgrade that adds, renames, retypes or removes one fails here: review what the change means for
 * {@link AllowList} and {@link CoolSqlTranslation} (a new clause may need refusing), then update
 * {@code jsqlparser-node-fields.txt} with the listing this test prints.
 */
class ParseTreeShapeTest {
    private static final String REVIEWED = "jsqlparser-node-fields.txt";

    @Test
    void theNodeClassesAndFieldsAreThoseReviewed() throws IOException {
        String now = String.join("\n", listing()) + "\n";
        String reviewed;
        try (InputStream in = ParseTreeShapeTest.class.getResourceAsStream(REVIEWED)) {
            assertThat(in).as(REVIEWED).isNotNull();
            reviewed = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        Path listed = Path.of("target", REVIEWED);
        Files.createDirectories(listed.getParent());
        Files.writeString(listed, now);
        assertThat(now).as("JSqlParser's parse tree differs from the one the SQL guard was reviewed against; the"
                + " listing now is in " + listed).isEqualTo(reviewed);
    }

    @Test
    void theWalkReadsEveryFieldThatCanHoldANode() {
        for (Class<?> c : KnownNodes.CLASSES) {
            for (Class<?> x = c; x != null && x.getName().startsWith("net.sf.jsqlparser."); x = x.getSuperclass()) {
                for (Field f : x.getDeclaredFields()) {
                    if (!Modifier.isStatic(f.getModifiers()) && !f.getType().isPrimitive() && !f.isSynthetic()) {
                        assertThat(ParseTreeWalk.fields(c)).as(c.getName() + "." + f.getName()).contains(f);
                    }
                }
            }
        }
    }

    /** One line per node class, then one per field: declaring class, name, generic type. */
    static List<String> listing() {
        List<Class<?>> classes = new ArrayList<>(KnownNodes.CLASSES);
        classes.sort(Comparator.comparing(Class::getName));
        List<String> out = new ArrayList<>();
        for (Class<?> c : classes) {
            out.add(c.getName());
            List<String> fields = new ArrayList<>();
            for (Class<?> x = c; x != null && x.getName().startsWith("net.sf.jsqlparser."); x = x.getSuperclass()) {
                for (Field f : x.getDeclaredFields()) {
                    if (!Modifier.isStatic(f.getModifiers()) && !f.isSynthetic()) {
                        fields.add("  " + x.getSimpleName() + "." + f.getName() + ": " + f.getGenericType().getTypeName());
                    }
                }
            }
            fields.sort(null);
            out.addAll(fields);
        }
        return out;
    }
}
