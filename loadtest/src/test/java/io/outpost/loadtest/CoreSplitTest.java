package io.outpost.loadtest;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

class CoreSplitTest {

    @Test
    void cpuListsAreParsedAsTheKernelWritesThem() {
        assertThat(CoreSplit.parseList("0-1")).containsExactly(0, 1);
        assertThat(CoreSplit.parseList("0-3,6,8-9")).containsExactly(0, 1, 2, 3, 6, 8, 9);
        assertThat(CoreSplit.parseList("5")).containsExactly(5);
        assertThat(CoreSplit.list(List.of(2, 3))).isEqualTo("2,3");
    }

    @Test
    void thisProcessKnowsWhichCpusItMayUse() {
        // read-only: the split itself would restrict the test JVM, so only the discovery is exercised here
        assertThat(CoreSplit.allowedCpus()).isNotEmpty().hasSizeGreaterThanOrEqualTo(1)
                .allSatisfy(c -> assertThat(c).isNotNegative());
    }

    @Test
    void aServerStartedAfterTheSplitMovesToTheServersCpusWithTheProcessesItForked() throws Exception {
        List<Integer> cpus = CoreSplit.allowedCpus();
        Assumptions.assumeTrue(cpus.size() >= 2, "needs two CPUs to split");
        // a daemon-like parent with a child, as Squid's master and kid; only they are moved, not this JVM
        Process server = new ProcessBuilder("sh", "-c", "sleep 60 & wait").start();
        try {
            long child = awaitChild(server);
            CoreSplit.Split split = new CoreSplit.Split(CoreSplit.list(cpus.subList(0, 1)),
                    CoreSplit.list(cpus.subList(1, cpus.size())));
            Assumptions.assumeTrue(split.giveServer(server.pid()), "taskset refused here (affinity not changeable)");
            assertThat(allowed(server.pid())).isEqualTo(String.valueOf(cpus.get(0)));
            assertThat(allowed(child)).isEqualTo(String.valueOf(cpus.get(0)));
            assertThat(CoreSplit.allowedCpus()).as("this process keeps its CPUs").isEqualTo(cpus);
        } finally {
            server.descendants().forEach(ProcessHandle::destroy);
            server.destroy();
            server.waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static long awaitChild(Process p) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            var child = p.children().findFirst();
            if (child.isPresent()) {
                return child.get().pid();
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("the shell started no child");
    }

    private static String allowed(long pid) throws Exception {
        return Files.readAllLines(Path.of("/proc/" + pid + "/status")).stream()
                .filter(l -> l.startsWith("Cpus_allowed_list:")).findFirst().orElseThrow()
                .substring("Cpus_allowed_list:".length()).trim();
    }
}
