package io.outpost.integration;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.testkit.SquidProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Static checks of docker/ and squid-config/ (no Docker engine here): docker-compose validates the compose file,
 * the Dockerfiles are linted for the properties that matter, and Squid parses every configuration we generate.
 */
class DeploymentFilesTest {
    private static final Path REPO = Layout.repo();
    private static final Path DOCKER = REPO.resolve("docker");

    record Instruction(String keyword, String args) {
    }

    /** Dockerfile instructions with continuation lines joined and comments dropped. */
    static List<Instruction> parse(Path dockerfile) throws IOException {
        List<Instruction> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        for (String line : Files.readAllLines(dockerfile)) {
            String t = line.strip();
            if (cur.isEmpty() && (t.isEmpty() || t.startsWith("#"))) {
                continue;
            }
            if (t.startsWith("#")) {
                continue;
            }
            if (t.endsWith("\\")) {
                cur.append(t, 0, t.length() - 1).append(' ');
                continue;
            }
            cur.append(t);
            String s = cur.toString();
            cur.setLength(0);
            int sp = s.indexOf(' ');
            out.add(new Instruction(s.substring(0, sp).toUpperCase(), s.substring(sp + 1).strip()));
        }
        return out;
    }

    static List<String> all(List<Instruction> ins, String keyword) {
        return ins.stream().filter(i -> i.keyword().equals(keyword)).map(Instruction::args).toList();
    }

    /** The instructions of the last (runtime) stage. */
    static List<Instruction> lastStage(List<Instruction> ins) {
        int from = 0;
        for (int i = 0; i < ins.size(); i++) {
            if (ins.get(i).keyword().equals("FROM")) {
                from = i;
            }
        }
        return ins.subList(from, ins.size());
    }

    static void assertPinned(List<Instruction> ins) {
        for (String from : all(ins, "FROM")) {
            String image = from.split("\\s+")[0];
            assertThat(image).as("FROM %s: pin the base image to a version", from).contains(":");
            String tag = image.substring(image.indexOf(':') + 1);
            assertThat(tag).as(from).isNotEqualTo("latest").matches(".*\\d+\\.\\d+.*");
        }
    }

    static String execJar() throws IOException {
        String app = Files.readString(REPO.resolve("server/app/pom.xml"));
        String root = Files.readString(REPO.resolve("pom.xml"));
        String artifact = after(app, "</parent>", "<artifactId>(.+?)</artifactId>");
        String version = after(root, "<artifactId>outpost-parent</artifactId>", "<version>(.+?)</version>");
        assertThat(app).contains("<classifier>exec</classifier>");
        return artifact + "-" + version + "-exec.jar";
    }

    private static String after(String text, String marker, String regex) {
        Matcher m = Pattern.compile(regex).matcher(text.substring(text.indexOf(marker)));
        assertThat(m.find()).as(regex).isTrue();
        return m.group(1);
    }

    /** The modules the root pom lists. */
    static List<String> modules() throws IOException {
        Matcher m = Pattern.compile("<module>([^<]+)</module>").matcher(Files.readString(REPO.resolve("pom.xml")));
        List<String> out = new ArrayList<>();
        while (m.find()) {
            out.add(m.group(1).strip());
        }
        assertThat(out).isNotEmpty();
        return out;
    }

    @Test
    void serviceDockerfile() throws IOException {
        List<Instruction> ins = parse(DOCKER.resolve("outpost.Dockerfile"));
        assertPinned(ins);
        List<String> froms = all(ins, "FROM");
        assertThat(froms).hasSize(2);
        assertThat(froms.get(0)).as("build stage: Maven on JDK 21").startsWith("maven:").contains("temurin-21").endsWith(" AS build");
        assertThat(froms.get(1)).as("runtime: a JRE 21").contains(":21").contains("jre");
        List<Instruction> run = lastStage(ins);
        List<String> users = all(run, "USER");
        assertThat(users).isNotEmpty();
        assertThat(users.getLast()).isNotIn("root", "0", "0:0");
        assertThat(all(run, "EXPOSE")).containsExactly("8000");
        assertThat(all(run, "HEALTHCHECK")).singleElement().asString().contains("/actuator/health").contains(":8000");
        String jar = execJar();
        assertThat(all(ins, "RUN")).anyMatch(r -> r.contains("server/app/target/" + jar) && r.contains("-pl server/app -am"));
        assertThat(all(run, "COPY")).anyMatch(c -> c.startsWith("--from=build") && c.endsWith("/" + jar));
        assertThat(all(run, "ENTRYPOINT")).singleElement().asString().contains("\"-jar\"").contains(jar);
        // Maven needs the pom of every module the root pom lists, and the sources of every module the service
        // depends on (the reactor of -pl server/app -am, test kit included).
        List<String> copied = all(ins, "COPY").stream().map(c -> c.split("\\s+")[0]).toList();
        for (String module : modules()) {
            assertThat(copied).as("module %s: its pom.xml (or the whole module) is copied", module)
                    .containsAnyOf(module, module + "/pom.xml");
        }
        for (String module : List.of("testkit", "wire", "server/store", "server/frontier", "server/app")) {
            assertThat(copied).as("the service is built from %s", module).contains(module);
        }
        assertThat(Files.readString(REPO.resolve("server/app/pom.xml")))
                .as("the service depends on no module the image does not build")
                .doesNotContain("<artifactId>outpost-client").doesNotContain("<artifactId>outpost-loadtest");
        // Every file the build copies from the context exists (and the .dockerignore lets it through).
        for (String copy : all(ins, "COPY")) {
            if (!copy.startsWith("--from")) {
                String src = copy.split("\\s+")[0];
                assertThat(REPO.resolve(src)).as(copy).exists();
                assertThat(Files.readString(DOCKER.resolve("outpost.Dockerfile.dockerignore"))).contains("!" + src);
            }
        }
    }

