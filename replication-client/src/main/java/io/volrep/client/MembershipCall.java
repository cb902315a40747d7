package io.volrep.client;

import io.volrep.api.Rpc;
import io.volrep.api.VolumeGroup;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A volume group call that says which volumes a group holds (CreateVolumeGroup, ModifyVolumeGroupMembership) and
 * carries plugin-specific parameters; its answer is the group.
 *
 * <pre>{@code
 * client.volumeGroups().create("db").volumes("pvc-1", "pvc-2").parameter("pool", "rbd").call();
 * }</pre>
 *
 * @param <S> the concrete call type, for fluent chaining
 */
public abstract class MembershipCall<S extends MembershipCall<S>> extends TypedCall<S, VolumeGroup> {
    /** The name a CreateVolumeGroup asks for, or the group a ModifyVolumeGroupMembership changes. */
    final String target;

    final List<String> volumeIds = new ArrayList<>();
    final Map<String, String> parameters = new LinkedHashMap<>();
    boolean membershipSet;

    MembershipCall(CallEngine engine, Rpc rpc, String target) {
        super(engine, rpc);
        this.target = target;
    }

    /** These volumes, in place of any given before: each id at most 128 bytes, none twice (checked before sending). */
    public S volumes(String... ids) {
        return volumes(Arrays.asList(Objects.requireNonNull(ids, "ids")));
    }

    /** These volumes, in place of any given before. */
    public S volumes(List<String> ids) {
        Objects.requireNonNull(ids, "ids");
        volumeIds.clear();
        volumeIds.addAll(ids);
        membershipSet = true;
        return self();
    }

    /** Adds one parameter; together at most 4 KiB (checked before sending). */
    public S parameter(String key, String value) {
        return withParameter(parameters, key, value);
    }

    /** Adds every entry of {@code parameters}. */
    public S parameters(Map<String, String> parameters) {
        return withParameters(this.parameters, parameters);
    }

    @Override
    VolumeGroupSpec spec() {
        return VolumeGroupSpec.membership(
                rpc, target, List.copyOf(volumeIds), Map.copyOf(parameters), secretsOverride, policy);
    }
}
