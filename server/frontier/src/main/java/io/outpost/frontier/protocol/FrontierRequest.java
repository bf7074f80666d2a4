package io.outpost.frontier.protocol;

import jakarta.servlet.http.HttpServletRequest;
import java.util.List;

/**
 * What an HTTP request asks of the Frontier servlet: its payload commands and their time-to-live class. A request
 * that is not a Frontier GET of {@code frontier_request:1} payloads is refused as a whole, with upstream's messages.
 */
public record FrontierRequest(List<FrontierCommand> commands, CacheTtl ttl) {

    /** The command string: the query string, or the path info for the {@code /Frontier/type=...} form. */
    public static String commandText(HttpServletRequest req) {
        String query = req.getQueryString();
        return query != null ? query : req.getPathInfo();
    }

    public static FrontierRequest parse(HttpServletRequest req) throws FrontierException {
        String query = commandText(req);
        if (query == null) {
            throw new FrontierException("no query");
        }
        if (req.getHeader("X-Frontier-Id") == null) {
            throw new FrontierException("X-frontier-id header missing");
        }
        if (req.getMethod().equals("POST")) {
            throw new FrontierException("POST is not implemented yet!");
        }
        if (!req.getMethod().equals("GET")) {
            throw new FrontierException("Unsupported method [" + req.getMethod() + "]");
        }
        List<FrontierCommand> commands = FrontierCommand.parse(query);
        CacheTtl ttl = CacheTtl.LONG;
        for (FrontierCommand c : commands) {
            if (c.domain().equals("meta")) {
                throw new FrontierException("META methods are not supported by this object");
            }
            if (c.domain().equals("write")) {
                throw new FrontierException("Not implemented");
            }
            if (!"frontier_request".equals(c.objectName()) || !"1".equals(c.objectVersion())) {
                throw new FrontierException("Unsupported command: " + c.objectName());
            }
            ttl = ttl.with(c.param("ttl"));
        }
        return new FrontierRequest(commands, ttl);
    }
}
