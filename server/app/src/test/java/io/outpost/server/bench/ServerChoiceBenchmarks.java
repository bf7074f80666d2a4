package io.outpost.server.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.outpost.testkit.TempDirs;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.catalina.Context;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Which server could carry the service's memory hits at nginx's rate? The same ~200 B and ~420 KB bodies served from
 * memory by a bare Tomcat (one servlet, the NIO2 connector the service uses), a bare Jetty (one core handler) and a
 * bare Netty (HTTP codec and one handler on two event loops), each against nginx serving the same bytes from a file,
 * at 1 and 20 connections, taking turns, three rounds; ratios are medians of the rounds' ratios. Every response of a
 * short run per server is checked (status, body length), and every timed run's errors and bytes per response. Nothing of the service runs here: this is the ceiling each server leaves, to
 * weigh against the service's own figure ({@link MemoryHitBenchmarks}). Run with
 * {@code ./mvnw -B -ntp -Pbenchmark test -pl server/app -Dtest=ServerChoiceBenchmarks}.
 */
@Tag("benchmark")
class ServerChoiceBenchmarks {
    private static final int ROUNDS = 3;

    /** A running bare server: its port, and how to stop it. */
    record Bare(int port, AutoCloseable stop) implements AutoCloseable {
        @Override
        public void close() throws Exception {
            stop.close();
        }
    }

    @Test
    void bareServersAgainstNginx() throws Exception {
        assumeTrue(ExternalTools.available("nginx") && ExternalTools.available("wrk"),
                "nginx and wrk are not installed (./outpost bench installs them)");
        Random random = new Random(5);
        byte[][] bodies = {randomBytes(random, 194), randomBytes(random, 417_346)};
        String[] names = {"200B", "420KB"};
        Path root = TempDirs.create("outpost-static");
        List<String> lines = new ArrayList<>();
        try (ExternalTools.Nginx nginx = new ExternalTools.Nginx(root)) {
            for (int b = 0; b < bodies.length; b++) {
                byte[] body = bodies[b];
                Path file = root.resolve(names[b] + ".bin");
                Files.write(file, body);
                String nginxUrl = "http://127.0.0.1:" + nginx.port + "/" + names[b] + ".bin";
                String[] servers = {"Tomcat NIO2 servlet", "Jetty core handler", "Netty NIO"};
                List<Bare> bare = new ArrayList<>();
                try {
                    bare.add(tomcat(body));
                    bare.add(jetty(body));
                    bare.add(netty(body));
                    ExternalTools.Expected expected = ExternalTools.Expected.body(body.length);
                    ExternalTools.verify(nginxUrl, 20, null, expected);
                    for (Bare s : bare) {
                        assertThat(fetch(s.port())).as("served bytes").isEqualTo(body);
                        ExternalTools.verify(url(s), 20, null, expected);
                    }
                    for (int conns : new int[] {1, 20}) {
                        int threads = Math.min(2, conns);
                        for (Bare s : bare) {
                            ExternalTools.wrk(url(s), threads, conns, 2, null, expected);
                        }
                        double[][] ratios = new double[bare.size()][ROUNDS];
                        for (int round = 0; round < ROUNDS; round++) {
                            for (int i = 0; i < bare.size(); i++) {
                                double rate = ExternalTools.wrk(url(bare.get(i)), threads, conns, 3, null, expected);
                                ratios[i][round] = rate / ExternalTools.wrk(nginxUrl, threads, conns, 3, null, expected);
                            }
                        }
                        for (int i = 0; i < bare.size(); i++) {
                            double[] r = ratios[i].clone();
                            Arrays.sort(r);
                            lines.add(String.format("bare %s, %d bytes, %d connection(s): server/nginx median ratio "
                                    + "%.2f (rounds %.2f-%.2f)", servers[i], body.length, conns, r[ROUNDS / 2], r[0],
                                    r[ROUNDS - 1]));
                        }
                    }
                } finally {
                    for (Bare s : bare) {
                        s.close();
                    }
                }
            }
        } finally {
            TempDirs.deleteQuietly(root);
        }
        lines.forEach(l -> System.out.println("BENCHMARK " + l));
    }

    private static String url(Bare s) {
        return "http://127.0.0.1:" + s.port() + "/hit";
    }

    private static byte[] fetch(int port) throws Exception {
        try (HttpClient c = HttpClient.newHttpClient()) {
            var r = c.send(java.net.http.HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/hit"))
                    .method("GET", BodyPublishers.noBody()).build(), BodyHandlers.ofByteArray());
            assertThat(r.statusCode()).isEqualTo(200);
            return r.body();
        }
    }

    private static byte[] randomBytes(Random r, int n) {
        byte[] b = new byte[n];
        r.nextBytes(b);
        return b;
    }

    private static Bare tomcat(byte[] body) throws Exception {
        Path base = TempDirs.create("outpost-bare-tomcat");
        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(base.toString());
        Connector connector = new Connector("org.apache.coyote.http11.Http11Nio2Protocol");
        connector.setPort(0);
        connector.setProperty("address", "127.0.0.1");
        connector.setProperty("maxKeepAliveRequests", "-1");
        tomcat.setConnector(connector);
        Context ctx = tomcat.addContext("", base.toString());
        Tomcat.addServlet(ctx, "hit", new HttpServlet() {
            @Override
            protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
                resp.setContentType("application/octet-stream");
                resp.setContentLength(body.length);
                resp.getOutputStream().write(body);
            }
        });
        ctx.addServletMappingDecoded("/*", "hit");
        tomcat.start();
        return new Bare(connector.getLocalPort(), () -> {
            try {
                tomcat.stop();
                tomcat.destroy();
            } finally {
                TempDirs.deleteQuietly(base);
            }
        });
    }

    private static Bare jetty(byte[] body) throws Exception {
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        server.setHandler(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/octet-stream");
                response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
                response.write(true, ByteBuffer.wrap(body), callback);
                return true;
            }
        });
        server.start();
        return new Bare(connector.getLocalPort(), server::stop);
    }

    private static Bare netty(byte[] body) throws Exception {
        EventLoopGroup boss = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        EventLoopGroup workers = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
        var content = Unpooled.unreleasableBuffer(Unpooled.wrappedBuffer(body));
        Channel channel = new ServerBootstrap().group(boss, workers).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(65536),
                                new SimpleChannelInboundHandler<HttpRequest>() {
                                    @Override
                                    protected void channelRead0(ChannelHandlerContext ctx, HttpRequest req) {
                                        FullHttpResponse resp = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                                                HttpResponseStatus.OK, content.duplicate());
                                        resp.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/octet-stream");
                                        HttpUtil.setContentLength(resp, body.length);
                                        HttpUtil.setKeepAlive(resp, HttpUtil.isKeepAlive(req));
                                        ctx.writeAndFlush(resp);
                                    }
                                });
                    }
                })
                .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
        return new Bare(((InetSocketAddress) channel.localAddress()).getPort(), () -> {
            channel.close().sync();
            boss.shutdownGracefully().sync();
            workers.shutdownGracefully().sync();
        });
    }
}
