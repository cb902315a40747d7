package io.volrep.testkit;

import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestInstancePostProcessor;

/**
 * The suite as {@link ConformanceRunner} launches it: its configuration arrives through the JUnit
 * configuration parameter {@value #CONFIG_PARAMETER}, a key into an in-memory registry (so drivers and
 * secrets never become strings). Not meant to be run directly; extend {@link ReplicationConformanceSuite}.
 */
@ExtendWith(ConfiguredConformanceSuite.Configure.class)
public class ConfiguredConformanceSuite extends ReplicationConformanceSuite {
    /** The configuration parameter naming the registered configuration. */
    public static final String CONFIG_PARAMETER = "volrep.conformance.config";

    private static final Map<String, ConformanceConfig> REGISTRY = new ConcurrentHashMap<>();

    private ConformanceConfig config;

    static String register(ConformanceConfig config) {
        String key = UUID.randomUUID().toString();
        REGISTRY.put(key, config);
        return key;
    }

    static void unregister(String key) {
        REGISTRY.remove(key);
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
            context.getConfigurationParameter(CONFIG_PARAMETER).map(REGISTRY::get)
                    .ifPresent(c -> ((ConfiguredConformanceSuite) testInstance).config = c);
        }
    }
}
