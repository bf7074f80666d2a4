package io.outpost.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.wire.AnswerKind;
import java.io.IOException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReader;
import java.lang.module.ModuleReference;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The client's public API, checked for accidental changes: every public and protected signature in the packages the
 * client and the wire module export (the client requires the wire module transitively, so its types are part of the
 * client's API), compared with the committed description api/public-api.txt. A change that is meant is recorded by
 * rewriting that file: {@code ./mvnw test -pl client-java -Dtest=PublicApiTest -Doutpost.update-api=true}.
 */
class PublicApiTest {
    private static final Path DESCRIPTION = Path.of("api/public-api.txt");

    @Test
    void exportedSignaturesMatchTheCommittedDescription() throws IOException {
        String now = describe(moduleOf(OutpostClient.class)) + describe(moduleOf(AnswerKind.class));
        if (Boolean.getBoolean("outpost.update-api")) {
            Files.writeString(DESCRIPTION, now);
        }
        assertThat(now)
                .as("the public API changed; if that is meant, rewrite %s with -Doutpost.update-api=true", DESCRIPTION)
                .isEqualTo(Files.readString(DESCRIPTION));
    }

    @Test
    void theClientExportsOnlyItsApiAndBringsTheWireFormatWithIt() {
        ModuleDescriptor client = moduleOf(OutpostClient.class).descriptor();
        assertThat(client.exports()).extracting(ModuleDescriptor.Exports::source).containsExactly("io.outpost.client");
        assertThat(client.requires()).anySatisfy(r -> {
            assertThat(r.name()).isEqualTo("io.outpost.wire");
            assertThat(r.modifiers()).contains(ModuleDescriptor.Requires.Modifier.TRANSITIVE);
        });
    }

    /** The module in the jar or class directory a class was loaded from (the tests run on the class path). */
    private static ModuleReference moduleOf(Class<?> c) {
        try {
            Path location = Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
            return ModuleFinder.of(location).findAll().stream().findFirst()
                    .orElseThrow(() -> new AssertionError(location + " holds no module"));
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String describe(ModuleReference module) throws IOException {
        ModuleDescriptor d = module.descriptor();
        StringBuilder out = new StringBuilder("module ").append(d.name()).append('\n');
        d.requires().stream().filter(r -> r.modifiers().contains(ModuleDescriptor.Requires.Modifier.TRANSITIVE))
                .map(r -> "requires transitive " + r.name()).sorted().forEach(l -> out.append(l).append('\n'));
        List<String> exported = d.exports().stream().filter(e -> !e.isQualified())
                .map(ModuleDescriptor.Exports::source).sorted().toList();
        exported.forEach(p -> out.append("exports ").append(p).append('\n'));
        List<Class<?>> classes = new ArrayList<>();
        try (ModuleReader reader = module.open(); Stream<String> names = reader.list()) {
            for (String name : names.filter(n -> n.endsWith(".class") && !n.endsWith("module-info.class")).toList()) {
                String className = name.substring(0, name.length() - ".class".length()).replace('/', '.');
                if (exported.contains(className.substring(0, className.lastIndexOf('.')))) {
                    Class<?> c = load(className);
                    if (visible(c)) {
                        classes.add(c);
                    }
                }
            }
        }
        classes.sort((a, b) -> a.getName().compareTo(b.getName()));
        for (Class<?> c : classes) {
            out.append('\n').append(header(c)).append('\n');
            Stream.of(c.getDeclaredConstructors(), c.getDeclaredMethods(), c.getDeclaredFields())
                    .flatMap(Arrays::stream).map(m -> (Member) m).filter(PublicApiTest::visible)
                    .map(PublicApiTest::signature).sorted().forEach(s -> out.append("  ").append(s).append('\n'));
        }
        return out.append('\n').toString();
    }

    private static Class<?> load(String name) {
        try {
            return Class.forName(name, false, PublicApiTest.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Public or protected, and so is every class around it; not anonymous or local. */
    private static boolean visible(Class<?> c) {
        for (Class<?> k = c; k != null; k = k.getDeclaringClass()) {
            if (k.isAnonymousClass() || k.isLocalClass() || k.isSynthetic()
                    || (k.getModifiers() & (Modifier.PUBLIC | Modifier.PROTECTED)) == 0) {
                return false;
            }
        }
        return true;
    }

    private static boolean visible(Member m) {
        return !m.isSynthetic() && !(m instanceof Method method && method.isBridge())
                && (m.getModifiers() & (Modifier.PUBLIC | Modifier.PROTECTED)) != 0;
    }

    private static String header(Class<?> c) {
        StringBuilder h = new StringBuilder(c.toGenericString());
        Type sup = c.getGenericSuperclass();
        if (sup != null && sup != Object.class && !c.isEnum() && !c.isRecord()) {
            h.append(" extends ").append(sup.getTypeName());
        }
        Type[] interfaces = c.getGenericInterfaces();
        if (interfaces.length > 0) {
            h.append(c.isInterface() ? " extends " : " implements ")
                    .append(Arrays.stream(interfaces).map(Type::getTypeName).collect(Collectors.joining(", ")));
        }
        return h.toString();
    }

    private static String signature(Member m) {
        return switch (m) {
            case Method method -> method.toGenericString();
            case Constructor<?> constructor -> constructor.toGenericString();
            case Field field -> field.toGenericString();
            default -> throw new IllegalArgumentException(m.toString());
        };
    }
}
