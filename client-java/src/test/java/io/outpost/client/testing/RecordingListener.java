package io.outpost.client.testing;

import io.outpost.client.ClientEvent;
import io.outpost.client.EventListener;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Records every event, and renders the failover ones as short strings for order assertions. */
public final class RecordingListener implements EventListener {
    private final List<ClientEvent> events = new CopyOnWriteArrayList<>();

    @Override
    public void onEvent(ClientEvent event) {
        events.add(event);
    }

    public List<ClientEvent> events() {
        return new ArrayList<>(events);
    }

    /** e.g. {@code "fail <route> UNAVAILABLE 503 NEXT_SERVER"}, {@code "ok <route>"}, {@code "backoff 1"}. */
    public List<String> trace() {
        List<String> out = new ArrayList<>();
        for (ClientEvent e : events) {
            switch (e) {
                case ClientEvent.AttemptFailed f -> out.add("fail " + f.route() + " " + f.refresh() + " " + f.kind()
                        + " " + f.status() + " " + f.decision());
                case ClientEvent.AttemptSucceeded s -> out.add("ok " + s.route() + " " + s.refresh());
                case ClientEvent.Backoff b -> out.add("backoff " + b.pass());
                case ClientEvent.GaveUp g -> out.add("give-up " + g.attempts());
                case ClientEvent.CacheHit h -> out.add("hit " + h.path());
                case ClientEvent.AttemptStarted s -> {
                }
            }
        }
        return out;
    }

    public void clear() {
        events.clear();
    }
}
