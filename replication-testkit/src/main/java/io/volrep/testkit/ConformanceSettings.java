package io.volrep.testkit;

import io.grpc.BindableService;
import io.grpc.ServerInterceptor;
import io.volrep.api.Secrets;
import io.volrep.api.SpecDialect;
import io.volrep.spi.HealerDriver;
import io.volrep.spi.ReplicationDriver;
import io.volrep.spi.VolumeGroupDriver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The settings of a conformance run, as {@link ConformanceConfig.Builder} collects them: the values, the rules their
 * combinations must follow ({@link #validate}), and their description. A {@link ConformanceConfig} holds a private
 * copy ({@link #copy}) that nothing changes afterwards.
 */
final class ConformanceSettings {
    String endpoint;
    ReplicationDriver driver;
    BindableService service;
    final List<ServerInterceptor> interceptors = new ArrayList<>();
    final List<String> volumes = new ArrayList<>();
    final List<String> volumeGroups = new ArrayList<>();
    final Map<String, String> secrets = new LinkedHashMap<>();
    final Map<String, String> enableParameters = new LinkedHashMap<>();
    String healerEndpoint;
    HealerDriver healerDriver;
    VolumeGroupDriver volumeGroupDriver;
    SpecDialect dialect = SpecDialect.CURRENT;
    final Map<String, String> healerVolumes = new LinkedHashMap<>();
    final Map<String, String> healerBlockVolumes = new LinkedHashMap<>();
    String healerStagingPath;
    final Map<String, String> healerVolumeContext = new LinkedHashMap<>();
    Duration resyncTimeout = ConformanceConfig.DEFAULT_RESYNC_TIMEOUT;
    Duration callTimeout = ConformanceConfig.DEFAULT_CALL_TIMEOUT;
    final List<String> skipChecks = new ArrayList<>();
    String peerEndpoint;
    ReplicationDriver peerDriver;
    Duration settleTimeout = ConformanceConfig.DEFAULT_SETTLE_TIMEOUT;
    /** 0: one per fixture volume and group. */
    int parallelism;

    long seed;
    boolean requireAll;

    /** Throws {@link IllegalArgumentException} when the settings do not make a run. */
    void validate() {
        int targets = (endpoint != null ? 1 : 0) + (driver != null ? 1 : 0) + (service != null ? 1 : 0);
        if (targets != 1) {
            throw new IllegalArgumentException(
                    "configure exactly one target: endpoint, driver or service (got " + targets + ")");
        }
        if (volumes.isEmpty()) {
            throw new IllegalArgumentException(
                    "configure at least one fixture volume (an existing volume with" + " replication disabled)");
        }
        if (!interceptors.isEmpty() && endpoint != null) {
            throw new IllegalArgumentException("server interceptors apply to in-process targets only");
        }
        if (volumeGroupDriver != null && driver == null) {
            throw new IllegalArgumentException(
                    "volumeGroupDriver is served beside an in-process driver: configure" + " driver(...) too");
        }
        if (healerDriver != null && driver == null) {
            throw new IllegalArgumentException("healerDriver is served beside an in-process driver: configure"
                    + " driver(...) too, or point healerEndpoint at a running node plugin");
        }
        if (!dialect.speaksCurrentMessages() && service != null) {
            throw new IllegalArgumentException(
                    "a raw service target speaks the current messages only (dialect current" + " or upstream-2026)");
        }
        if ((healerStagingPath != null || !healerVolumeContext.isEmpty()) && healerVolumes.isEmpty()) {
            throw new IllegalArgumentException(
                    "healerStagingPath and healerVolumeContext describe the first" + " healerVolume: configure one");
        }
        if (peerDriver != null && driver == null) {
            throw new IllegalArgumentException("peerDriver is served in-process beside an in-process driver: configure"
                    + " driver(...) too, or point peerEndpoint at the peer site's plugin");
        }
        if (peerDriver != null && peerEndpoint != null) {
            throw new IllegalArgumentException("configure one peer site: peerEndpoint or peerDriver, not both");
        }
    }

    /** The same settings, their lists and maps copied. */
    ConformanceSettings copy() {
        ConformanceSettings c = new ConformanceSettings();
        c.copyFrom(this);
        return c;
    }

    /** Takes every value of {@code o} (adding to this one's lists and maps: call it on fresh settings). */
    void copyFrom(ConformanceSettings o) {
        endpoint = o.endpoint;
        driver = o.driver;
        service = o.service;
        interceptors.addAll(o.interceptors);
        volumes.addAll(o.volumes);
        volumeGroups.addAll(o.volumeGroups);
        secrets.putAll(o.secrets);
        enableParameters.putAll(o.enableParameters);
        healerEndpoint = o.healerEndpoint;
        healerDriver = o.healerDriver;
        volumeGroupDriver = o.volumeGroupDriver;
        dialect = o.dialect;
        healerVolumes.putAll(o.healerVolumes);
        healerBlockVolumes.putAll(o.healerBlockVolumes);
        healerStagingPath = o.healerStagingPath;
        healerVolumeContext.putAll(o.healerVolumeContext);
        resyncTimeout = o.resyncTimeout;
        callTimeout = o.callTimeout;
        skipChecks.addAll(o.skipChecks);
        peerEndpoint = o.peerEndpoint;
        peerDriver = o.peerDriver;
        settleTimeout = o.settleTimeout;
        parallelism = o.parallelism;
        seed = o.seed;
        requireAll = o.requireAll;
    }

    /** The settings for toString: never a secret's value ({@code secrets} describes itself masked). */
    String describe(String target, Secrets secretsMasked, int checksAtOnce) {
        return "target=" + target + ", volumes=" + volumes + ", volumeGroups=" + volumeGroups + ", secrets="
                + secretsMasked + ", dialect=" + dialect + ", healerEndpoint=" + healerEndpoint + ", healerVolumes="
                + healerVolumes + (healerBlockVolumes.isEmpty() ? "" : ", healerBlockVolumes=" + healerBlockVolumes)
                + (healerStagingPath == null ? "" : ", healerStagingPath=" + healerStagingPath)
                + (healerVolumeContext.isEmpty() ? "" : ", healerVolumeContext=" + healerVolumeContext)
                + ", resyncTimeout=" + resyncTimeout + ", callTimeout=" + callTimeout
                + (skipChecks.isEmpty() ? "" : ", skipChecks=" + skipChecks)
                + (peerEndpoint != null ? ", peerEndpoint=" + peerEndpoint : "")
                + (peerDriver != null ? ", peerDriver=" + peerDriver.getClass().getName() : "")
                + ", settleTimeout=" + settleTimeout + ", parallelism=" + checksAtOnce + ", seed=" + seed
                + (requireAll ? ", requireAll" : "");
    }
}
