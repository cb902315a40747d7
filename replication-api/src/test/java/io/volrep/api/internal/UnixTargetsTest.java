package io.volrep.api.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class UnixTargetsTest {

    @Test
    void readsGrpcsFormAndARelativePath() {
        assertThat(UnixTargets.socketPath("unix:///csi/../csi/csi-addons.sock", IllegalStateException::new))
                .isEqualTo(Path.of("/csi/csi-addons.sock"));
        assertThat(UnixTargets.socketPath("unix:plugin.sock", IllegalStateException::new))
                .isEqualTo(Path.of("plugin.sock").toAbsolutePath());
    }

    @Test
    void theCallerWordsTheReason() {
        assertThatThrownBy(() ->
                        UnixTargets.socketPath("unix://csi/x.sock", why -> new IllegalStateException("bad: " + why)))
                .isExactlyInstanceOf(IllegalStateException.class)
                .hasMessage("bad: unix:// must be followed by an absolute path (unix:///path)");
        assertThatThrownBy(() -> UnixTargets.socketPath("unix:", IllegalStateException::new))
                .hasMessage("the socket path is missing");
        assertThatThrownBy(() -> UnixTargets.socketPath("dns:///x:1", IllegalStateException::new))
                .isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessage("not a unix: address: dns:///x:1");
    }
}
