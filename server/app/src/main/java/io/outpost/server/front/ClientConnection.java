package io.outpost.server.front;

import io.micrometer.core.instrument.Counter;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.ChannelOption;
import io.netty.channel.socket.DuplexChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import io.outpost.frontier.BodyHandoff;
import io.outpost.server.web.AccessLogFilter;
import io.outpost.server.web.MemoryHits;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One client connection of the HTTP front. A GET whose native answer is current in memory is answered here;
 * every other request is streamed to Tomcat over this connection's own loopback connection (opened on the first
 * such request, kept while the client stays), and Tomcat's response is streamed back. Requests are answered in
 * the order they came: while a forwarded request waits for its response, later ones wait too. Both directions
 * stop reading while the other side cannot take more (a slow client slows Tomcat's writes, as without the front).
 * All of it runs on the client channel's event loop, which the Tomcat connection shares: no locks.
 */
final class ClientConnection extends ChannelInboundHandlerAdapter {
    private final MemoryHits hits;
    private final FrontSettings settings;
    private final InetSocketAddress tomcat;
    private final Transport transport;
    private final Counter fromMemory;
    private final Counter forwarded;
    private final List<MemoryHitListener> listeners;
    private final HandedBodies bodies;
    private final Counter handed;
    private HandedBodies.Body handedBody;  // the body a servlet left for the response under way, sent by the front
    private boolean discarding;            // the rest of a response the front will not pass on
    private ChannelHandlerContext ctx;
    private String clientAddress;

    private Channel backend;               // the loopback connection to Tomcat, or null
    private boolean connecting;
    private final List<Object> heldForBackend = new ArrayList<>();
    private boolean forwarding;            // from a forwarded request's head until its response's last content
    private boolean inRequest;             // between a forwarded request's head and its last content
    private boolean responseStarted;
    private boolean keepAlive;             // what the forwarded request asked for
    private boolean closeAfterResponse;
    private boolean skippingHitContent;    // the (empty) body of a request answered from memory
    private boolean inInterim;             // a 1xx response of Tomcat's: 100 Continue is passed on, others dropped
    private boolean passingInterim;
    private final ArrayDeque<Object> waiting = new ArrayDeque<>();
    private boolean draining;              // the service is stopping: close once the request in flight is answered
    private boolean refusing;              // the front's own error is out: what the client still sends is dropped

    ClientConnection(MemoryHits hits, FrontSettings settings, InetSocketAddress tomcat, Transport transport,
                     Counter fromMemory,
                     Counter forwarded, List<MemoryHitListener> listeners, HandedBodies bodies, Counter handed) {
        this.hits = hits;
        this.settings = settings;
        this.tomcat = tomcat;
        this.transport = transport;
        this.fromMemory = fromMemory;
        this.forwarded = forwarded;
        this.listeners = listeners;
        this.bodies = bodies;
        this.handed = handed;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        this.ctx = ctx;
        clientAddress = ctx.channel().remoteAddress() instanceof InetSocketAddress a
                ? a.getAddress().getHostAddress() : String.valueOf(ctx.channel().remoteAddress());
        super.channelActive(ctx);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (refusing) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (!waiting.isEmpty() || (forwarding && !inRequest)) {
            waiting.add(msg);
            updateReading();
            return;
        }
        handle(msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (backend != null) {
            backend.flush();
        }
    }

    private void handle(Object msg) {
        if (msg instanceof HttpRequest req) {
            if (req.decoderResult().isFailure()) {
                ReferenceCountUtil.release(msg);
                refuse(req.decoderResult());
                return;
            }
            long start = System.nanoTime();
            MemoryHits.Hit hit = memoryHit(req);
            if (hit != null) {
                skippingHitContent = !(msg instanceof LastHttpContent);
                ReferenceCountUtil.release(msg);
                answerFromMemory(req, hit, start);
                return;
            }
            forwarded.increment();
            forwarding = true;
            inRequest = !(msg instanceof LastHttpContent);
            responseStarted = false;
            keepAlive = HttpUtil.isKeepAlive(req);
            req.headers().set(FrontPeerValve.HEADER, settings.secret() + " " + clientAddress);
            toBackend(msg);
            return;
        }
        if (msg instanceof HttpContent content) {
            if (content.decoderResult().isFailure()) {
                ReferenceCountUtil.release(msg);
                ctx.close(); // a broken body: neither side can tell where the next request begins
                return;
            }
            boolean last = msg instanceof LastHttpContent;
            if (skippingHitContent) {
                skippingHitContent = !last;
                ReferenceCountUtil.release(msg);
                return;
            }
            if (inRequest) {
                inRequest = !last;
                toBackend(msg);
                return;
            }
        }
        ReferenceCountUtil.release(msg);
    }

    private MemoryHits.Hit memoryHit(HttpRequest req) {
        String uri = req.uri();
        if (!HttpMethod.GET.equals(req.method()) || !uri.startsWith(settings.nativePrefix()) || uri.indexOf('?') >= 0) {
            return null;
        }
        return hits.find(uri, req.headers()::get);
    }

    private void answerFromMemory(HttpRequest req, MemoryHits.Hit hit, long start) {
        boolean keep = HttpUtil.isKeepAlive(req) && !draining;
        FullHttpResponse resp = HitResponse.of(hit, keep, req.protocolVersion());
        for (MemoryHitListener l : listeners) {
            l.answered(req.uri(), resp.status().code(), req.headers()::get);
        }
        ChannelFuture written = ctx.writeAndFlush(resp);
        if (!keep) {
            written.addListener(ChannelFutureListener.CLOSE);
        }
        hits.served(start);
        fromMemory.increment();
        AccessLogFilter.log(clientAddress, "GET", req.uri(), null, resp.status().code(), start, req.headers()::get);
    }

    /** A request the HTTP decoder could not read: a 4xx saying why, then the connection closes. */
    private void refuse(DecoderResult result) {
        Throwable cause = result.cause();
        HttpResponseStatus status = cause instanceof TooLongHttpLineException ? HttpResponseStatus.REQUEST_URI_TOO_LONG
                : cause instanceof TooLongHttpHeaderException ? HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE
                : HttpResponseStatus.BAD_REQUEST;
        String why = status == HttpResponseStatus.BAD_REQUEST
                ? "malformed HTTP request: " + cause.getMessage()
                : "request line or headers longer than " + settings.maxHeaderBytes() + " bytes";
        sendOwnError(status, why);
    }

    /** A short-lived plain-text error from the front itself, never stored by caches; the connection then closes. */
    private void sendOwnError(HttpResponseStatus status, String text) {
        FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                Unpooled.copiedBuffer(text + "\n", StandardCharsets.UTF_8));
        r.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8")
                .set(HttpHeaderNames.CACHE_CONTROL, "no-store")
                .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE)
                .setInt(HttpHeaderNames.CONTENT_LENGTH, r.content().readableBytes());
        if (status == HttpResponseStatus.SERVICE_UNAVAILABLE) {
            r.headers().set(HttpHeaderNames.RETRY_AFTER, "1");
        }
        closeLingering(ctx.writeAndFlush(r));
    }

    /**
     * Closes once {@code written} is out, while the client may still be sending (a body Tomcat answered early, or
     * pipelined requests): half-close, read on and discard, then close when the client does or after two seconds.
     * Closing with unread request bytes would make the kernel reset the connection, and the client could lose the
     * answer before reading it.
     */
    private void closeLingering(ChannelFuture written) {
        refusing = true;
        forwarding = false;
        inRequest = false;
        waiting.forEach(ReferenceCountUtil::release);
        waiting.clear();
        written.addListener(f -> {
            if (ctx.channel() instanceof DuplexChannel duplex) {
                duplex.shutdownOutput();
                ctx.executor().schedule(() -> ctx.close(), 2, TimeUnit.SECONDS);
            } else {
                ctx.close();
            }
        });
        updateReading();
    }

    private void toBackend(Object msg) {
        if (backend != null) {
            backend.write(msg);
            if (!backend.isWritable()) {
                updateReading();
            }
            return;
        }
        heldForBackend.add(msg);
        if (!connecting) {
            connect();
        }
    }

    private void connect() {
        connecting = true;
        updateReading();
        HttpDecoderConfig responses = new HttpDecoderConfig().setMaxHeaderSize(settings.maxHeaderBytes())
                .setMaxChunkSize(256 * 1024);
        new Bootstrap().group(ctx.channel().eventLoop()).channel(transport.client())
                .option(ChannelOption.TCP_NODELAY, true)
                // answers of hundreds of KB in few reads, each passed on in one write
                .option(ChannelOption.RCVBUF_ALLOCATOR, new AdaptiveRecvByteBufAllocator(4096, 65536, 1 << 20))
                // Tomcat may answer early (413) and close while the client's body still flows: a failed write of
                // that body must not close the connection before the answer already on its way is read
                .option(ChannelOption.AUTO_CLOSE, false)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new HttpClientCodec(responses, false, false), new BackendRelay());
                    }
                })
                .connect(tomcat).addListener((ChannelFuture f) -> connected(f));
    }

    private void connected(ChannelFuture f) {
        connecting = false;
        if (!ctx.channel().isActive()) {
            f.channel().close();
            releaseHeld();
            return;
        }
        if (!f.isSuccess()) {
            releaseHeld();
            sendOwnError(HttpResponseStatus.SERVICE_UNAVAILABLE, "the service is starting or stopping; try again");
            return;
        }
        backend = f.channel();
        heldForBackend.forEach(backend::write);
        heldForBackend.clear();
        backend.flush();
        updateReading();
    }

    /** Reads from the client only while nothing waits and Tomcat's connection takes more of a request body. */
    private void updateReading() {
        boolean read = refusing
                || waiting.isEmpty() && !connecting && (backend == null || !inRequest || backend.isWritable());
        ctx.channel().config().setAutoRead(read);
    }

    /** Tomcat's response, part by part. */
    private void fromBackend(Object msg) {
        if (discarding) {
            discarding = !(msg instanceof LastHttpContent);
            ReferenceCountUtil.release(msg);
            return;
        }
        if (inInterim || (msg instanceof HttpResponse r && r.status().codeClass()
                == HttpStatusClass.INFORMATIONAL)) {
            if (!inInterim) {
                passingInterim = ((HttpResponse) msg).status().code() == HttpResponseStatus.CONTINUE.code();
            }
            inInterim = !(msg instanceof LastHttpContent);
            if (passingInterim) {
                // Tomcat asks for the body of an "Expect: 100-continue" request only when the servlet reads it, so
                // a refused upload (413, 401) is refused before its body is sent
                ctx.writeAndFlush(msg);
            } else {
                ReferenceCountUtil.release(msg);
            }
            return;
        }
        if (msg instanceof HttpResponse r && r.headers().contains(BodyHandoff.HEADER)) {
            handedBody = bodies.take(r.headers().get(BodyHandoff.HEADER));
            r.headers().remove(BodyHandoff.HEADER);
            if (handedBody == null) { // dropped (its client seemed gone): never send the empty stand-in
                discarding = !(msg instanceof LastHttpContent);
                ReferenceCountUtil.release(msg);
                sendOwnError(HttpResponseStatus.BAD_GATEWAY, "the answer was lost inside the service; try again");
                return;
            }
            HttpUtil.setContentLength(r, handedBody.length());
            handed.increment();
        }
        if (msg instanceof LastHttpContent last && handedBody != null) {
            ReferenceCountUtil.release(last);
            msg = new DefaultLastHttpContent(Unpooled.wrappedBuffer(handedBody.parts()));
            handedBody = null;
        }
        if (msg instanceof HttpResponse r) {
            responseStarted = true;
            closeAfterResponse = !keepAlive || !HttpUtil.isKeepAlive(r) || draining;
            if (draining) {
                HttpUtil.setKeepAlive(r, false);
            }
        }
        ChannelFuture written = ctx.write(msg);
        if (!ctx.channel().isWritable() && backend != null) {
            backend.config().setAutoRead(false);
        }
        if (msg instanceof LastHttpContent) {
            ctx.flush();
            forwarding = false;
            responseStarted = false;
            if (closeAfterResponse) {
                if (inRequest || !waiting.isEmpty()) {
                    closeLingering(written);
                } else {
                    written.addListener(ChannelFutureListener.CLOSE);
                }
                return;
            }
            handleWaiting();
        }
    }

    private void handleWaiting() {
        while (!waiting.isEmpty() && !(forwarding && !inRequest) && ctx.channel().isActive()) {
            handle(waiting.poll());
        }
        if (backend != null) {
            backend.flush();
        }
        updateReading();
    }

    /**
     * Graceful stop: an idle connection closes now; one with a request in flight closes once its answer is out
     * (requests pipelined behind it are not started).
     */
    void drain() {
        draining = true;
        if (!forwarding) {
            ctx.close();
        }
    }

    private void backendClosed(Channel closed) {
        if (closed != backend) {
            return;
        }
        backend = null;
        if (!forwarding && inRequest) {
            closeLingering(ctx.newSucceededFuture()); // answered early, then gone: the rest of the body has nowhere to go
        } else if (forwarding && !responseStarted) {
            sendOwnError(HttpResponseStatus.BAD_GATEWAY, "the service closed the connection without an answer");
        } else if (forwarding) {
            ctx.close(); // a response cut short: the client must see it end early, not wait
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        if (backend != null && ctx.channel().isWritable()) {
            backend.config().setAutoRead(true);
        }
        super.channelWritabilityChanged(ctx);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof IdleStateEvent && !forwarding && waiting.isEmpty()) {
            ctx.close();
            return;
        }
        super.userEventTriggered(ctx, evt);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        waiting.forEach(ReferenceCountUtil::release);
        waiting.clear();
        releaseHeld();
        if (backend != null) {
            backend.close();
        }
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
    }

    private void releaseHeld() {
        heldForBackend.forEach(ReferenceCountUtil::release);
        heldForBackend.clear();
    }

    /** The handler on the loopback connection to Tomcat. */
    private final class BackendRelay extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext backendCtx, Object msg) {
            fromBackend(msg);
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext backendCtx) {
            ctx.flush();
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext backendCtx) {
            updateReading();
        }

        @Override
        public void channelInactive(ChannelHandlerContext backendCtx) {
            backendClosed(backendCtx.channel());
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext backendCtx, Throwable cause) {
            backendCtx.close();
        }
    }
}
