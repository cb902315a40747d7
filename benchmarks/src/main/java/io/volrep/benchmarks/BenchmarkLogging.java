package io.volrep.benchmarks;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * slf4j-simple at INFO (src/main/resources/simplelogger.properties), writing to a file rather than the console, so
 * the SPI server's per-call INFO line is formatted and written as in production without flooding JMH's output.
 * The file is {@code -Dorg.slf4j.simpleLogger.logFile} when given, else a temporary file deleted at exit. The jar
 * also holds logback (the {@code log-line-logback-*} diagnostic): slf4j-simple is the binding unless
 * {@code -Dslf4j.provider} names another.
 */
final class BenchmarkLogging {
    private static final String LOG_FILE = "org.slf4j.simpleLogger.logFile";
    /** slf4j 2's choice of binding; the jar holds two (slf4j-simple and logback). */
    static final String PROVIDER = "slf4j.provider";

    static final String SIMPLE = "org.slf4j.simple.SimpleServiceProvider";
    static final String LOGBACK = "ch.qos.logback.classic.spi.LogbackServiceProvider";

    private BenchmarkLogging() {}

    /** Call before the first logger is created (slf4j-simple reads its configuration once). */
    static synchronized void init() {
        if (System.getProperty(PROVIDER) == null) {
            System.setProperty(PROVIDER, SIMPLE);
        }
        if (System.getProperty(LOG_FILE) != null) {
            return;
        }
        try {
            File file = File.createTempFile("volrep-bench-", ".log");
            file.deleteOnExit();
            System.setProperty(LOG_FILE, file.getAbsolutePath());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
