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
 * the secret (anything else on the machine can connect to Tomcat's loopback port too).
 */
public final class FrontPeerValve extends ValveBase {
    public static final String HEADER = "X-Outpost-Front";
    private final String prefix;

    public FrontPeerValve(String secret) {
        super(true);
        this.prefix = secret + " ";
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
            }
        }
        getNext().invoke(request, response);
    }
}
