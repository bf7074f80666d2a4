package io.outpost.loadtest.grid;

import io.outpost.loadtest.grid.GridReport.HerdForwards;
import io.outpost.loadtest.grid.GridReport.HerdLoads;
import io.outpost.loadtest.grid.GridReport.JobLine;
import io.outpost.loadtest.grid.GridReport.Phase;
import io.outpost.loadtest.grid.GridReport.PhaseResult;
import io.outpost.loadtest.grid.GridReport.Write;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Writes a {@link GridReport} out: summary.txt for people, summary.json for machines, report.html with a chart. */
final class GridReportWriter {
    private final GridReport report;
    private final GridPlan plan;
    private final List<Phase> phases;
    private final List<JobLine> jobs;
    private final List<Write> writes;
    private final List<String> faultLog;
    private final List<PhaseResult> results;
    private final HerdForwards herd;
    private final String cppNote;
    private final Map<String, Long> clientRefusals;

    GridReportWriter(GridReport report) {
        this.report = report;
        this.plan = report.plan;
        this.phases = report.phases;
        this.jobs = report.jobs;
        this.writes = report.writes;
        this.faultLog = report.faultLog;
        this.results = report.results;
        this.herd = report.herd;
        this.cppNote = report.cppNote;
        this.clientRefusals = report.clientRefusals;
    }

