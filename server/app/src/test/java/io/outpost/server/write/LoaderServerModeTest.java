package io.outpost.server.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.server.support.RunningService;
import io.outpost.store.cli.LoaderCli;
import io.outpost.testkit.TempDirs;
import io.outpost.testkit.TokenIssuer;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import picocli.CommandLine;

/** The loader's commands with {@code --server}: the same commands as against a database, through the write API. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LoaderServerModeTest {
    private Path dir;
    private TokenIssuer issuer;
    private RunningService svc;

    @BeforeAll
    void start() throws IOException {
        dir = TempDirs.create("outpost-loader-server");
        issuer = new TokenIssuer();
        svc = RunningService.start("jdbc:sqlite:" + dir.resolve("l.db"), "--outpost.demo-data=false",
                "--outpost.poll-interval=1h", "--outpost.write.issuer-uri=" + issuer.issuerUri());
    }

    @AfterAll
    void stop() throws IOException {
        if (svc != null) {
            svc.close();
        }
        if (issuer != null) {
            issuer.close();
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    private record Run(int exit, String err) {
    }

    private Run loader(String token, String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--server", svc.url("")));
        if (token != null) {
            all.addAll(List.of("--token", token));
        }
        CommandLine cl = LoaderCli.configure(new CommandLine(new LoaderCli()));
        StringWriter err = new StringWriter();
        cl.setErr(new PrintWriter(err));
        int exit = cl.execute(all.toArray(String[]::new));
        return new Run(exit, err.toString());
    }

    @Test
    void theLoaderWritesThroughTheService() throws Exception {
        String token = issuer.token("loader", "conditions.write:/L conditions.write:/LOAD conditions.lock:/L");
        assertThat(loader(token, "create-folder", "/L/Cal/Gains", "--versioning", "MV", "--payload",
                "gain:Double,label:String255", "--parents").exit()).isZero();
        Path csv = dir.resolve("gains.csv");
        Files.writeString(csv, "channel,since,until,gain,label\n1,0,100,1.5,\"a, quoted\"\n2,0,max,2.5,b\n");
        assertThat(loader(token, "load", "/L/Cal/Gains", csv.toString()).exit()).isZero();
        Path json = dir.resolve("more.json");
        Files.writeString(json, "[{\"channel\":3,\"since\":5,\"until\":50,\"payload\":{\"gain\":0.5,\"label\":\"j\"}}]");
        assertThat(loader(token, "load", "/L/Cal/Gains", json.toString(), "--user-tag", "UT-1").exit()).isZero();
        assertThat(loader(token, "tag", "/L/Cal/Gains", "GAINS-L1").exit()).isZero();
        assertThat(loader(token, "lock", "GAINS-L1").exit()).isZero();

        String rows = new String(svc.get("/v1/json/browse/GAINS-L1/0/9223372036854775807/all/cs/L/Cal/Gains").body(),
                StandardCharsets.UTF_8);
        assertThat(rows).contains("a, quoted").contains("2.5").contains("0.5");
        assertThat(svc.getString("/v1/json/tag/GAINS-L1/L/Cal/Gains")).contains("locked");

        Run generated = loader(token, "generate", "coolBrowse", "--scale", "0.01");
        assertThat(generated.exit()).as(generated.err()).isZero();
        assertThat(svc.getString("/v1/json/count/HEAD/0/9223372036854775807/all/LOAD/coolBrowse")).contains("[2000]");

        // COOL's truncate and deleteTag, and a global tag (a tag of the root) built with its own scope
        assertThat(loader(token, "create-folder", "/L/Sv", "--payload", "v:Int32", "--parents").exit()).isZero();
        Path open = dir.resolve("open.csv");
        Files.writeString(open, "channel,since,until,v\n1,0,max,1\n");
        assertThat(loader(token, "load", "/L/Sv", open.toString()).exit()).isZero();
        Run truncated = loader(token, "truncate", "/L/Sv", "50");
        assertThat(truncated.exit()).as(truncated.err()).isZero();
        assertThat(svc.getString("/v1/json/count/HEAD/50/9223372036854775807/all/L/Sv")).contains("[0]");
        assertThat(svc.getString("/v1/json/count/HEAD/0/49/all/L/Sv")).contains("[1]");
        assertThat(loader(token, "tag", "/L/Cal/Gains", "GAINS-L2").exit()).isZero();
        Run deleted = loader(token, "delete-tag", "/L/Cal/Gains", "GAINS-L2");
        assertThat(deleted.exit()).as(deleted.err()).isZero();
        assertThat(svc.get("/v1/json/tag/GAINS-L2/L/Cal/Gains").statusCode()).isEqualTo(404);
        Run noGlobal = loader(token, "relate", "GT-2026", "L-2026", "--node", "/L");
        assertThat(noGlobal.exit()).as("refused by the service: exit 4").isEqualTo(4);
        assertThat(noGlobal.err()).contains("conditions.globaltag");
        Run global = loader(issuer.token("coordinator", "conditions.globaltag"), "relate", "GT-2026", "L-2026",
                "--node", "/L");
        assertThat(global.exit()).as(global.err()).isZero();
        assertThat(svc.getString("/v1/json/tags/L")).contains("L-2026");

        java.io.PrintStream stdout = System.out;
        java.io.ByteArrayOutputStream printed = new java.io.ByteArrayOutputStream();
        Run locked;
        System.setOut(new java.io.PrintStream(printed, true, StandardCharsets.UTF_8));
        try {
            locked = loader(token, "load", "/L/Cal/Gains", json.toString(), "--user-tag", "GAINS-L1");
        } finally {
            System.setOut(stdout);
        }
        assertThat(locked.exit()).as("refused by the service (a locked tag): exit 4").isEqualTo(4);
        assertThat(printed.toString(StandardCharsets.UTF_8)).as("no success reported before the service confirmed")
                .doesNotContain("stored");
        Run noToken = loader(null, "list");
        assertThat(noToken.exit()).isEqualTo(2);
        assertThat(noToken.err()).contains("OUTPOST_TOKEN");
        Run forbidden = loader(issuer.token("other", "conditions.write:/X"), "create-folderset", "/L/Other");
        assertThat(forbidden.exit()).isEqualTo(4);
        assertThat(forbidden.err()).contains("403").contains("/L/Other");
    }

    /** globaltag create, lock, list and resolve take --server --token as their help says, like every command. */
    @Test
    void globalTagsAreCreatedLockedAndListedThroughTheService() throws Exception {
        String writer = issuer.token("loader", "conditions.write:/G conditions.lock:/G");
        String coordinator = issuer.token("coordinator", "conditions.globaltag");
        assertThat(loader(writer, "create-folder", "/G/Cal/Mv", "--versioning", "MV", "--keys", "run-lumi",
                "--payload", "g:Double", "--parents").exit()).isZero();
        Path csv = dir.resolve("g.csv");
        Files.writeString(csv, "channel,since,until,g\n1,300/0,max,1.5\n");
        assertThat(loader(writer, "load", "/G/Cal/Mv", csv.toString()).exit()).isZero();
        assertThat(loader(writer, "tag", "/G/Cal/Mv", "G-MV-1").exit()).isZero();

        Run refused = loader(writer, "globaltag", "create", "G-GT-1", "/G/Cal/Mv=G-MV-1");
        assertThat(refused.exit()).as("a global tag needs its own scope: exit 4").isEqualTo(4);
        assertThat(refused.err()).contains("conditions.globaltag").doesNotContain("--url");
        Run created = loader(coordinator, "globaltag", "create", "G-GT-1", "/G/Cal/Mv=G-MV-1", "--description", "d");
        assertThat(created.exit()).as(created.err()).isZero();
        assertThat(svc.getString("/v1/json/resolve/G-GT-1")).contains("G-MV-1");
        Run locked = loader(coordinator, "globaltag", "lock", "G-GT-1");
        assertThat(locked.exit()).as(locked.err()).isZero();
        assertThat(svc.getString("/v1/json/globaltags")).contains("\"G-GT-1\",\"locked\"");
        assertThat(svc.getString("/v1/json/tag/G-GT-1/G/Cal/Mv")).contains("locked");

        java.io.PrintStream stdout = System.out;
        java.io.ByteArrayOutputStream printed = new java.io.ByteArrayOutputStream();
        System.setOut(new java.io.PrintStream(printed, true, StandardCharsets.UTF_8));
        Run listed;
        Run resolved;
        try {
            listed = loader(writer, "globaltag", "list");
            resolved = loader(writer, "globaltag", "resolve", "G-GT-1");
        } finally {
            System.setOut(stdout);
        }
        assertThat(listed.exit()).as(listed.err()).isZero();
        assertThat(resolved.exit()).as(resolved.err()).isZero();
        assertThat(printed.toString(StandardCharsets.UTF_8)).contains("G-GT-1\tlocked\t").contains("\td\n")
                .contains("/G/Cal/Mv\tG-MV-1");
        assertThat(loader(coordinator, "globaltag", "lock", "NO-SUCH-GT").exit()).isEqualTo(3);
    }
}
