package io.volrep.testkit;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.xml.stream.XMLOutputFactory;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamWriter;

/**
 * Writes a {@link ComplianceReport} as JUnit XML (the Ant/Surefire format): one {@code TEST-<group>.xml} per check
 * group, the {@code testsuite} and each test case's {@code classname} named after the group, each {@code testcase}
 * after its check ({@code PromoteVolume: ... -> 9 FAILED_PRECONDITION [...]}). A failure carries the reason, the
 * check's id and its hint; skipped and not-implemented checks, and warnings, are {@code skipped} with their reason
 * (which starts with {@code SKIPPED:}, {@code NOT IMPLEMENTED:} or {@code WARNING:}).
 *
 * <pre>{@code
 * JUnitXmlReport.write(ConformanceRunner.of(config).run(), Path.of("target/conformance"));
 * }</pre>
 */
final class JUnitXmlReport {
    private JUnitXmlReport() {}

    /** Writes one file per group into {@code dir} (created when missing). */
    public static void write(ComplianceReport report, Path dir) {
        Map<String, List<CheckResult>> byGroup = new LinkedHashMap<>();
        for (CheckResult r : report.results()) {
            // As the suite's containers: optional checks in a group of their own, so a CLI report and a vendor's
            // Surefire report of the same run list the same classes.
            String group = r.group().isEmpty()
                    ? "volrep conformance"
                    : ReplicationConformanceSuite.containerName(r.group(), r.requirement());
            byGroup.computeIfAbsent(group, g -> new ArrayList<>()).add(r);
        }
        try {
            Files.createDirectories(dir);
            for (Map.Entry<String, List<CheckResult>> e : byGroup.entrySet()) {
                try (OutputStream out = Files.newOutputStream(dir.resolve("TEST-" + fileName(e.getKey()) + ".xml"))) {
                    writeSuite(report, e.getKey(), e.getValue(), out);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("writing JUnit XML into " + dir, e);
        } catch (XMLStreamException e) {
            throw new IllegalStateException("writing JUnit XML into " + dir, e);
        }
    }

    static String fileName(String group) {
        return group.replaceAll("[^A-Za-z0-9._-]+", "_");
    }

    private static void writeSuite(ComplianceReport report, String group, List<CheckResult> results, OutputStream out)
            throws XMLStreamException {
        XMLStreamWriter xml = XMLOutputFactory.newFactory().createXMLStreamWriter(out, "UTF-8");
        xml.writeStartDocument("UTF-8", "1.0");
        xml.writeCharacters("\n");
        xml.writeStartElement("testsuite");
        xml.writeAttribute("name", clean(group));
        xml.writeAttribute("tests", String.valueOf(results.size()));
        xml.writeAttribute(
                "failures",
                String.valueOf(results.stream()
                        .filter(r -> r.outcome() == CheckOutcome.FAILED)
                        .count()));
        xml.writeAttribute("errors", "0");
        xml.writeAttribute(
                "skipped",
                String.valueOf(results.stream()
                        .filter(r -> r.outcome() == CheckOutcome.SKIPPED
                                || r.outcome() == CheckOutcome.NOT_IMPLEMENTED
                                || r.outcome() == CheckOutcome.WARNING
                                || r.outcome() == CheckOutcome.NOT_RUN
                                || r.outcome() == CheckOutcome.NOT_APPLICABLE)
                        .count()));
        xml.writeAttribute(
                "time",
                seconds(results.stream().mapToLong(r -> r.duration().toNanos()).sum()));
        xml.writeCharacters("\n  ");
        xml.writeStartElement("properties");
        xml.writeEmptyElement("property");
        xml.writeAttribute("name", "volrep.target");
        xml.writeAttribute("value", clean(report.target()));
        xml.writeEndElement();
        for (CheckResult r : results) {
            xml.writeCharacters("\n  ");
            xml.writeStartElement("testcase");
            xml.writeAttribute("name", clean(r.name()));
            xml.writeAttribute("classname", clean(group));
            xml.writeAttribute("time", seconds(r.duration().toNanos()));
            switch (r.outcome()) {
                case FAILED -> {
                    xml.writeStartElement("failure");
                    xml.writeAttribute("message", clean(r.reason()));
                    xml.writeAttribute("type", r.requirement().tag());
                    xml.writeCharacters(
                            clean(r.reason() + "\ncheck " + r.id() + (r.hint().isEmpty() ? "" : ": " + r.hint())));
                    xml.writeEndElement();
                }
                // JUnit has no warning: a warning is a skipped test case whose message starts with "WARNING: ", as
                // the JUnit Platform reports it to Surefire (an aborted test), so both reports agree.
                case SKIPPED, NOT_IMPLEMENTED, WARNING, NOT_RUN, NOT_APPLICABLE -> {
                    xml.writeEmptyElement("skipped");
                    xml.writeAttribute("message", clean(r.reason()));
                }
                default -> {}
            }
            xml.writeEndElement();
        }
        xml.writeCharacters("\n");
        xml.writeEndElement();
        xml.writeCharacters("\n");
        xml.writeEndDocument();
        xml.close();
    }

    private static String seconds(long nanos) {
        return String.format(Locale.ROOT, "%.3f", nanos / 1e9);
    }

    /** Drops what XML 1.0 cannot carry (control characters from a plugin's messages). */
    static String clean(String s) {
        StringBuilder sb = new StringBuilder(s.length());
        s.codePoints().forEach(c -> {
            boolean allowed = c == 0x9
                    || c == 0xA
                    || c == 0xD
                    || (c >= 0x20 && c <= 0xD7FF)
                    || (c >= 0xE000 && c <= 0xFFFD)
                    || (c >= 0x10000 && c <= 0x10FFFF);
            sb.appendCodePoint(allowed ? c : '?');
        });
        return sb.toString();
    }
}