    /** Writes summary.txt, summary.json and report.html to {@code out}; returns the summary. */
    String write(Path out) throws IOException {
        Files.createDirectories(out);
        double baseline = results.get(1).meanMillis();
        StringBuilder s = new StringBuilder();
        s.append(String.format(Locale.ROOT, "grid run: %d jobs on %d client hosts, %d writes; %d failed jobs, "
                + "%d mismatching folders%n", jobs.size(), plan.clientHosts, writes.size(), report.failedJobs(),
                report.mismatches()));
        s.append(String.format(Locale.ROOT, "COOL at-time jobs (through Frontier): %d, %d failed; their folders are "
                + "counted in the mismatches%n", jobs.stream().filter(JobLine::cool).count(),
                jobs.stream().filter(j -> j.cool() && j.failed()).count()));
        s.append(cppNote).append(String.format(Locale.ROOT, ": %d jobs, %d failed%n",
                jobs.stream().filter(JobLine::cpp).count(), jobs.stream().filter(j -> j.cpp() && j.failed()).count()));
        for (String kind : List.of(GridReport.JAVA, GridReport.COOL, GridReport.CPP)) {
            jobs.stream().filter(j -> j.kind().equals(kind) && j.failed()).findFirst().ifPresent(j ->
                    s.append("first failure of a ").append(kind).append(" job: ").append(j.error()).append('\n'));
        }
        s.append(String.format(Locale.ROOT, "%-46s %6s %6s %9s %9s %9s %9s %9s %8s %9s %10s%n", "phase", "jobs",
                "failed", "cool/fail", "c++/fail", "mean ms", "extra ms", "origin rq", "writes", "stale max", "mismatches"));
        for (PhaseResult r : results) {
            s.append(String.format(Locale.ROOT, "%-46s %6d %6d %5d/%-3d %5d/%-3d %9.0f %9.0f %9d %4d/%-3d %8.1fs %10d%n",
                    r.phase().name(), r.jobs(), r.failed(), r.coolJobs(), r.coolFailed(), r.cppJobs(), r.cppFailed(),
                    r.meanMillis(), r.meanMillis() - baseline,
                    r.originRequests(), r.writesSeen(), r.writes(),
                    Math.max(r.maxStalenessSeconds(), r.replicaWaitSeconds()), r.mismatches()));
        }
        int bound = report.stalenessBoundSeconds();
        double maxStale = report.maxStalenessSeconds();
        double firstJobEnd = results.stream().mapToDouble(PhaseResult::maxFirstJobEndSeconds).max().orElse(0);
        double replicaStale = results.stream().mapToDouble(PhaseResult::replicaWaitSeconds).max().orElse(-1);
        s.append(String.format(Locale.ROOT, "herd: %d jobs in one second, %d distinct URLs; the regional Squid sent "
                        + "%d of them to the origins (target <= distinct URLs x 1 regional Squid), a site Squid at most "
                        + "%d per URL to its parent (target 1) -> %s%n",
                jobs.stream().filter(JobLine::herd).count(), herd.distinctUrls(), herd.toOrigins(),
                herd.maxPerUrlFromASite(), report.herdWithinBound() ? "PASS" : "FAIL"));
        HerdLoads hl = report.herdLoads();
        s.append(String.format(Locale.ROOT, "herd database loads: %d in %.1f s around the herd, at most %d by one "
                        + "origin %s, for %d answers that could be asked then (target <= one per answer per origin) -> %s%n",
                hl.loads(), (hl.toMillis() - hl.fromMillis()) / 1000.0, hl.maxPerOrigin(), hl.perOrigin(), hl.answers(),
                hl.withinBound() ? "PASS" : "FAIL"));
        s.append(String.format(Locale.ROOT, "per-client refusals: %d %s (target 0: the origins trust the Squids) -> %s%n",
                report.clientRefusals(), clientRefusals, report.clientRefusals() == 0 ? "PASS" : "FAIL"));
        s.append(String.format(Locale.ROOT, "staleness: max %.1f s from a commit to the last state a job was given "
                        + "without it (bound state max-age + poll = %d s) -> %s%s; commit to the end of the first job "
                        + "that read it, with the job's own time: max %.1f s%n",
                maxStale, bound, report.stalenessWithinBound() ? "PASS" : "FAIL", replicaStale < 0 ? ""
                        : String.format(Locale.ROOT, "; writes committed while the replica did not replay (or a "
                                + "poll interval before it was killed): given without them for at most %.1f s (until "
                                + "it replays again)", replicaStale),
                firstJobEnd));
        s.append(String.format(Locale.ROOT, "client hosts: jobs from all %d in every phase%s -> %s%n", plan.clientHosts,
                report.phasesMissingAHost().isEmpty() ? "" : "; not in " + report.phasesMissingAHost(),
                report.phasesMissingAHost().isEmpty() ? "PASS" : "FAIL"));
        s.append(String.format(Locale.ROOT, "target 0 failed jobs, 0 mismatches: %d, %d -> %s%n", report.failedJobs(),
                report.mismatches(), report.failedJobs() == 0 && report.mismatches() == 0 ? "PASS" : "FAIL"));
        for (String f : faultLog) {
            s.append("fault ").append(f).append('\n');
        }
        Files.writeString(out.resolve("summary.txt"), s);
        Files.writeString(out.resolve("summary.json"), json(hl, maxStale, bound, firstJobEnd));
        Files.writeString(out.resolve("report.html"), html(s.toString()));
        return s.toString();
    }

