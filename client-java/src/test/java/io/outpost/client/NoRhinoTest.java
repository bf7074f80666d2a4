package io.outpost.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.client.pac.ProxyDiscovery;
import io.outpost.client.testing.FakeOutpost;
import io.outpost.client.testing.FakeServer;
import io.outpost.wire.AnswerDecoder;
import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rhino is an optional dependency: the client runs without it unless a proxy auto-config URL is configured, and then
 * says what to add. The command-line tool runs in a JVM of its own whose module or class path holds the client, the
 * wire module, zstd-jni and picocli but not Rhino (the tests' own JVM has it), against a fake service on this JVM.
 */
class NoRhinoTest {
    private static FakeServer server;
    @TempDir
    static Path dir;
    private static Path directPac;

    @BeforeAll
    static void start() throws Exception {
        server = FakeServer.start(new FakeOutpost());
        directPac = dir.resolve("direct.pac");
        Files.writeString(directPac, "function FindProxyForURL(url, host) { return \"DIRECT\"; }\n");
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private record Run(int exit, String out, String err) {
    }

    /** The jar or folder a class was loaded from. */
    private static String home(Class<?> c) {
        try {
            return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<String> withoutRhino() {
        List<String> path = List.of(home(OutpostClient.class), home(AnswerDecoder.class),
                home(com.github.luben.zstd.Zstd.class), home(picocli.CommandLine.class));
        assertThat(path).doesNotContain(home(org.mozilla.javascript.Context.class));
        return path;
    }

    private static Run java(List<String> jvmArgs, String... cliArgs) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("--enable-native-access=ALL-UNNAMED,com.github.luben.zstd_jni");
        command.addAll(jvmArgs);
        command.addAll(List.of(cliArgs));
        Path out = Files.createTempFile(dir, "out", ".txt");
        Path err = Files.createTempFile(dir, "err", ".txt");
        Process p = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("the command-line tool did not end within 120 s: " + command);
        }
        return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }

    private static List<String> modulePath(List<String> path, String... modules) {
        return List.of("--module-path", String.join(File.pathSeparator, path), "--add-modules",
                String.join(",", modules), "-m", "io.outpost.client/io.outpost.client.cli.OutpostCli");
    }

    private static List<String> classPath(List<String> path) {
        return List.of("-cp", String.join(File.pathSeparator, path), "io.outpost.client.cli.OutpostCli");
    }

    @Test
    void onTheModulePathAPlainConfigurationWorksAndProxyAutoConfigSaysWhatIsMissing() throws Exception {
        List<String> jvm = modulePath(withoutRhino(), "info.picocli");
        Run plain = java(jvm, "--server", server.url(), "folders", "--format", "csv");
        assertThat(plain.exit()).as(plain.err()).isZero();
        assertThat(plain.out()).contains("/A/Time");

        Run pac = java(jvm, "--server", server.url(), "--proxy-config", directPac.toUri().toString(), "folders");
        assertThat(pac.exit()).isEqualTo(2);
        assertThat(pac.err()).contains(ProxyDiscovery.ENGINE_MISSING).doesNotContain("NoClassDefFoundError");
        assertThat(pac.out()).isEmpty();
    }

    @Test
    void onTheClassPathAPlainConfigurationWorksAndProxyAutoConfigSaysWhatIsMissing() throws Exception {
        List<String> jvm = classPath(withoutRhino());
        Run plain = java(jvm, "--server", server.url(), "folders", "--format", "csv");
        assertThat(plain.exit()).as(plain.err()).isZero();
        assertThat(plain.out()).contains("/A/Time");

        Run pac = java(jvm, "--config", "(serverurl=" + server.url() + ")(proxyconfigurl="
                + directPac.toUri() + ")", "folders");
        assertThat(pac.exit()).isEqualTo(2);
        assertThat(pac.err()).contains(ProxyDiscovery.ENGINE_MISSING).doesNotContain("NoClassDefFoundError");
    }

    /** The advice of the message works: with Rhino on the module path and added, the same PAC file is used. */
    @Test
    void withRhinoAddedOnTheModulePathProxyAutoConfigWorks() throws Exception {
        List<String> path = new ArrayList<>(withoutRhino());
        path.add(home(org.mozilla.javascript.Context.class));
        Run pac = java(modulePath(path, "info.picocli", "org.mozilla.rhino"), "--server", server.url(),
                "--proxy-config", directPac.toUri().toString(), "folders", "--format", "csv");
        assertThat(pac.exit()).as(pac.err()).isZero();
        assertThat(pac.out()).contains("/A/Time");
    }
}
