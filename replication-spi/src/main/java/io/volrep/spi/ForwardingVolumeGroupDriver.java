package io.volrep.spi;

import io.volrep.api.VolumeGroup;
import io.volrep.api.VolumeGroupCapability;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A {@link VolumeGroupDriver} that hands everything to another one, for decorators: override what you change and call
 * {@code super} for the rest. The declarations are forwarded too ({@link #served()}, {@link #behaviours()}), so a
 * wrapper serves and advertises exactly what the driver it wraps does.
 *
 * <pre>{@code
 * VolumeGroupDriver capped = new ForwardingVolumeGroupDriver(groups) {
 *     @Override
 *     public VolumeGroup create(CreateGroupRequest r) {
 *         if (r.volumeIds().size() > 64) {
 *             throw new PreconditionFailedException("at most 64 volumes can be grouped together");
 *         }
 *         return super.create(r);
 *     }
 * };
 * }</pre>
 */
public abstract class ForwardingVolumeGroupDriver implements VolumeGroupDriver {
    private final VolumeGroupDriver delegate;

    /** A driver that forwards to {@code delegate}. */
    protected ForwardingVolumeGroupDriver(VolumeGroupDriver delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /** The driver this one forwards to. */
    protected final VolumeGroupDriver delegate() {
        return delegate;
    }

    @Override
    public VolumeGroup create(CreateGroupRequest request) {
        return delegate.create(request);
    }

    @Override
    public void delete(DeleteGroupRequest request) {
        delegate.delete(request);
    }

    @Override
    public VolumeGroup modify(ModifyGroupRequest request) {
        return delegate.modify(request);
    }

    @Override
    public VolumeGroup get(GetGroupRequest request) {
        return delegate.get(request);
    }

    @Override
    public List<VolumeGroup> list(ListGroupsRequest request) {
        return delegate.list(request);
    }

    @Override
    public Set<VolumeGroupCapability> served() {
        return delegate.served();
    }

    @Override
    public Set<VolumeGroupCapability> behaviours() {
        return delegate.behaviours();
    }
}
