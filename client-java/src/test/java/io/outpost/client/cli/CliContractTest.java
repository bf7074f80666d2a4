package io.outpost.client.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.client.testing.InProcessService;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The command-line contract (docs/cli.md): every case of testdata/cli/cases.txt against the real service on its demo
 * database (started in-process, real HTTP). The C++ tool runs the same table (client-cpp/tests/cli_contract.sh).
 */
class CliContractTest {
    static final Path CASES = Path.of(System.getProperty("outpost.testdata", "../testdata"), "cli", "cases.txt");
    static InProcessService service;
    static String url;

    @BeforeAll
    static void start() throws IOException {
        service = InProcessService.start(null);
        url = service.url();
    }

    @AfterAll
    static void stop() throws IOException {
        if (service != null) {
            service.close();
        }
    }

    /** One case of the table. */
    record Case(int line, List<String> args, List<String> stdout, boolean anyStdout, List<String> contains, int exit) {
    }

    static List<Case> read(Path file) throws IOException {
        List<Case> cases = new ArrayList<>();
        List<String> lines = Files.readAllLines(file);
        List<String> args = null;
        List<String> out = new ArrayList<>();
        List<String> contains = new ArrayList<>();
        boolean any = false;
        int start = 0;
        for (int i = 0; i < lines.size(); i++) {
            String l = lines.get(i);
            if (l.startsWith("$ ")) {
                args = List.of(l.substring(2).trim().split(" +"));
                start = i + 1;
            } else if (l.equals(">*")) {
                any = true;
            } else if (l.startsWith(">")) {
                out.add(l.length() > 2 ? l.substring(2) : "");
            } else if (l.startsWith("~ ")) {
                contains.add(l.substring(2));
            } else if (l.startsWith("exit ")) {
                cases.add(new Case(start, args, List.copyOf(out), any, List.copyOf(contains),
                        Integer.parseInt(l.substring(5).trim())));
                out.clear();
                contains.clear();
                any = false;
            }
        }
        return cases;
    }

    @TestFactory
    Stream<DynamicTest> everyCaseOfTheSharedTable() throws IOException {
        List<Case> cases = read(CASES);
        assertThat(cases).hasSizeGreaterThan(30);
        return cases.stream().map(c -> DynamicTest.dynamicTest("line " + c.line() + ": " + String.join(" ", c.args()),
                () -> check(c)));
    }

    private static void check(Case c) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        OutpostCli cli = new OutpostCli();
        cli.out = new PrintWriter(out);
        cli.err = new PrintWriter(err, true);
        cli.env = Map.of("OUTPOST_SERVER", url);
        int code = OutpostCli.run(cli, c.args().toArray(String[]::new));
        String stdout = out.toString();
        SoftAssertions soft = new SoftAssertions();
        soft.assertThat(code).as("exit code; stderr: %s", err).isEqualTo(c.exit());
        if (!c.anyStdout() && c.contains().isEmpty()) {
            String expected = c.stdout().isEmpty() ? "" : String.join("\n", c.stdout()) + "\n";
            soft.assertThat(stdout).as("standard output").isEqualTo(expected);
        }
        for (String text : c.contains()) {
            soft.assertThat(stdout).as("standard output").contains(text);
        }
        soft.assertAll();
    }
}
