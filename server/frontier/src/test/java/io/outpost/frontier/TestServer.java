package io.outpost.frontier;

import io.outpost.testkit.TempDirs;
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
        // the connector and socket buffers the application runs with (server/app TomcatTuning): NIO2, and large
        // answers written in 256 KB pieces rather than Tomcat's default 8 KB
        Connector connector = new Connector("org.apache.coyote.http11.Http11Nio2Protocol");
        connector.setPort(0);
        connector.setProperty("address", "127.0.0.1");
        connector.setProperty("socket.appWriteBufSize", "262144");
        connector.setProperty("socket.txBufSize", "1048576");
        connector.setProperty("socket.directBuffer", "true");
        connector.setProperty("socket.appReadBufSize", "65536");
        connector.setProperty("socket.rxBufSize", "1048576");
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
