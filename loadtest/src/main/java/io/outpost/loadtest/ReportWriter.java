package io.outpost.loadtest;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/** The three outputs of a run: the summary table (stdout), result.json and a self-contained report.html. */
public final class ReportWriter {
    private static final JsonMapper JSON = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();

    private ReportWriter() {
    }

    public static Path writeJson(RunReport r, Path dir) throws IOException {
        Files.createDirectories(dir);
        Path p = dir.resolve("result.json");
        JSON.writeValue(p.toFile(), r);
        return p;
    }

    public static RunReport readJson(Path p) {
        return JSON.readValue(p.toFile(), RunReport.class);
    }

    /** The summary table, one line per step, then the targets. */
    public static String summary(RunReport r) {
        StringBuilder sb = new StringBuilder();
        String head = String.format(Locale.ROOT, "%-16s %-8s %4s %7s %6s %9s %11s %9s %8s %8s %8s %6s %8s %7s",
                "workload", "mode", "cli", "req", "fail", "MB/s", "rows/s", "req/s", "p50 ms", "p99 ms", "max ms",
                "hit%", "db q", "eff%");
        sb.append(head).append('\n').append("-".repeat(head.length())).append('\n');
        for (StepResult s : r.steps()) {
            sb.append(String.format(Locale.ROOT, "%-16s %-8s %4d %7d %6d %9.2f %11.0f %9.1f %8.2f %8.2f %8.1f %6s %8s %7s%n",
                    s.workload(), s.mode(), s.clients(), s.requests(), s.failed(), s.mbPerSecond(), s.rowsPerSecond(),
                    s.requestsPerSecond(), s.p50Millis(), s.p99Millis(), s.maxMillis(),
                    s.squidHitRatio() == null ? "-" : String.format(Locale.ROOT, "%.1f", 100 * s.squidHitRatio()),
                    s.dbQueries() == null ? "-" : s.dbQueries().toString(),
                    s.atlas() == null ? "-" : String.format(Locale.ROOT, "%.1f", 100 * s.atlas().efficiency())));
            if (!s.failures().isEmpty()) {
                sb.append("    failures: ").append(s.failures()).append('\n');
            }
        }
        sb.append("\nTargets\n");
        for (RunReport.TargetCheck t : r.targets()) {
            sb.append(String.format(Locale.ROOT, "  [%s] %s%n         %s%n", t.pass() == null ? "n/a " : t.pass() ? "PASS" : "FAIL",
                    t.name(), t.measured()));
        }
        for (String n : r.notes()) {
            sb.append("note: ").append(n).append('\n');
        }
        return sb.toString();
    }

    public static Path writeHtml(RunReport r, Path dir) throws IOException {
        Files.createDirectories(dir);
        Path p = dir.resolve("report.html");
        Files.writeString(p, html(r));
        return p;
    }

