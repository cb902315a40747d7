package io.volrep.examples;

import io.volrep.api.HealReport;
import io.volrep.api.Recovery;
import io.volrep.api.ReplicationDestination;
import io.volrep.api.ReplicationInfo;
import io.volrep.api.ReplicationSource;
import io.volrep.api.SpecDialect;
import io.volrep.api.VolumeCapability;
import io.volrep.api.VolumeCapability.AccessMode;
import io.volrep.api.VolumeGroup;
import io.volrep.api.VolumeGroupCapability;
import io.volrep.client.CapabilityNotAdvertisedException;
import io.volrep.client.PluginCapabilities;
import io.volrep.client.PluginIdentity;
import io.volrep.client.ProbeResult;
import io.volrep.client.ReplicationClient;
import io.volrep.client.ResyncStatus;
import io.volrep.client.RetryPolicy;
import io.volrep.client.SecretsProvider;
import io.volrep.client.reconcile.DesiredState;
import io.volrep.client.reconcile.Failover;
import io.volrep.client.reconcile.FailoverReport;
import io.volrep.client.reconcile.ReconcileOptions;
import io.volrep.client.reconcile.ReconcileResult;
import io.volrep.client.reconcile.Reconciler;
import io.volrep.client.reconcile.SourceFailover;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Java snippets of docs/orchestrator-authors.md and docs/compatibility.md, compiled, and run by
 * {@code SnippetsRunTest} against the reference plugin ({@code volrep serve-reference}): each snippet takes the
 * plugin's address as a parameter ({@code endpoint}; a reader's is {@code unix:///csi/csi-addons.sock}) and uses
 * the ids the reference serves ({@code vol-0}.., {@code grp-0}..).
 */
@SuppressWarnings("unused")
final class OrchestratorExamples {
    private static final Logger log = LoggerFactory.getLogger(OrchestratorExamples.class);

    /** What an orchestrator has at hand in the snippets: an informer of PVCs, an event recorder. */
    interface PvcInformer {
        CompletableFuture<Boolean> existsAsync(String id);
    }

    interface Events {
        void warn(Object pod, String reason, String message);
    }

    /** The status subresource a controller writes. */
    interface VolumeStatus {
        void setLastSyncTime(Instant time);
    }

    VolumeStatus status;

    void updateConditions(Object conditions) {}

    PvcInformer pvcInformer;
    Events events;
    Object pod;

    void quickstart(String endpoint) {
        // snippet:start quickstart
        try (ReplicationClient client = ReplicationClient.builder()
                .target(endpoint) // "unix:///csi/csi-addons.sock" (the default), "dns:///host:port", "host:port"
                .secrets(SecretsProvider.of(Map.of("user", "admin")))
                // Nothing at the target is never silent: told 5 s into the wait, then every 10 s.
                .connectionListener((target, waited, why) -> System.err.println(
                        "still connecting to " + target + " after " + waited.toSeconds() + " s: " + why))
                .build()) {
            client.volume("vol-0")
                    .enable()
                    .parameter("mirroringMode", "snapshot")
                    .call();
            client.volume("vol-0").promote().force().call();
            ReplicationInfo info = client.volume("vol-0").info(); // Instant, Optional<Duration>, OptionalLong
            ReplicationDestination where = client.volume("vol-0").destination(); // its id on the other site
        }
        // snippet:end quickstart
    }

    void retryPolicy(Clock testClock, Random testRandom) {
        // snippet:start retry
        RetryPolicy policy = RetryPolicy.spec().toBuilder()
                .maxAttempts(8)
                .initialBackoff(Duration.ofMillis(200))
                .maxBackoff(Duration.ofSeconds(10))
                .totalTimeout(Duration.ofMinutes(5))
                .onRecovery(Recovery.INSPECT_LOGS, RetryPolicy.Action.BACKOFF) // override one class
                .clock(testClock)
                .random(testRandom) // deterministic tests
                .build();

        ReplicationClient client = ReplicationClient.builder()
                .retry(policy)
                .sourceVerifier(source -> pvcInformer.existsAsync(source.id())) // enables NOT_FOUND retries
                .listener(event -> log.debug("{}", event.describe())) // every attempt: code, chosen delay
                .build();
        // snippet:end retry
        client.close();
    }

    void failover(String endpointA, String endpointB) throws InterruptedException, ExecutionException {
        // snippet:start failover
        try (ReplicationClient siteA = ReplicationClient.builder()
                        .target(endpointA) // e.g. "dns:///replication.site-a:9090"
                        .build();
                ReplicationClient siteB = ReplicationClient.builder()
                        .target(endpointB) // e.g. "dns:///replication.site-b:9090"
                        .build()) {

            CompletableFuture<ResyncStatus> failover = siteA.volumeGroup("grp-0")
                    .demote()
                    .callAsync() // 1. A steps down
                    .thenCompose(v -> siteB.volumeGroup("grp-0").promote().callAsync()) // 2. B takes over
                    .thenCompose(v -> siteA.volumeGroup("grp-0")
                            .resync() // 3. A follows B
                            .awaitReady(Duration.ofMinutes(5))); // 4. until ready

            failover.get(); // or compose further; nothing blocks meanwhile
            ReplicationInfo info = siteB.volumeGroup("grp-0").info();
        }
        // snippet:end failover
    }

    CompletableFuture<Void> reconcile(ReplicationClient client) {
        // snippet:start reconcile
        ReconcileResult r = Reconciler.of(client.volume("vol-0")).reconcile(DesiredState.PRIMARY); // blocking
        if (!r.done()) {
            log.warn("{}", r.summary()); // "volume vol-0: PRIMARY not reached (...): PromoteVolume answered 9 ..."
        }
        r.lastSync().ifPresent(info -> status.setLastSyncTime(info.lastSyncTime()));

        ReconcileOptions opts = ReconcileOptions.builder()
                .allowForcePromote(false) // the default: see "What force means" below
                .resyncTimeout(Duration.ofMinutes(10))
                .parameter("schedulingInterval", "1m") // EnableVolumeReplication's parameters
                .build();
        CompletableFuture<Void> done = new Reconciler(client.volumeGroup("grp-0"), opts)
                .reconcileAsync(DesiredState.RESYNC) // no blocked thread
                .thenAccept(result -> updateConditions(result.conditions()));
        // snippet:end reconcile
        return done;
    }

    void twoSiteFailover(String endpointA, String endpointB) {
        // snippet:start two-site-failover
        try (ReplicationClient a = ReplicationClient.builder()
                        .target(endpointA) // e.g. "unix:///site-a/csi-addons.sock"
                        .build();
                ReplicationClient b = ReplicationClient.builder()
                        .target(endpointB) // e.g. "unix:///site-b/csi-addons.sock"
                        .build()) {
            FailoverReport report = Failover.builder()
                    .from(a)
                    .to(b)
                    .source(ReplicationSource.volume("vol-0"))
                    .source(ReplicationSource.volumeGroup("grp-0"))
                    // Without a resolver site A is asked (GetReplicationDestinationInfo). Where it cannot tell:
                    // .resolver(DestinationResolver.ids(Map.of("vol-0", "b-vol-0", "grp-0", "b-grp-0")))
                    .parallelism(4) // sources in progress at once
                    .callBudget(Duration.ofSeconds(30)) // per call, retries included; silence that long = unreachable
                    .demotionWait(Duration.ofMinutes(2)) // the default: B refuses an unforced promote until
                    // A's demotion has arrived (9 or 10), retried this long
                    .forceIfUnreachable(false) // the default
                    .listener(p -> log.info("{} {} {}", p.source(), p.step(), p.detail())) // detail: why it waits
                    .build()
                    .run(); // or runAsync()
            for (SourceFailover s : report.sources()) {
                log.info(
                        "{} -> {}: {} {} {}",
                        s.source(),
                        s.destination().map(d -> d.source().toString()).orElse("?"),
                        s.step(),
                        s.lastSync().map(i -> "B synced at " + i.lastSyncTime()).orElse(""),
                        s.whyNot().orElse(""));
            }
        }
        // snippet:end two-site-failover
    }

    void heal(String endpoint) {
        // snippet:start heal
        try (ReplicationClient node = ReplicationClient.builder()
                .target(endpoint) // the node plugin's
                .build()) {
            HealReport report = node.node()
                    .heal("vol-3", Path.of("/var/lib/kubelet/pods/p1/volumes/vol-3"))
                    .stagingPath(Path.of("/var/lib/kubelet/plugins/staging/vol-3")) // OPTIONAL, absolute
                    .capability(VolumeCapability.mount("ext4", AccessMode.SINGLE_NODE_WRITER)) // or block(mode)
                    .context("pool", "replicapool") // volume_context
                    .call(); // or callAsync()
            if (report.abnormal()) {
                events.warn(pod, "VolumeAbnormal", report.message());
            }
        }
        // snippet:end heal
    }

    void legacy(String endpoint) {
        // snippet:start legacy
        ReplicationClient legacy = ReplicationClient.builder()
                .target(endpoint)
                .dialect(SpecDialect.V0_1_3) // CURRENT (default), V0_1_3, V0_1_0
                .build();
        legacy.volume("vol-0").enable().call(); // sends volume_id and v0.1.3's replication_source
        ReplicationInfo info = legacy.volume("vol-0").info(); // duration and bytes: not reported in v0.1.3
        // snippet:end legacy
        legacy.close();
    }

    void identity(ReplicationClient client) {
        // snippet:start identity
        PluginIdentity id = client.identity(); // name, vendorVersion, manifest
        PluginCapabilities caps =
                client.capabilities(); // services (CONTROLLER_SERVICE, NODE_SERVICE), volumeReplication, others
        ProbeResult probe = client.probe(); // ready (an unset ready means ready), reported
        client.probeAsync() // or identityAsync(), capabilitiesAsync(): nothing blocks
                .thenAccept(p -> log.info("plugin ready: {}", p.ready()));
        // snippet:end identity
    }

    void compatibility(String endpoint) {
        // snippet:start compatibility
        ReplicationClient client = ReplicationClient.builder()
                .target(endpoint)
                .dialect(SpecDialect.V0_1_3) // the plugin was built against csi-addons/spec v0.1.3
                .build();
        client.volume("vol-1").enable().call(); // the typed API is the same for every dialect
        ReplicationInfo info = client.volume("vol-1").info(); // v0.1.3: duration and bytes read as "not reported"
        // snippet:end compatibility
        client.close();
    }

    void volumeGroups(ReplicationClient client) {
        // snippet:start volume-groups
        VolumeGroup db = client.volumeGroups()
                .create("db") // idempotent by name
                .volumes("vol-1", "vol-2")
                .parameter("replicationClass", "rbd-mirror")
                .call();
        client.volumeGroup(db.id()).enable().call(); // the group is a replication source
        client.volumeGroups().modify(db.id()).volumes("vol-1", "vol-2", "vol-3").call(); // the whole membership
        try (Stream<VolumeGroup> groups = client.volumeGroups().list().maxEntries(100).stream()) {
            groups.forEach(g -> log.info("{}: {}", g.id(), g.volumeIds())); // pages fetched lazily
        }
        client.volumeGroup(db.id()).disable().call();
        client.volumeGroups().delete(db.id()).call(); // a group that is gone: 0 OK too
        // snippet:end volume-groups
    }

    void volumeGroupCapabilities(ReplicationClient client) {
        // snippet:start volume-group-capabilities
        if (client.capabilities().volumeGroupCapabilities().contains(VolumeGroupCapability.GET_VOLUME_GROUP)) {
            VolumeGroup now = client.volumeGroups().get("grp-1").call();
        }
        try {
            client.volumeGroups().modify("grp-1").volumes(List.of()).call(); // removes every member
        } catch (CapabilityNotAdvertisedException e) {
            log.info("no MODIFY_VOLUME_GROUP here, nothing was sent: {}", e.getMessage());
        }
        // snippet:end volume-group-capabilities
    }
}
