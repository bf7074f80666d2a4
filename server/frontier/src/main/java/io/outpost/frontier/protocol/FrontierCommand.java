package io.outpost.frontier.protocol;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringTokenizer;

/**
 * One payload request of a Frontier URL: {@code type=<name>:<version>[:<method>]&encoding=<enc>&<key>=<value>...}.
 * Parsing follows upstream {@code Command.set_get_command}: strict order, {@code &}-separated tokens (empty ones
 * skipped), each token's name and value are the text before the first {@code =} and between it and the next
 * {@code =}, both URL-decoded; a new {@code type=}/{@code meta=} starts the next payload.
 */
public record FrontierCommand(String domain, String objectName, String objectVersion, String method, String encoding,
                              Map<String, String> params) {

    /** frontier_client sends at most 32 payloads per request. */
    public static final int MAX_PAYLOADS = 32;

    public String param(String name) {
        return params.get(name);
    }

    /** Parses the command string (query string, or path info with its leading slash). */
    public static List<FrontierCommand> parse(String query) throws FrontierException {
        if (query == null) {
            throw new FrontierException("no query");
        }
        StringTokenizer tokens = new StringTokenizer(query, "&");
        List<FrontierCommand> out = new ArrayList<>();
        String[] p = next(tokens);
        if (p == null) {
            throw new FrontierException("no query");
        }
        while (p != null) {
            String domain = p[0];
            if (!domain.equals("type") && !domain.equals("meta") && !domain.equals("write")) {
                throw new FrontierException("Unsupported request type [" + domain + "]");
            }
            String[] obj = objectParts(domain, p[1]);
            String[] enc = next(tokens);
            if (enc == null) {
                throw new FrontierException("command parse completed prematurely! param0: " + domain + ", name: "
                        + obj[0]);
            }
            if (!enc[0].equals("encoding")) {
                throw new FrontierException("Unexpected parameter [" + enc[0] + "=" + enc[1] + "]");
            }
            Map<String, String> params = new LinkedHashMap<>();
            while (true) {
                p = next(tokens);
                if (p == null || p[0].equals("type") || p[0].equals("meta")) {
                    break;
                }
                if (params.putIfAbsent(p[0], p[1]) != null) {
                    throw new FrontierException("Duplicate parameter [" + p[0] + "]");
                }
            }
            if (out.size() == MAX_PAYLOADS) {
                throw new FrontierException("Too many payloads (more than " + MAX_PAYLOADS + ")");
            }
            out.add(new FrontierCommand(domain, obj[0], obj[1], obj[2] == null ? "DEFAULT" : obj[2], enc[1],
                    Collections.unmodifiableMap(params)));
        }
        return out;
    }

    private static String[] objectParts(String domain, String value) throws FrontierException {
        String[] r = new String[3];
        if (!domain.equals("type") && !domain.equals("meta")) {
            r[0] = value;
            return r;
        }
        StringTokenizer st = new StringTokenizer(value, ":");
        if (!st.hasMoreTokens()) {
            throw new FrontierException("Bad request type [" + value + "]");
        }
        r[0] = st.nextToken();
        if (st.hasMoreTokens()) {
            r[1] = st.nextToken();
        }
        if (st.hasMoreTokens()) {
            r[2] = st.nextToken();
        }
        return r;
    }

    private static String[] next(StringTokenizer tokens) throws FrontierException {
        if (!tokens.hasMoreTokens()) {
            return null;
        }
        String token = tokens.nextToken();
        StringTokenizer st = new StringTokenizer(token, "=");
        if (!st.hasMoreTokens()) {
            throw new FrontierException("Bad parameter [" + token + "]");
        }
        String name = decode(st.nextToken());
        if (!st.hasMoreTokens()) {
            throw new FrontierException("Parameter without value [" + name + "]");
        }
        String value = decode(st.nextToken());
        if (name.startsWith("/")) {
            name = name.substring(1);
        }
        return new String[] {name, value};
    }

    private static String decode(String s) throws FrontierException {
        try {
            return URLDecoder.decode(s, StandardCharsets.US_ASCII);
        } catch (IllegalArgumentException e) {
            throw new FrontierException("Bad URL encoding in [" + s + "]");
        }
    }
}
