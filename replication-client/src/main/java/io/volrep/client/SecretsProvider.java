package io.volrep.client;

import io.volrep.api.ReplicationSource;
import io.volrep.api.Secrets;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Where the client gets the secrets it puts into each request, per source. After an UNAUTHENTICATED answer
 * the client calls {@link #renew} once per request; when that yields different secrets it retries with them
 * (the spec's "fix or renew the secrets, then MAY retry"). A call that concerns no existing source, CreateVolumeGroup
 * (its group has no id yet) and ListVolumeGroups, sends {@link #pluginSecrets()} instead.
 *
 * <pre>{@code
 * SecretsProvider fixed = SecretsProvider.of(Map.of("user", "admin", "password", pw));
 * SecretsProvider vault = new SecretsProvider() {
 *     public Secrets secrets(ReplicationSource source) { return cache.get(source); }
 *     public CompletionStage<Secrets> renew(ReplicationSource source) { return vaultClient.reissue(source); }
 * };
 * }</pre>
 * Implementations must not block in {@link #secrets}; {@link #renew} may take its time asynchronously.
 */
public interface SecretsProvider {

    /** The secrets to send with a request for {@code source}; never null. */
    Secrets secrets(ReplicationSource source);

    /**
     * Fresh secrets for {@code source} after the plugin rejected the current ones. The default gives the same
     * secrets again, which means "nothing to renew": the UNAUTHENTICATED error is surfaced.
     */
    default CompletionStage<Secrets> renew(ReplicationSource source) {
        return CompletableFuture.completedFuture(secrets(source));
    }

    /**
     * The secrets of a call that concerns no existing source: CreateVolumeGroup and ListVolumeGroups. None by default:
     * a provider that keys secrets by source says here what those calls send. {@link #of} sends its secrets here too.
     *
     * <pre>{@code
     * public Secrets pluginSecrets() { return cache.get("volume-group-class"); }
     * }</pre>
     */
    default Secrets pluginSecrets() {
        return Secrets.empty();
    }

    /**
     * Fresh {@link #pluginSecrets()} after the plugin rejected them; by default the same again ("nothing to renew").
     */
    default CompletionStage<Secrets> renewPluginSecrets() {
        return CompletableFuture.completedFuture(pluginSecrets());
    }

    /** No secrets. */
    static SecretsProvider none() {
        return source -> Secrets.empty();
    }

    /** The same secrets for every source and every call that concerns none; nothing to renew. */
    static SecretsProvider of(Map<String, String> secrets) {
        return of(Secrets.of(secrets));
    }

    /** The same secrets for every source and every call that concerns none; nothing to renew. */
    static SecretsProvider of(Secrets secrets) {
        Objects.requireNonNull(secrets, "secrets");
        return new SecretsProvider() {
            @Override
            public Secrets secrets(ReplicationSource source) {
                return secrets;
            }

            @Override
            public Secrets pluginSecrets() {
                return secrets;
            }

            @Override
            public String toString() {
                return "SecretsProvider.of(" + secrets + ")";
            }
        };
    }
}
