package io.outpost.loadtest.grid;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/** What the grid run's logs tell once it is over: the origins' per-client refusals, the Squids' forwards of the herd. */
final class GridLogs {
    private GridLogs() {
    }

    /** The Frontier per-client refusals each origin logged ("rejecting: client …", AdmitStep), over the whole run. */
    static Map<String, Long> clientRefusals(Path logs) throws IOException {
        Map<String, Long> out = new TreeMap<>();
        for (String origin : List.of("origin1", "origin2")) {
            Path log = logs.resolve(origin + ".log");
            long n = 0;
            if (Files.exists(log)) {
                try (var lines = Files.lines(log, StandardCharsets.ISO_8859_1)) {
                    n = lines.filter(l -> l.contains("rejecting: client")).count();
                }
            }
            out.put(origin, n);
        }
        return out;
    }

    /**
     * The herd seen by the Squids (their access logs): how many of the herd's URLs the regional Squid sent on to an
     * origin, and the most times one site Squid sent one of them to its parent.
     */
    static GridReport.HerdForwards herdForwards(Path out, GridReport.Phase herd, List<GridReport.JobLine> jobs)
            throws IOException {
        Set<String> urls = new HashSet<>();
        jobs.stream().filter(GridReport.JobLine::herd).forEach(j -> urls.addAll(j.paths()));
        long toOrigins = forwards(out.resolve("squid-regional/logs/access.log"), herd, urls).values().stream()
                .mapToLong(Long::longValue).sum();
        long sitePerUrl = 0;
        for (String site : List.of("site1", "site2")) {
            for (long n : forwards(out.resolve("squid-" + site + "/logs/access.log"), herd, urls).values()) {
                sitePerUrl = Math.max(sitePerUrl, n);
            }
        }
        return new GridReport.HerdForwards(urls.size(), toOrigins, sitePerUrl);
    }

    /** Per URL path of {@code urls}: the access log's requests that went on upstream (not HIER_NONE). */
    private static Map<String, Long> forwards(Path accessLog, GridReport.Phase phase, Set<String> urls)
            throws IOException {
        Map<String, Long> out = new HashMap<>();
        if (!Files.exists(accessLog)) {
            return out;
        }
        for (String line : Files.readAllLines(accessLog)) {
            String[] f = line.trim().split("\\s+");
            if (f.length < 8) {
                continue;
            }
            long millis = (long) (Double.parseDouble(f[0]) * 1000);
            int path = f[6].indexOf('/', f[6].indexOf("//") + 2);
            String p = path < 0 ? f[6] : f[6].substring(path);
            // from the herd on (a line is written when its request ends); only herd jobs ask the herd's URLs
            if (millis >= phase.startMillis() && urls.contains(p) && !f[7].startsWith("HIER_NONE")) {
                out.merge(p, 1L, Long::sum);
            }
        }
        return out;
    }
}
