package io.outpost.server.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A process's memory as the JVM accounts for it (native memory tracking, {@code jcmd PID VM.native_memory summary})
 * next to what the kernel sees (VmRSS): what RSS holds beyond the JVM's committed total is native libraries' and
 * glibc's own (malloc arenas, fragmentation), which NMT cannot see.
 */
record NativeMemorySummary(String text, long totalCommittedKb, long heapCommittedKb, long mallocKb, long threadKb,
                           long otherKb) {
    private static final Pattern TOTAL = Pattern.compile("(?m)^Total: reserved=\\d+KB, committed=(\\d+)KB");
    private static final Pattern MALLOC = Pattern.compile("(?m)^\\s+malloc: (\\d+)KB");

    static NativeMemorySummary of(long pid) throws IOException, InterruptedException {
        Process jcmd = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                Long.toString(pid), "VM.native_memory", "summary").redirectErrorStream(true).start();
        String text = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!jcmd.waitFor(30, TimeUnit.SECONDS)) {
            jcmd.destroyForcibly();
        }
        return new NativeMemorySummary(text, first(TOTAL, text), category(text, "Java Heap"), first(MALLOC, text),
                category(text, "Thread"), category(text, "Other"));
    }

    private static long first(Pattern p, String text) {
        Matcher m = p.matcher(text);
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    /** The committed KB of one NMT category, e.g. "-  Java Heap (reserved=524288KB, committed=307200KB)". */
    private static long category(String text, String name) {
        return first(Pattern.compile("(?m)^-\\s+" + Pattern.quote(name) + " \\(reserved=\\d+KB, committed=(\\d+)KB"), text);
    }

    /** One line: the JVM's committed total and its biggest parts, in MB. */
    String line() {
        return String.format(java.util.Locale.ROOT, "NMT committed %4d MB (heap %4d, malloc %4d, threads %3d, other %3d)",
                totalCommittedKb >> 10, heapCommittedKb >> 10, mallocKb >> 10, threadKb >> 10, otherKb >> 10);
    }
}
