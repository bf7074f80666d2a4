package io.outpost.frontier;

import io.outpost.store.testing.TempDirs;
import java.nio.file.Path;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;

/** Embedded Tomcat on 127.0.0.1 with one FrontierServlet per context, mapped as the application maps it. */
final class TestServer implements AutoCloseable {
    private final Tomcat tomcat;
    private final int port;
    private final Path base;

    TestServer(FrontierServlet... servlets) throws Exception {
        tomcat = new Tomcat();
        this.base = TempDirs.create("frontier-tomcat");
        tomcat.setBaseDir(base.toString());
        Connector connector = new Connector("HTTP/1.1");
        connector.setPort(0);
        connector.setProperty("address", "127.0.0.1");
        // 16 KB request lines (the application sets the same through server.max-http-request-header-size).
        connector.setProperty("maxHttpRequestHeaderSize", "32768");
        tomcat.setConnector(connector);
        Context ctx = tomcat.addContext("", base.toString());
        int i = 0;
        for (FrontierServlet s : servlets) {
            String name = "frontier" + (i++);
            Tomcat.addServlet(ctx, name, s);
            ctx.addServletMappingDecoded(s.context().servletMapping(), name);
        }
        tomcat.start();
        port = connector.getLocalPort();
    }

    int port() {
        return port;
    }

    String base(String context) {
        return "http://127.0.0.1:" + port + "/" + context + "/Frontier";
    }

    @Override
    public void close() throws LifecycleException {
        try {
            tomcat.stop();
            tomcat.destroy();
        } finally {
            TempDirs.deleteQuietly(base);
        }
    }
}
