package io.outpost.server.front;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.outpost.server.web.MemoryHits;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.PropertySource;

/**
 * The service's public HTTP port: a Netty server that answers native-API memory hits itself and hands every other
 * request to Tomcat on loopback ({@link ClientConnection}). Tomcat's own request cycle costs more CPU than a
 * whole 1 KB hit should (docs/benchmarks.md, "Which server carries memory hits"). Starts after Tomcat, stops
 * before it, and publishes its port as {@code local.server.port}.
 */
public final class HttpFront implements SmartLifecycle {
    private static final Logger LOG = LoggerFactory.getLogger(HttpFront.class);

    private final MemoryHits hits;
    private final FrontSettings settings;
    private final IntSupplier tomcatPort;
    private final ConfigurableEnvironment environment;
    private final AtomicInteger open = new AtomicInteger();
    private final Counter fromMemory;
    private final Counter forwarded;
    private final List<MemoryHitListener> listeners;
    private final HandedBodies bodies;
    private final Counter handed;
    private EventLoopGroup loops;
    private ChannelGroup clients;
    private Channel listener;
    private volatile int port = -1;

    public HttpFront(MemoryHits hits, FrontSettings settings, IntSupplier tomcatPort, ConfigurableEnvironment environment,
                     MeterRegistry registry, List<MemoryHitListener> listeners, HandedBodies bodies) {
        this.listeners = List.copyOf(listeners);
        this.bodies = bodies;
        handed = Counter.builder("outpost.front.handed.bodies")
                .description("response bodies a servlet left with the HTTP front, sent by the front itself").register(registry);
        Gauge.builder("outpost.front.handed.waiting.bytes", bodies, HandedBodies::waitingBytes)
                .description("bytes of response bodies left with the HTTP front and not yet sent").register(registry);
        this.hits = hits;
        this.settings = settings;
        this.tomcatPort = tomcatPort;
        this.environment = environment;
        Gauge.builder("outpost.front.connections", open, AtomicInteger::get)
                .description("client connections open on the HTTP front").register(registry);
        fromMemory = Counter.builder("outpost.front.requests").tag("answered", "memory")
                .description("requests the HTTP front answered itself or handed to Tomcat").register(registry);
        forwarded = Counter.builder("outpost.front.requests").tag("answered", "tomcat")
                .description("requests the HTTP front answered itself or handed to Tomcat").register(registry);
    }

    @Override
    public synchronized void start() {
        InetSocketAddress tomcat = new InetSocketAddress("127.0.0.1", tomcatPort.getAsInt());
        Transport transport = Transport.best(settings.nativeTransport());
        loops = new MultiThreadIoEventLoopGroup(settings.threads(), transport.handlers());
        clients = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
        HttpDecoderConfig requests = new HttpDecoderConfig().setMaxInitialLineLength(settings.maxHeaderBytes())
                .setMaxHeaderSize(settings.maxHeaderBytes()).setMaxChunkSize(64 * 1024);
        ConnectionLimit limit = new ConnectionLimit();
        long idle = settings.idleTimeout().toMillis();
        try {
            listener = new ServerBootstrap().group(loops).channel(transport.server())
                    .option(ChannelOption.SO_BACKLOG, 1024)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    // room for one big answer before the Tomcat side must pause
                    .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(512 << 10, 1 << 20))
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.pipeline().addLast(limit, new IdleStateHandler(0, 0, idle, TimeUnit.MILLISECONDS),
                                    new HttpServerCodec(requests),
                                    new ClientConnection(hits, settings, tomcat, transport, fromMemory,
                                            forwarded, listeners, bodies, handed));
                        }
                    })
                    .bind(settings.listen()).syncUninterruptibly().channel();
        } catch (RuntimeException e) {
            loops.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            throw new IllegalStateException("cannot listen on " + settings.listen() + ": " + e.getMessage(), e);
        }
        port = ((InetSocketAddress) listener.localAddress()).getPort();
        // a body whose client left before its response reached the front is never taken
        loops.next().scheduleAtFixedRate(() -> bodies.dropOlderThan(TimeUnit.SECONDS.toNanos(10)), 5, 5,
                TimeUnit.SECONDS);
        publishPort();
        LOG.info("Outpost listening on {}:{} ({}; memory hits answered there, everything else by Tomcat on {})",
                settings.listen().getHostString(), port, transport.name(), tomcat);
    }

    /** Tests and tools read {@code local.server.port}; Spring set it to Tomcat's loopback port. */
    @SuppressWarnings("unchecked")
    private void publishPort() {
        PropertySource<?> ports = environment.getPropertySources().get("server.ports");
        if (ports instanceof MapPropertySource map) {
            ((Map<String, Object>) map.getSource()).put("local.server.port", port);
        } else {
            Map<String, Object> m = new HashMap<>();
            m.put("local.server.port", port);
            environment.getPropertySources().addFirst(new MapPropertySource("server.ports", m));
        }
    }

    /** The public port, once started. */
    public int port() {
        return port;
    }

    /**
     * Stops accepting, lets requests in flight finish (up to {@code drainTimeout}; Tomcat's own graceful shutdown
     * comes after), then closes what is left.
     */
    @Override
    public synchronized void stop() {
        if (listener == null) {
            return;
        }
        listener.close().syncUninterruptibly();
        for (Channel c : clients) {
            ClientConnection conn = c.pipeline().get(ClientConnection.class);
            if (conn != null) {
                c.eventLoop().execute(conn::drain);
            }
        }
        long deadline = System.nanoTime() + settings.drainTimeout().toNanos();
        for (Channel c : clients) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || !c.closeFuture().awaitUninterruptibly(left, TimeUnit.NANOSECONDS)) {
                break;
            }
        }
        clients.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        loops.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        listener = null;
    }

    @Override
    public boolean isRunning() {
        return listener != null;
    }

    /** After the embedded web server's start (Tomcat's port is known), before its stop. */
    @Override
    public int getPhase() {
        return SmartLifecycle.DEFAULT_PHASE - 512;
    }

    /**
     * At most {@code maxConnections} clients at once: beyond it the listener stops accepting (new clients wait in
     * the kernel's backlog, as with Tomcat's max-connections) until one leaves.
     */
    @ChannelHandler.Sharable
    private final class ConnectionLimit extends ChannelInboundHandlerAdapter {
        @Override
        public void channelActive(ChannelHandlerContext ctx) throws Exception {
            clients.add(ctx.channel());
            Channel server = ctx.channel().parent();
            if (open.incrementAndGet() >= settings.maxConnections()) {
                server.config().setAutoRead(false);
                if (open.get() < settings.maxConnections()) { // one left meanwhile, on another event loop
                    server.config().setAutoRead(true);
                }
            }
            super.channelActive(ctx);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            if (open.decrementAndGet() < settings.maxConnections()) {
                ctx.channel().parent().config().setAutoRead(true);
            }
            super.channelInactive(ctx);
        }
    }
}
