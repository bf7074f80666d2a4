package io.outpost.server.connections;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outpost.server.support.RunningService;
import io.outpost.testkit.RawHttp;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.catalina.valves.ValveBase;
import org.apache.coyote.Adapter;
import org.apache.coyote.ProtocolHandler;
import org.apache.coyote.http11.AbstractHttp11Protocol;
import org.apache.coyote.http11.Http11Nio2Protocol;
import org.apache.coyote.http11.Http11Processor;
import org.apache.tomcat.util.net.AbstractEndpoint;
import org.apache.tomcat.util.net.Nio2Endpoint;
import org.junit.jupiter.api.Test;
import org.springframework.boot.tomcat.TomcatWebServer;
import org.springframework.boot.web.server.context.WebServerApplicationContext;

/**
 * The connection guard lives in Tomcat's NIO2 internals: its protocol, endpoint and processor subclass Tomcat's and
 * override protected methods, and its endpoint swaps in its own map of open connections. A Tomcat upgrade that
 * renames, re-types or finalises one of those hooks, or stops going through it, would leave the guard compiled but
 * deaf. The first test pins each hook's signature in Tomcat's classes; the second shows, over real HTTP, that each is
 * still called in the running connector.
 */
class TomcatHooksTest {

    /** Every Tomcat class the guard extends, with the classes that extend it. */
    private static List<Class<?>> guardedClasses() {
        Class<?> endpoint = Arrays.stream(GuardedNio2Protocol.class.getDeclaredClasses())
                .filter(Nio2Endpoint.class::isAssignableFrom).findFirst().orElseThrow();
        return List.of(GuardedNio2Protocol.class, endpoint, GuardedHttp11Processor.class, KeepAliveValve.class);
    }

    @Test
    void everyOverriddenMethodStillOverridesTomcatsOwn() throws Exception {
        List<String> checked = new ArrayList<>();
        for (Class<?> ours : guardedClasses()) {
            for (Method m : ours.getDeclaredMethods()) {
                if (m.isSynthetic() || m.isBridge() || Modifier.isStatic(m.getModifiers())
                        || Modifier.isPrivate(m.getModifiers()) || declaredByOurInterface(ours, m)) {
                    continue;
                }
                Method theirs = inTomcatSuperclasses(ours.getSuperclass(), m);
                String name = ours.getSimpleName() + "." + m.getName();
                assertThat(theirs).as("%s overrides a method of Tomcat's %s", name, ours.getSuperclass().getName())
                        .isNotNull();
                assertThat(theirs.getDeclaringClass().getName()).startsWith("org.apache.");
                assertThat(Modifier.isFinal(theirs.getModifiers())).as("%s is final in Tomcat", name).isFalse();
                assertThat(Modifier.isPrivate(theirs.getModifiers())).as("%s is private in Tomcat", name).isFalse();
                assertThat(theirs.getReturnType()).as("%s returns what Tomcat's does", name)
                        .isAssignableFrom(m.getReturnType());
                assertThat(Arrays.asList(m.getExceptionTypes())).as("%s throws no more than Tomcat's", name)
                        .allMatch(t -> RuntimeException.class.isAssignableFrom(t) || Arrays.stream(
                                theirs.getExceptionTypes()).anyMatch(s -> s.isAssignableFrom(t)));
                checked.add(name);
            }
        }
        assertThat(checked).as("the hooks the guard relies on").contains("GuardedNio2Protocol.createProcessor",
                "Endpoint.setSocketOptions", "Endpoint.destroySocket", "GuardedHttp11Processor.service",
                "KeepAliveValve.invoke");

        // the constructors the subclasses call
        assertThat(Modifier.isPrivate(Http11Nio2Protocol.class.getConstructor(Nio2Endpoint.class).getModifiers()))
                .isFalse();
        assertThat(Http11Processor.class.getConstructor(AbstractHttp11Protocol.class, Adapter.class)).isNotNull();
        assertThat(Nio2Endpoint.class.getConstructor()).isNotNull();
        assertThat(ValveBase.class.getConstructor(boolean.class)).isNotNull();

        // the map of open connections the endpoint replaces with its own, which every close passes through
        Field connections = AbstractEndpoint.class.getDeclaredField("connections");
        int mods = connections.getModifiers();
        assertThat(Modifier.isFinal(mods) || Modifier.isPrivate(mods)).as("AbstractEndpoint.connections assignable")
                .isFalse();
        assertThat(connections.getType()).isAssignableFrom(ConcurrentHashMap.class);
    }