    static String html(RunReport r) {
        StringBuilder h = new StringBuilder();
        h.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Outpost load test ")
                .append(esc(r.startedAt())).append("</title><style>")
                .append("body{font-family:sans-serif;margin:2em;max-width:1250px;color:#222}")
                .append("table{border-collapse:collapse;margin:1em 0;font-size:13px}td,th{border:1px solid #ccc;padding:3px 7px;text-align:right}")
                .append("th{background:#f3f3f3}td.l,th.l{text-align:left}.pass{background:#d7f5d7}.fail{background:#f8d0d0}.na{background:#eee}")
                .append(".charts{display:flex;flex-wrap:wrap;gap:12px}.charts svg{border:1px solid #eee}code{background:#f5f5f5;padding:1px 4px}")
                .append("</style></head><body>\n");
        h.append("<h1>Outpost load test: direct vs proxied vs cached</h1>\n<p>Started ").append(esc(r.startedAt()))
                .append(", scale ").append(r.scale()).append(". Command: <code>").append(esc(r.command())).append("</code></p>\n");
        h.append("<h2>Targets</h2>\n<table><tr><th class=l>target</th><th class=l>measured</th><th>result</th></tr>\n");
        for (RunReport.TargetCheck t : r.targets()) {
            String cls = t.pass() == null ? "na" : t.pass() ? "pass" : "fail";
            h.append("<tr class=").append(cls).append("><td class=l>").append(esc(t.name())).append("</td><td class=l>")
                    .append(esc(t.measured())).append("</td><td>").append(t.pass() == null ? "n/a" : t.pass() ? "PASS" : "FAIL")
                    .append("</td></tr>\n");
        }
        h.append("</table>\n");
        List<String> workloads = r.steps().stream().filter(s -> s.atlas() == null).map(StepResult::workload).distinct().toList();
        for (String w : workloads) {
            List<StepResult> ws = r.steps().stream().filter(s -> s.workload().equals(w) && s.atlas() == null).toList();
            List<String> modes = ws.stream().map(StepResult::mode).distinct().toList();
            h.append("<h2>").append(esc(w)).append("</h2>\n<div class=charts>\n");
            List<Svg.Series> tput = new ArrayList<>();
            List<Svg.Series> lat = new ArrayList<>();
            double[][] bars = new double[2][modes.size()];
            int maxClients = ws.stream().mapToInt(StepResult::clients).max().orElse(1);
            for (int i = 0; i < modes.size(); i++) {
                String m = modes.get(i);
                List<StepResult> ms = ws.stream().filter(s -> s.mode().equals(m)).sorted(Comparator.comparingInt(StepResult::clients)).toList();
                tput.add(new Svg.Series(m, ms.stream().map(s -> new Svg.Point(s.clients(), s.requestsPerSecond())).toList()));
                StepResult top = ms.getLast();
                lat.add(new Svg.Series(m + " (" + top.clients() + " cl.)", top.latency().stream().filter(pt -> pt.percentile() < 100)
                        .map(pt -> new Svg.Point(-Math.log10(1 - pt.percentile() / 100), Math.max(pt.millis(), 0.001))).toList()));
                StepResult atMax = ms.stream().filter(s -> s.clients() == maxClients).findFirst().orElse(top);
                bars[0][i] = atMax.requestsPerSecond();
                bars[1][i] = atMax.mbPerSecond();
            }
            h.append(Svg.lines(w + ": throughput against clients", "concurrent clients", "requests/s", tput, false,
                    null, ws.stream().map(s -> (double) s.clients()).distinct().sorted().toList()));
            h.append(Svg.lines(w + ": latency distribution", "percentile", "latency (ms, log)", lat, true,
                    List.of("0", "90", "99", "99.9", "99.99"), List.of(0.0, 1.0, 2.0, 3.0, 4.0)));
            double[][] reqBars = new double[modes.size()][1];
            double[][] mbBars = new double[modes.size()][1];
            for (int i = 0; i < modes.size(); i++) {
                reqBars[i][0] = bars[0][i];
                mbBars[i][0] = bars[1][i];
            }
            h.append(Svg.bars(w + ": modes side by side, requests/s (" + maxClients + " clients)", "requests/s", modes,
                    List.of("requests/s"), reqBars));
            h.append(Svg.bars(w + ": modes side by side, MB/s (" + maxClients + " clients)", "MB/s", modes,
                    List.of("MB/s"), mbBars));
            h.append("</div>\n");
        }
        List<StepResult> atlas = r.steps().stream().filter(s -> s.atlas() != null).toList();
        if (!atlas.isEmpty()) {
            AtlasStats a0 = atlas.getFirst().atlas();
            h.append("<h2>ATLAS prompt-reconstruction model</h2>\n<p>").append(a0.jobs()).append(" jobs started ")
                    .append(a0.staggerSeconds()).append(" s apart, each fetching a snapshot every ").append(a0.periodSeconds())
                    .append(" s (").append(a0.snapshotsPerJob()).append(" per job), deadline ").append(a0.deadlineSeconds())
                    .append(" s. Efficiency = share of snapshots complete within the deadline.</p>\n");
            h.append("<table><tr><th class=l>mode</th><th>snapshots</th><th>in time</th><th>efficiency</th><th>snapshot p50 ms</th>"
                    + "<th>p99 ms</th><th>max ms</th><th>failures</th><th>Squid hit %</th><th>DB queries</th></tr>\n");
            for (StepResult s : atlas) {
                AtlasStats a = s.atlas();
                h.append(String.format(Locale.ROOT, "<tr><td class=l>%s</td><td>%d</td><td>%d</td><td>%.1f %%</td><td>%.1f</td>"
                                + "<td>%.1f</td><td>%.1f</td><td>%d</td><td>%s</td><td>%s</td></tr>%n", s.mode(), a.snapshots(),
                        a.inDeadline(), 100 * a.efficiency(), a.snapshotP50Millis(), a.snapshotP99Millis(), a.snapshotMaxMillis(),
                        s.failed(), s.squidHitRatio() == null ? "-" : String.format(Locale.ROOT, "%.1f", 100 * s.squidHitRatio()),
                        s.dbQueries() == null ? "-" : s.dbQueries()));
            }
            h.append("</table>\n");
        }
        h.append("<h2>All steps</h2>\n<table><tr><th class=l>workload</th><th class=l>mode</th><th>clients</th><th>requests</th>"
                + "<th>ok</th><th>failed</th><th>MB</th><th>s</th><th>MB/s</th><th>rows/s</th><th>req/s</th><th>mean ms</th>"
                + "<th>p50</th><th>p90</th><th>p99</th><th>max</th><th>Squid hit %</th><th>DB queries</th></tr>\n");
        for (StepResult s : r.steps()) {
            h.append(String.format(Locale.ROOT, "<tr><td class=l>%s</td><td class=l>%s</td><td>%d</td><td>%d</td><td>%d</td>"
                            + "<td>%d</td><td>%.2f</td><td>%.2f</td><td>%.2f</td><td>%.0f</td><td>%.1f</td><td>%.2f</td><td>%.2f</td>"
                            + "<td>%.2f</td><td>%.2f</td><td>%.2f</td><td>%s</td><td>%s</td></tr>%n", esc(s.workload()), s.mode(),
                    s.clients(), s.requests(), s.ok(), s.failed(), s.bytes() / 1e6, s.elapsedSeconds(), s.mbPerSecond(),
                    s.rowsPerSecond(), s.requestsPerSecond(), s.meanMillis(), s.p50Millis(), s.p90Millis(), s.p99Millis(),
                    s.maxMillis(), s.squidHitRatio() == null ? "-" : String.format(Locale.ROOT, "%.1f", 100 * s.squidHitRatio()),
                    s.dbQueries() == null ? "-" : s.dbQueries()));
        }
        h.append("</table>\n<h2>Failures</h2>\n");
        long failed = r.steps().stream().mapToLong(StepResult::failed).sum();
        if (failed == 0) {
            h.append("<p>None: every request succeeded.</p>\n");
        } else {
            h.append("<table><tr><th class=l>step</th><th class=l>class</th><th>count</th><th class=l>examples</th></tr>\n");
            for (StepResult s : r.steps()) {
                for (Map.Entry<String, Long> e : s.failures().entrySet()) {
                    h.append("<tr><td class=l>").append(esc(s.workload() + "/" + s.mode() + " c=" + s.clients()))
                            .append("</td><td class=l>").append(esc(e.getKey())).append("</td><td>").append(e.getValue())
                            .append("</td><td class=l>").append(esc(String.join(" | ", s.failureExamples()))).append("</td></tr>\n");
                }
            }
            h.append("</table>\n");
        }
        h.append("<h2>Environment</h2>\n<table>\n");
        r.environment().forEach((k, v) -> h.append("<tr><th class=l>").append(esc(k)).append("</th><td class=l>")
                .append(esc(v)).append("</td></tr>\n"));
        h.append("</table>\n");
        for (String n : r.notes()) {
            h.append("<p>Note: ").append(esc(n)).append("</p>\n");
        }
        h.append("<p>How to read: <b>direct</b> = JDBC with the service's SQL; <b>proxied</b> = HTTP to Outpost with every URL "
                + "distinct and no-store (its answer cache neither answers nor keeps it); <b>cached</b> = through Squid, repeated "
                + "URLs. Every mode decodes every row. Each mode was warmed up unmeasured first; at each client count the modes "
                + "took turns in slices. Rates count successful requests per second of the step. MB are bytes delivered to the client: the compressed binary answer for HTTP, "
                + "the decoded values for JDBC. DB queries: statements the generator issued (direct) or answers the service "
                + "computed from the database (outpost_cache_loads_total less outpost_rows_answers_total, plus "
                + "outpost_rows_builds_total: answers from held IOV rows need no query).</p>\n");
        return h.append("</body></html>\n").toString();
    }

    private static String esc(String s) {
        return Svg.esc(s == null ? "" : s);
    }
}
