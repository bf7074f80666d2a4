package io.outpost.server.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * docs/operations.md's configuration reference (section 6) lists every {@code outpost.*} setting the service binds,
 * and nothing else under that prefix. The settings are what Spring Boot's configuration processor found in the
 * {@code @ConfigurationProperties} records (META-INF/spring-configuration-metadata.json, written at compile time); a
 * list or map of records is spelt out as its entries' keys ({@code outpost.caching.classes[N].pattern},
 * {@code outpost.frontier.contexts.<name>.url}), as the table writes them.
 */
class SettingsTableTest {
    private static final Path OPERATIONS = Path.of("../../docs/operations.md");
    /** A table row's first cell: one or more backquoted keys. */
    private static final Pattern ROW = Pattern.compile("^\\| ((?:`[^`]+`(?:, )?)+) \\|");
    private static final Pattern KEY = Pattern.compile("`([^`]+)`");

    @Test
    void everySettingHasItsRowAndEveryRowItsSetting() throws Exception {
        TreeSet<String> bound = boundSettings();
        TreeSet<String> documented = documentedSettings();
        assertThat(bound).as("the metadata lists the settings of every properties record")
                .contains("outpost.http.request-head-timeout", "outpost.export.max-concurrent",
                        "outpost.trusted-proxies", "outpost.caching.classes[N].max-age");

        TreeSet<String> undocumented = new TreeSet<>(bound);
        undocumented.removeAll(documented);
        TreeSet<String> unknown = new TreeSet<>(documented);
        unknown.removeAll(bound);
        SoftAssertions.assertSoftly(both -> {
            both.assertThat(undocumented).as("settings without a row in docs/operations.md, section 6").isEmpty();
            both.assertThat(unknown).as("rows of docs/operations.md, section 6, that name no setting").isEmpty();
        });
    }

    /** The settings as the configuration processor found them, with lists and maps of records spelt out. */
    private static TreeSet<String> boundSettings() throws IOException {
        Path classes;
        try {
            classes = Path.of(OutpostProperties.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        Path metadata = classes.resolve("META-INF/spring-configuration-metadata.json");
        assertThat(metadata).as("written by spring-boot-configuration-processor (server/app/pom.xml)").exists();
        JsonNode root = JsonMapper.builder().build().readTree(Files.readString(metadata));
        TreeSet<String> keys = new TreeSet<>();
        for (JsonNode property : root.get("properties")) {
            String name = property.get("name").asString();
            if (!name.startsWith("outpost.")) {
                continue;
            }
            String type = property.get("type").asString();
            boolean list = type.startsWith("java.util.List<io.outpost.");
            if (list || type.startsWith("java.util.Map<java.lang.String,io.outpost.")) { // of records
                Class<?> element = load(type.substring(type.lastIndexOf(list ? '<' : ',') + 1, type.length() - 1));
                spellOut(name + (list ? "[N]" : ".<key>"), element, keys);
            } else {
                keys.add(name);
            }
        }
        return keys;
    }

    /** The keys of a record's components under {@code prefix}, a map of strings as {@code prefix.<key>}. */
    private static void spellOut(String prefix, Type type, TreeSet<String> keys) {
        if (type instanceof Class<?> c && c.isRecord()) {
            for (RecordComponent component : c.getRecordComponents()) {
                spellOut(prefix + "." + dashed(component.getName()), component.getGenericType(), keys);
            }
        } else if (type instanceof ParameterizedType p && p.getRawType() == Map.class) {
            spellOut(prefix + ".<key>", p.getActualTypeArguments()[1], keys);
        } else if (type instanceof ParameterizedType p && p.getRawType() == List.class) {
            spellOut(prefix + "[N]", p.getActualTypeArguments()[0], keys);
        } else {
            keys.add(prefix);
        }
    }

    /** The keys in the first cells of section 6's tables; a map key's placeholder ({@code <name>}) as {@code <key>}. */
    private static TreeSet<String> documentedSettings() throws IOException {
        String text = Files.readString(OPERATIONS);
        int from = text.indexOf("\n## 6. ");
        int to = text.indexOf("\n## 7. ");
        assertThat(from).as("section 6 of docs/operations.md").isPositive();
        TreeSet<String> keys = new TreeSet<>();
        for (String line : text.substring(from, to).split("\n")) {
            Matcher row = ROW.matcher(line);
            if (!row.find()) {
                continue;
            }
            Matcher key = KEY.matcher(row.group(1));
            while (key.find()) {
                if (key.group(1).startsWith("outpost.")) {
                    keys.add(key.group(1).replaceAll("<[^>]+>", "<key>"));
                }
            }
        }
        return keys;
    }

    private static String dashed(String camel) {
        return camel.replaceAll("([A-Z])", "-$1").toLowerCase(java.util.Locale.ROOT);
    }

    private static Class<?> load(String binaryName) {
        try {
            return Class.forName(binaryName);
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("the metadata names a type that is not on the class path: " + binaryName, e);
        }
    }
}