    /** Over real HTTP: the guard sits in the running connector, and each of its hooks is called. */
    @Test
    void theRunningConnectorGoesThroughEveryHook() throws Exception {
        String client = "127.0.0.7";
        try (RunningService svc = RunningService.startSqliteDemo("--outpost.http.max-connections-per-address=1",
                "--outpost.http.request-head-timeout=1s")) {
            ProtocolHandler handler = ((TomcatWebServer) ((WebServerApplicationContext) svc.context()).getWebServer())
                    .getTomcat().getConnector().getProtocolHandler();
            assertThat(handler).isInstanceOf(GuardedNio2Protocol.class);
            Object endpoint = field(GuardedNio2Protocol.class, "endpoint").get(handler);
            assertThat(((ConnectionGuard.ConnectionGuardHolder) endpoint).guard()).as("installed")
                    .isSameAs(svc.bean(ConnectionGuard.class));
            assertThat(field(AbstractEndpoint.class, "connections").get(endpoint)).as("still the guard's map after start")
                    .isInstanceOf(ConnectionGuard.Connections.class);

            // setSocketOptions: a second connection from one address is closed unanswered
            RawHttp held = RawHttp.sendFrom(client, svc.port(), "/actuator/health", "HTTP/1.1", Map.of());
            assertThat(held.status).isEqualTo(200);
            held.body();
            assertThatThrownBy(() -> RawHttp.sendFrom(client, svc.port(), "/actuator/health", "HTTP/1.1", Map.of()))
                    .as("refused at accept").isInstanceOf(IOException.class);

            // the connections map (and destroySocket): once the first is closed, its place is free again
            held.close();
            assertThat(admittedWithin(client, svc.port(), 10_000)).as("admitted again after the close").isTrue();

            // the processor: a connection that sent one blank line and nothing more is closed at the head deadline
            // (Tomcat keeps no processor, nor its start time, after a blank line; connection-timeout is 20 s)
            try (Socket blank = new Socket()) {
                blank.bind(new InetSocketAddress("127.0.0.8", 0));
                blank.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), svc.port()));
                blank.setSoTimeout(10_000);
                blank.getOutputStream().write("\r\n".getBytes(StandardCharsets.US_ASCII));
                InputStream in = blank.getInputStream();
                assertThat(closedUnanswered(in)).as("closed by the guard within 10 s, unanswered").isTrue();
            }
        }
    }

    /** Tries a request from {@code client} until one is answered (Tomcat frees the place as it sees the close). */
    private static boolean admittedWithin(String client, int port, long millis) throws IOException {
        long deadline = System.nanoTime() + millis * 1_000_000;
        while (System.nanoTime() < deadline) {
            try (RawHttp again = RawHttp.sendFrom(client, port, "/actuator/health", "HTTP/1.1",
                    Map.of("Connection", "close"))) {
                return again.status == 200;
            } catch (IOException stillCounted) {
                // refused: the first connection's close has not reached the map yet; each try is a round trip
            }
        }
        return false;
    }

    private static boolean closedUnanswered(InputStream in) throws IOException {
        try {
            return in.read() == -1;
        } catch (SocketTimeoutException stillOpen) {
            return false;
        } catch (IOException reset) {
            return true;
        }
    }

    private static boolean declaredByOurInterface(Class<?> ours, Method m) {
        for (Class<?> i : ours.getInterfaces()) {
            if (i.getName().startsWith("io.outpost.")) {
                try {
                    i.getMethod(m.getName(), m.getParameterTypes());
                    return true;
                } catch (NoSuchMethodException notThere) {
                    // a Tomcat method, then
                }
            }
        }
        return false;
    }

    /**
     * The method {@code m} overrides or implements, looked for in {@code type}, its superclasses and their interfaces
     * ({@code Valve.invoke}); null when none has it.
     */
    private static Method inTomcatSuperclasses(Class<?> type, Method m) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            try {
                return c.getDeclaredMethod(m.getName(), m.getParameterTypes());
            } catch (NoSuchMethodException notHere) {
                // further up
            }
        }
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            for (Class<?> i : c.getInterfaces()) {
                Method found = inTomcatSuperclasses(i, m);
                if (found != null) {
                    return found;
                }
            }
        }
        return null;
    }

    private static Field field(Class<?> type, String name) throws NoSuchFieldException {
        Field f = type.getDeclaredField(name);
        f.setAccessible(true);
        return f;
    }
}
