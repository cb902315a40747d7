package io.volrep.testkit;

import com.google.protobuf.Message;
import io.volrep.api.Rpc;
import io.volrep.api.StatusCode;

/**
 * What the plugin answered to one call: the status code, its description, and the response on success.
 *
 * <pre>{@code
 * Outcome o = ctx.call(Rpc.PROMOTE_VOLUME, Addressing.volume("pvc-1"));
 * if (o.code() == StatusCode.OK) { ... }
 * }</pre>
 *
 * @param rpc the method called
 * @param code the status code
 * @param message the status description (empty on success)
 * @param response the response message, null unless {@code code} is OK
 */
public record Outcome(Rpc rpc, StatusCode code, String message, Message response) {

    /** True for 0 OK. */
    public boolean ok() {
        return code == StatusCode.OK;
    }

    /** {@code "9 FAILED_PRECONDITION (volume not replicated)"}, or {@code "0 OK"}. */
    public String describe() {
        return message == null || message.isEmpty() ? code.display() : code.display() + " (" + message + ")";
    }

    @Override
    public String toString() {
        return rpc.methodName() + " -> " + describe();
    }
}
