package io.volrep.client;

import io.volrep.api.Rpc;

/**
 * A volume group call that addresses one existing group by its id and sends nothing else (DeleteVolumeGroup,
 * ControllerGetVolumeGroup).
 *
 * <pre>{@code
 * VolumeGroup group = client.volumeGroups().get("vg-1").call();
 * }</pre>
 *
 * @param <S> the concrete call type, for fluent chaining
 * @param <R> what the call returns
 */
public abstract class ExistingGroupCall<S extends ExistingGroupCall<S, R>, R> extends TypedCall<S, R> {
    private final String volumeGroupId;

    ExistingGroupCall(CallEngine engine, Rpc rpc, String volumeGroupId) {
        super(engine, rpc);
        this.volumeGroupId = volumeGroupId;
    }

    /** The group it addresses. */
    public String volumeGroupId() {
        return volumeGroupId;
    }

    @Override
    VolumeGroupSpec spec() {
        return VolumeGroupSpec.of(rpc, volumeGroupId, secretsOverride, policy);
    }
}
