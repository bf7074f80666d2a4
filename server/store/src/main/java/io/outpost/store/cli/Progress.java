package io.outpost.store.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import me.tongfei.progressbar.DelegatingProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;

/**
 * The loader's progress bars: drawn on standard error when it is a terminal; otherwise (a log file, a pipe, a CI
 * job) nothing is drawn, so no carriage returns or ANSI escapes end up in the file.
 */
final class Progress {
    private static final boolean TERMINAL = stderrIsTerminal();

    private Progress() {
    }

    static ProgressBar bar(String task, long max) {
        ProgressBarBuilder b = new ProgressBarBuilder().setTaskName(task).setInitialMax(max);
        if (!TERMINAL) {
            b.setConsumer(new DelegatingProgressBarConsumer(line -> { }));
        }
        return b.build();
    }

    /** Where /proc tells (Linux): whether file descriptor 2 is a terminal device; elsewhere, whether a console is. */
    private static boolean stderrIsTerminal() {
        Path fd2 = Path.of("/proc/self/fd/2");
        try {
            if (Files.exists(Path.of("/proc/self/fd"))) {
                String target = Files.readSymbolicLink(fd2).toString();
                return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
            }
        } catch (java.io.IOException | UnsupportedOperationException e) {
            // fall through to the console check
        }
        return System.console() != null;
    }
}