    @Test
    void squidDockerfile() throws IOException {
        List<Instruction> ins = parse(DOCKER.resolve("squid.Dockerfile"));
        assertPinned(ins);
        assertThat(all(ins, "FROM")).singleElement().asString().startsWith("debian:");
        assertThat(all(ins, "RUN")).anyMatch(r -> r.contains("apt-get install") && r.contains("squid"));
        assertThat(all(ins, "COPY")).anyMatch(c -> c.contains("squid-config/squid.conf") && c.contains("squid-config/run-squid.sh"));
        assertThat(all(ins, "USER")).last().asString().isNotIn("root", "0");
        assertThat(all(ins, "EXPOSE")).containsExactly("3128");
        assertThat(all(ins, "HEALTHCHECK")).singleElement().asString().contains("3128");
        assertThat(all(ins, "ENTRYPOINT")).singleElement().asString().contains("run-squid.sh").contains("\"run\"");
        assertThat(all(ins, "ENV")).anyMatch(e -> e.contains("SQUID_PORT=3128"));
    }

    @Test
    void composeFileIsValidAndWiresSquidToBothReplicas() throws Exception {
        Assumptions.assumeTrue(onPath("docker-compose"), "docker-compose is not installed (Debian: apt-get install docker-compose)");
        Path compose = DOCKER.resolve("docker-compose.yml");
        assertThat(exec(List.of("docker-compose", "-f", compose.toString(), "config", "-q")).exit()).isZero();
        Result services = exec(List.of("docker-compose", "-f", compose.toString(), "config", "--services"));
        assertThat(services.out().lines().toList()).contains("postgres", "outpost1", "outpost2", "squid", "oracle");
        Result withOracle = exec(List.of("docker-compose", "-f", compose.toString(), "--profile", "oracle", "config", "-q"));
        assertThat(withOracle.exit()).as(withOracle.out()).isZero();
        Result resolved = exec(List.of("docker-compose", "-f", compose.toString(), "config"));
        assertThat(resolved.exit()).isZero();
        assertThat(resolved.out()).contains("SQUID_ORIGINS: outpost1:8000 outpost2:8000")
                .contains("OUTPOST_DATABASE_URL: jdbc:postgresql://postgres:5432/outpost")
                .contains("dockerfile: docker/outpost.Dockerfile").contains("dockerfile: docker/squid.Dockerfile")
                .contains("gvenzl/oracle-free:").containsPattern("published: 3128\\s+target: 3128")
                .containsPattern("profiles:\\s+- oracle");
    }

    @Test
    void squidParsesEveryGeneratedConfiguration() throws Exception {
        Assumptions.assumeTrue(SquidProcess.installed(), SquidProcess.NOT_INSTALLED);
        Path base = Layout.target().resolve("squid-parse");
        List<List<String>> variants = List.of(
                List.of(),
                List.of("--outpost", "http://outpost:8000", "--origin", "outpost1:8000", "--origin", "outpost2:8000",
                        "--site-nets", "10.0.0.0/8 192.168.0.0/16", "--listen", ""),
                List.of("--outpost", "http://outpost.example.org:8000", "--parent-proxy", "central1.example.org:3128",
                        "--parent-proxy", "central2.example.org:3128"));
        int n = 0;
        for (List<String> v : variants) {
            List<String> cmd = new ArrayList<>(List.of("bash", Layout.squidScript().toString(), "parse", "--dir",
                    base.resolve("v" + n++).toString()));
            cmd.addAll(v);
            Result r = exec(cmd);
            assertThat(r.exit()).as("%s\n%s", v, r.out()).isZero();
            assertThat(r.out()).doesNotContain("ERROR").doesNotContain("FATAL");
        }
        String rendered = exec(List.of("bash", Layout.squidScript().toString(), "render", "--dir", base.resolve("r").toString(),
                "--origin", "a:8000", "--origin", "b:8000")).out();
        assertThat(rendered).contains("cache_peer a parent 8000 0 no-query no-digest originserver round-robin")
                .contains("cache_peer b parent 8000").contains("never_direct allow all")
                .contains("collapsed_forwarding on").contains("maximum_object_size 1 GB")
                .doesNotContainPattern("(?m)^[^#]*@[A-Z_]+@");
        // The service's own Cache-Control decides freshness: no refresh_pattern overrides it.
        assertThat(rendered.lines().filter(l -> l.startsWith("refresh_pattern")).toList())
                .containsExactly("refresh_pattern . 0 0% 0");
        // maximum_object_size must precede cache_dir, or the disk cache keeps its 4 MB default limit.
        assertThat(rendered.indexOf("\nmaximum_object_size ")).isLessThan(rendered.indexOf("\ncache_dir "));
    }

    record Result(int exit, String out) {
    }

    static Result exec(List<String> cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Result(p.exitValue(), out);
    }

    static boolean onPath(String exe) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            if (!d.isEmpty() && Files.isExecutable(Path.of(d, exe))) {
                return true;
            }
        }
        return false;
    }
}
