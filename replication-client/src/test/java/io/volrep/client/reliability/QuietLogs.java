package io.volrep.client.reliability;

import java.lang.reflect.Field;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.LoggerFactory;

/**
 * Raises chosen slf4j-simple loggers to WARN for the duration of a high-volume test, then restores them. The
 * module's tests log {@code io.volrep} at DEBUG; at 20,000 calls the per-call request, response and outcome lines
 * (four per call) would dominate the test's time and bloat its report. slf4j-simple fixes a logger's level when
 * the logger is created, and other tests in the same JVM may have created these already, so the level is set on
 * the logger instances themselves (test code only).
 */
final class QuietLogs implements AutoCloseable {
    private static final int WARN = 30; // org.slf4j.spi.LocationAwareLogger.WARN_INT

    private final Map<Object, Integer> previous = new LinkedHashMap<>();

    QuietLogs(String... loggerNames) {
        for (String name : loggerNames) {
            Object logger = LoggerFactory.getLogger(name);
            Field level = levelField(logger.getClass());
            if (level == null) {
                continue; // another binding: nothing to quieten
            }
            try {
                previous.put(logger, level.getInt(logger));
                level.setInt(logger, WARN);
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    @Override
    public void close() {
        previous.forEach((logger, value) -> {
            try {
                levelField(logger.getClass()).setInt(logger, value);
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private static Field levelField(Class<?> type) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            try {
                Field f = c.getDeclaredField("currentLogLevel");
                f.setAccessible(true);
                return f;
            } catch (NoSuchFieldException | RuntimeException e) {
                // keep looking up the hierarchy
            }
        }
        return null;
    }
}
