package io.volrep.cli;

import io.volrep.api.VolumeGroup;
import io.volrep.api.internal.SafeText;
import io.volrep.client.ReplicationClient;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code volrep group}: CSI-Addons {@code volumegroup.Controller}, the groups that {@code --volume-group} replicates.
 * Each subcommand is one typed call through the client (retries per the service's tables, offered only when the
 * plugin advertises its capability), with the options of every call command ({@code --endpoint}, {@code --secret},
 * {@code --secrets-file}, {@code --timeout}, ...). A group prints as {@code group ID} and one {@code member VOLUME} line
 * per member (and {@code context KEY=VALUE}), every plugin-given text escaped.
 *
 * <pre>
 * volrep group create --endpoint unix:///csi/csi-addons.sock --name db --volume pvc-1 --volume pvc-2
 * volrep group modify --endpoint unix:///csi/csi-addons.sock --id vg-1 --volume pvc-1 --volume pvc-3
 * volrep group list --endpoint unix:///csi/csi-addons.sock --max-entries 50
 * </pre>
 */
@Command(
        name = "group",
        mixinStandardHelpOptions = true,
        description = "Create, change, show, list and delete volume groups (CSI-Addons volumegroup.Controller).",
        subcommands = {
            GroupCommand.Create.class,
            GroupCommand.Modify.class,
            GroupCommand.Delete.class,
            GroupCommand.Get.class,
            GroupCommand.ListGroups.class
        })
public final class GroupCommand extends Subcommand {

    /** {@code volrep group} alone: the subcommands on stderr and exit 2. */
    @Override
    public Integer call() {
        spec.commandLine().usage(err());
        err().println("error: a subcommand is required");
        err().flush();
        return VolrepCommand.EXIT_USAGE;
    }

    /** A group as the subcommands print it: {@code group ID}, then its members and context, escaped. */
    static String format(VolumeGroup group) {
        StringBuilder out = new StringBuilder("group ").append(SafeText.escape(group.id()));
        for (VolumeGroup.Member m : group.members()) {
            out.append(System.lineSeparator()).append("  member ").append(SafeText.escape(m.volumeId()));
        }
        group.context()
                .forEach((k, v) -> out.append(System.lineSeparator())
                        .append("  context ")
                        .append(SafeText.escape(k))
                        .append('=')
                        .append(SafeText.escape(v)));
        return out.toString();
    }

    /** The shape of the subcommands: the client's options, one call, its result printed. */
    abstract static class GroupSubcommand extends Subcommand {
        @Mixin
        ClientOptions client;

        /** How the progress line names the call, e.g. {@code volrep group get vg-1}. */
        abstract String what();

        /** Sends the call; returns what to print. */
        abstract String invoke(ReplicationClient c);

        @Override
        public Integer call() {
            return CallCommand.run(
                    out(), err(), client, Progress.describe(spec.qualifiedName(), what()), (c, p) -> invoke(c));
        }
    }

    /** Delete and get: the group, by its id. */
    abstract static class ExistingGroupSubcommand extends GroupSubcommand {
        @Option(names = "--id", paramLabel = "ID", required = true, description = "The volume group.")
        String id;

        @Override
        String what() {
            return id;
        }
    }

    /** Create and modify: plugin-specific parameters. */
    abstract static class ParameterizedGroupSubcommand extends GroupSubcommand {
        @Option(
                names = {"--parameter", "--param"},
                paramLabel = "KEY=VALUE",
                description = "A plugin-specific parameter; repeatable.")
        Map<String, String> parameters = new LinkedHashMap<>();
    }

    @Command(
            name = "create",
            mixinStandardHelpOptions = true,
            description = "Create a volume group, or find the one of that name (CreateVolumeGroup); prints its id and"
                    + " members.")
    static final class Create extends ParameterizedGroupSubcommand {
        @Option(
                names = "--name",
                paramLabel = "NAME",
                required = true,
                description = "The group's name: the same name again gives the same group.")
        String name;

        @Option(
                names = "--volume",
                paramLabel = "ID",
                description = "A member volume; repeatable (none: an empty" + " group).")
        List<String> volumes = new ArrayList<>();

        @Override
        String what() {
            return name;
        }

        @Override
        String invoke(ReplicationClient c) {
            return format(c.volumeGroups()
                    .create(name)
                    .volumes(volumes)
                    .parameters(parameters)
                    .call());
        }
    }

    /** Exactly one of {@code --volume ...} and {@code --empty}. */
    static final class Membership {
        @Option(
                names = "--volume",
                paramLabel = "ID",
                required = true,
                description = "A member of the group's whole new membership; repeatable.")
        List<String> volumes;

        @Option(names = "--empty", required = true, description = "Remove every member.")
        boolean empty;
    }

    @Command(
            name = "modify",
            mixinStandardHelpOptions = true,
            description = "Set a volume group's whole membership: volumes not given are removed"
                    + " (ModifyVolumeGroupMembership); prints its id and members.")
    static final class Modify extends ParameterizedGroupSubcommand {
        @Option(names = "--id", paramLabel = "ID", required = true, description = "The volume group.")
        String id;

        @ArgGroup(exclusive = true, multiplicity = "1")
        Membership membership;

        @Override
        String what() {
            return id;
        }

        @Override
        String invoke(ReplicationClient c) {
            List<String> volumes = membership.empty ? List.of() : membership.volumes;
            return format(c.volumeGroups()
                    .modify(id)
                    .volumes(volumes)
                    .parameters(parameters)
                    .call());
        }
    }

    @Command(
            name = "delete",
            mixinStandardHelpOptions = true,
            description = "Delete a volume group (DeleteVolumeGroup); one that does not exist is no error.")
    static final class Delete extends ExistingGroupSubcommand {
        @Override
        String invoke(ReplicationClient c) {
            c.volumeGroups().delete(id).call();
            return "DeleteVolumeGroup " + SafeText.escape(id) + ": OK";
        }
    }

    @Command(
            name = "get",
            mixinStandardHelpOptions = true,
            description = "Show a volume group's id and members (ControllerGetVolumeGroup).")
    static final class Get extends ExistingGroupSubcommand {
        @Override
        String invoke(ReplicationClient c) {
            return format(c.volumeGroups().get(id).call());
        }
    }

    @Command(
            name = "list",
            mixinStandardHelpOptions = true,
            description = "Show every volume group, printed page by page as the pages arrive (ListVolumeGroups);"
                    + " --timeout covers the whole listing.")
    static final class ListGroups extends GroupSubcommand {
        @Option(
                names = "--max-entries",
                paramLabel = "N",
                defaultValue = "0",
                description = "At most N groups per page (default 0: as many as the plugin answers at once).")
        int maxEntries;

        @Override
        String what() {
            return "volume groups";
        }

        @Override
        public Integer call() {
            if (maxEntries < 0) {
                throw usageError("--max-entries must not be negative: " + maxEntries);
            }
            return super.call();
        }

        /**
         * Prints each group as its page arrives: a long listing shows at once and is never held whole. The listing
         * is bounded by the client (--timeout covers all of it; a plugin whose pages never end is a protocol
         * violation); whatever was printed before a failure stays printed.
         */
        @Override
        String invoke(ReplicationClient c) {
            PrintWriter out = out();
            try (Stream<VolumeGroup> groups = c.volumeGroups().list().maxEntries(maxEntries).stream()) {
                groups.forEach(g -> {
                    out.println(format(g));
                    out.flush();
                });
            }
            return "";
        }
    }
}
