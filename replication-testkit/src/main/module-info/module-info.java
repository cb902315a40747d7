/**
 * The volrep conformance suite (JUnit 5), the reference plugin and the fault-injecting fake.
 *
 * <pre>{@code
 * module my.plugin.test {
 *     requires io.volrep.testkit;
 *     opens my.plugin.test to org.junit.platform.commons;
 * }
 * }</pre>
 */
module io.volrep.testkit {
    requires transitive io.volrep.api;
    requires transitive io.volrep.spi;
    requires transitive org.junit.jupiter.api;
    requires io.grpc.inprocess;
    requires io.grpc.netty.shaded;
    requires org.junit.platform.engine;
    requires org.junit.platform.launcher;
    requires org.junit.platform.reporting;
    requires org.opentest4j;
    requires org.slf4j;

    exports io.volrep.testkit;
    exports io.volrep.testkit.fake;
    exports io.volrep.testkit.reference;
    // JUnit calls the suite's test factories reflectively.
    opens io.volrep.testkit to
            org.junit.platform.commons;

    uses io.volrep.testkit.CheckGroup;

    provides io.volrep.spi.ReplicationDriverProvider with
            io.volrep.testkit.reference.ReferenceDriverProvider;
}
