package io.volrep.testkit;

import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestInstancePostProcessor;

/**
 * The suite as {@link ConformanceRunner} launches it: its configuration arrives through the JUnit
 * configuration parameter {@value #CONFIG_PARAMETER}, a key into an in-memory registry (so drivers and
 * secrets never become strings). Not meant to be run directly; extend {@link ReplicationConformanceSuite}.
 */
@ExtendWith(ConfiguredConformanceSuite.Configure.class)
class ConfiguredConformanceSuite extends ReplicationConformanceSuite {
    /** The configuration parameter naming the registered configuration. */
    public static final String CONFIG_PARAMETER = "volrep.conformance.config";

    private static final Map<String, ConformanceConfig> REGISTRY = new ConcurrentHashMap<>();
    private static final Map<String, AtomicLong> CALLS = new ConcurrentHashMap<>();
    private static final Map<String, Boolean> OPTIONAL_TOO = new ConcurrentHashMap<>();
    private static final Map<String, String> EXPLORED = new ConcurrentHashMap<>();
    private static final Map<String, CheckTimes> TIMES = new ConcurrentHashMap<>();

    private ConformanceConfig config;
    private String key;

    static String register(ConformanceConfig config) {
        return register(config, false);
    }

    /** Registers {@code config}; {@code optionalToo} when the launch runs optional checks beside the required ones. */
    static String register(ConformanceConfig config, boolean optionalToo) {
        String key = UUID.randomUUID().toString();
        REGISTRY.put(key, config);
        CALLS.put(key, new AtomicLong());
        OPTIONAL_TOO.put(key, optionalToo);
        TIMES.put(key, new CheckTimes());
        return key;
    }

    /** How long each check (by name) of the run registered under {@code key} ran, and polled transient answers. */
    static CheckTimes times(String key) {
        return TIMES.getOrDefault(key, new CheckTimes());
    }

    @Override
    boolean optionalChecksRunToo() {
        return key != null && OPTIONAL_TOO.getOrDefault(key, false);
    }

    @Override
    void timesRecorded(CheckTimes times) {
        if (key != null && TIMES.containsKey(key)) {
            TIMES.put(key, times);
        }
    }

    /** How many calls the run registered under {@code key} sent. */
    static long calls(String key) {
        AtomicLong calls = CALLS.get(key);
        return calls == null ? 0 : calls.get();
    }

    @Override
    void sessionClosing(long calls, String explored) {
        if (key != null && CALLS.containsKey(key)) {
            CALLS.get(key).set(calls);
            EXPLORED.put(key, explored);
        }
    }

    /** What the lifecycle exploration of the run registered under {@code key} covered (empty when it did not run). */
    static String explored(String key) {
        return EXPLORED.getOrDefault(key, "");
    }

    static void unregister(String key) {
        REGISTRY.remove(key);
        CALLS.remove(key);
        OPTIONAL_TOO.remove(key);
        EXPLORED.remove(key);
        TIMES.remove(key);
    }

    @Override
    protected ConformanceConfig config() {
        if (config == null) {
            throw new IllegalStateException("no conformance configuration: run this suite through ConformanceRunner,"
                    + " or extend ReplicationConformanceSuite");
        }
        return config;
    }

    /** Hands the registered configuration to the suite instance before {@code @BeforeAll}. */
    static final class Configure implements TestInstancePostProcessor {
        @Override
        public void postProcessTestInstance(Object testInstance, ExtensionContext context) {
            ConfiguredConformanceSuite suite = (ConfiguredConformanceSuite) testInstance;
            context.getConfigurationParameter(CONFIG_PARAMETER)
                    .filter(REGISTRY::containsKey)
                    .ifPresent(k -> {
                        suite.key = k;
                        suite.config = REGISTRY.get(k);
                    });
        }
    }
}
