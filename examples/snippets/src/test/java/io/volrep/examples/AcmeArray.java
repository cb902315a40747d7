package io.volrep.examples;

import java.util.Optional;

/** The storage array API the docs' AcmeDriver talks to (a stand-in: the docs' own code is what is compiled). */
interface AcmeArray {
    boolean login(String user, String password);

    Optional<Mirror> find(String id);

    boolean isConnected();
}
