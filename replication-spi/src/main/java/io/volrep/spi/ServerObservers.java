package io.volrep.spi;

import io.volrep.api.Rpc;
import java.util.List;

/** Fans each call of the runtime out to every observer given to {@link ReplicationServer.Builder#observer}. */
final class ServerObservers implements ServerObserver {
    private final List<ServerObserver> all;

    private ServerObservers(List<ServerObserver> all) {
        this.all = all;
    }

    /** The observers as one, or null without any (the runtime then observes nothing). */
    static ServerObserver of(List<ServerObserver> observers) {
        List<ServerObserver> all = List.copyOf(observers);
        if (all.isEmpty()) {
            return null;
        }
        return all.size() == 1 ? all.get(0) : new ServerObservers(all);
    }

    @Override
    public void onCallStarted(Rpc rpc) {
        all.forEach(o -> o.onCallStarted(rpc));
    }

    @Override
    public void onCallFinished(ServerCallEvent event) {
        all.forEach(o -> o.onCallFinished(event));
    }
}
