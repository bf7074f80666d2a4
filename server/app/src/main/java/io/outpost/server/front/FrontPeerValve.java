package io.outpost.server.front;

import jakarta.servlet.ServletException;
import java.io.IOException;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ValveBase;

/**
 * Gives Tomcat the real client address of a request the HTTP front forwarded, so that the access log and the
 * per-client limits see the client, not the front's loopback connection. The front sends the address in
 * {@value #HEADER} after this process's random secret; the header is always removed, and believed only with
 * the secret (anything else on the machine can connect to Tomcat's loopback port too). Such requests may also
 * leave a large response body with the front ({@link HandedBodies}).
 */
public final class FrontPeerValve extends ValveBase {
    public static final String HEADER = "X-Outpost-Front";
    private final String prefix;
    private final HandedBodies bodies;

    /** @param bodies where servlets may leave large bodies of requests the front forwarded, or null */
    public FrontPeerValve(String secret, HandedBodies bodies) {
        super(true);
        this.prefix = secret + " ";
        this.bodies = bodies;
    }

    @Override
    public void invoke(Request request, Response response) throws IOException, ServletException {
        String value = request.getHeader(HEADER);
        if (value != null) {
            request.getCoyoteRequest().getMimeHeaders().removeHeader(HEADER);
            if (value.startsWith(prefix) && value.length() > prefix.length()) {
                String address = value.substring(prefix.length());
                request.setRemoteAddr(address);
                request.setRemoteHost(address);
                if (bodies != null) {
                    request.setAttribute(io.outpost.frontier.BodyHandoff.ATTRIBUTE, bodies);
                }
            }
        }
        getNext().invoke(request, response);
    }
}