    /** The summary's figures for machines: the targets, each with its value and verdict, and the phases. */
    private String json(HerdLoads hl, double maxStale, int staleBound, double firstJobEnd) {
        var root = new java.util.LinkedHashMap<String, Object>();
        root.put("passed", report.passed());
        root.put("jobs", jobs.size());
        root.put("failedJobs", report.failedJobs());
        root.put("mismatches", report.mismatches());
        root.put("writes", writes.size());
        root.put("coolJobs", jobs.stream().filter(JobLine::cool).count());
        root.put("cppJobs", jobs.stream().filter(JobLine::cpp).count());
        root.put("perClientRefusals", report.clientRefusals());
        root.put("phasesMissingAClientHost", report.phasesMissingAHost());
        root.put("perClientRefusalsByOrigin", clientRefusals);
        root.put("herd", Map.of("jobs", jobs.stream().filter(JobLine::herd).count(), "distinctUrls",
                herd.distinctUrls(), "toOrigins", herd.toOrigins(), "maxPerUrlFromASite", herd.maxPerUrlFromASite(),
                "passed", report.herdWithinBound()));
        root.put("herdDatabaseLoads", Map.of("loads", hl.loads(), "maxPerOrigin", hl.maxPerOrigin(),
                "perOrigin", hl.perOrigin(), "answers", hl.answers(), "windowMillis", hl.toMillis() - hl.fromMillis(),
                "passed", hl.withinBound()));
        root.put("staleness", Map.of("maxSeconds", maxStale, "boundSeconds", staleBound, "passed",
                report.stalenessWithinBound(), "maxToFirstJobEndSeconds", firstJobEnd, "replicaWaitSeconds",
                results.stream().mapToDouble(PhaseResult::replicaWaitSeconds).max().orElse(-1)));
        List<Map<String, Object>> ph = new ArrayList<>();
        for (PhaseResult r : results) {
            var m = new java.util.LinkedHashMap<String, Object>();
            m.put("phase", r.phase().name());
            m.put("jobs", r.jobs());
            m.put("failed", r.failed());
            m.put("meanMillis", r.meanMillis());
            m.put("originRequests", r.originRequests());
            m.put("writes", r.writes());
            m.put("writesSeen", r.writesSeen());
            m.put("maxStalenessSeconds", r.maxStalenessSeconds());
            m.put("replicaWaitSeconds", r.replicaWaitSeconds());
            m.put("maxToFirstJobEndSeconds", r.maxFirstJobEndSeconds());
            m.put("mismatches", r.mismatches());
            ph.add(m);
        }
        root.put("phases", ph);
        root.put("faults", faultLog);
        return tools.jackson.databind.json.JsonMapper.builder().build().writerWithDefaultPrettyPrinter()
                .writeValueAsString(root) + "\n";
    }

    /** The summary and one dot per job (start time → job time; failed jobs red), phases shaded. */
    private String html(String summary) {
        long t0 = phases.get(0).startMillis();
        long t1 = phases.get(phases.size() - 1).endMillis();
        double maxMs = Math.max(1, jobs.stream().mapToLong(j -> j.end() - j.start()).max().orElse(1));
        int w = 900;
        int h = 300;
        StringBuilder svg = new StringBuilder("<svg xmlns='http://www.w3.org/2000/svg' width='" + w + "' height='"
                + (h + 40) + "'>");
        for (int i = 0; i < phases.size(); i++) {
            Phase p = phases.get(i);
            double x0 = w * (p.startMillis() - t0) / (double) (t1 - t0);
            double x1 = w * (p.endMillis() - t0) / (double) (t1 - t0);
            svg.append(String.format(Locale.ROOT, "<rect x='%.1f' y='0' width='%.1f' height='%d' fill='%s'/>"
                    + "<text x='%.1f' y='%d' font-size='9'>%d</text>", x0, x1 - x0, h, i % 2 == 0 ? "#f4f4f4" : "#e8eef8",
                    x0 + 2, h + 12, i));
        }
        for (JobLine j : jobs) {
            double x = w * (j.start() - t0) / (double) (t1 - t0);
            double y = h - h * Math.log1p(j.end() - j.start()) / Math.log1p(maxMs);
            svg.append(String.format(Locale.ROOT, "<circle cx='%.1f' cy='%.1f' r='1.5' fill='%s'/>", x, y,
                    j.failed() ? "red" : "#2060c0"));
        }
        svg.append(String.format(Locale.ROOT, "<text x='0' y='%d' font-size='10'>job time (log scale, max %.0f ms) "
                + "by start time; shaded bands: phases 0-%d in the table</text></svg>", h + 30, maxMs, phases.size() - 1));
        return "<!doctype html><html><head><meta charset='utf-8'><title>Outpost grid run</title></head><body>"
                + "<h1>Outpost grid run</h1><pre>" + summary.replace("&", "&amp;").replace("<", "&lt;") + "</pre>"
                + svg + "</body></html>\n";
    }
}
