package dev.dbbulkhead.fleettests;

import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * What the server showed at one moment: the instances' sessions in {@code pg_stat_activity} and the rows of the
 * fleet table, read in one transaction.
 *
 * @param at          when the sample was taken, on this JVM's {@link System#nanoTime()}
 * @param serverClock the server's {@code clock_timestamp()}, on which leases are judged
 * @param sessions    each instance's sessions, by instance name
 * @param leases      the fleet table's rows, expired or not
 */
record Sample(long at, OffsetDateTime serverClock, Map<String, Sessions> sessions, List<Lease> leases) {

    /**
     * The sessions an instance holds on the server. They are told apart by their {@code application_name}: an
     * instance's start with its name ({@code inst<N>}) followed by the end or a space; the fleet coordinator's own
     * connection says {@code coordinator} after it. Where the instance's sessions bear its bare name only (before
     * the members named their sessions), the coordinator's connection is among them and cannot be told apart: one of
     * them is taken to be it.
     *
     * @param member      the application pool's sessions
     * @param coordinator the coordinator's sessions
     */
    record Sessions(int member, int coordinator) {

        private static final Pattern INSTANCE = Pattern.compile("(inst\\d+)(?: (.*))?");

        /** Classifies the client backends' application names, with how many sessions bear each. */
        static Map<String, Sessions> of(Map<String, Integer> sessionsByApplicationName) {
            Map<String, int[]> counts = new TreeMap<>();
            sessionsByApplicationName.forEach((applicationName, count) -> {
                Matcher matcher = INSTANCE.matcher(applicationName);
                if (!matcher.matches()) {
                    return;
                }
                // member, coordinator, bare name
                int[] instance = counts.computeIfAbsent(matcher.group(1), name -> new int[3]);
                String tag = matcher.group(2);
                instance[tag == null ? 2 : tag.contains("coordinator") ? 1 : 0] += count;
            });
            Map<String, Sessions> sessions = new TreeMap<>();
            counts.forEach((instance, count) -> {
                int unnamedCoordinator = count[2] > 0 && count[1] == 0 ? 1 : 0;
                sessions.put(instance, new Sessions(count[0] + count[2] - unnamedCoordinator,
                        count[1] + unnamedCoordinator));
            });
            return sessions;
        }
    }

    /**
     * A row of the fleet table.
     *
     * @param memberId  the member's id
     * @param instance  the instance it belongs to, or {@code ?} for a member the test does not know
     * @param granted   connections granted
     * @param target    the member's fair share at its last renewal
     * @param expiresAt when its lease expires, on the server's clock
     */
    record Lease(String memberId, String instance, int granted, int target, OffsetDateTime expiresAt) {
    }

    /** Σ of the instances' member sessions: what the budget bounds on the server. */
    int memberConnections() {
        return sessions.values().stream().mapToInt(Sessions::member).sum();
    }

    /** The member sessions of {@code instance}; 0 when it has none. */
    int memberConnections(String instance) {
        Sessions of = sessions.get(instance);
        return of == null ? 0 : of.member();
    }

    /** The row of {@code instance}, whose lease has not expired at this sample by the server's clock. */
    Optional<Lease> unexpiredLease(String instance) {
        return leases.stream()
                .filter(lease -> lease.instance().equals(instance) && lease.expiresAt().isAfter(serverClock))
                .findFirst();
    }

    /** The instances holding an unexpired lease. */
    List<String> leaseholders() {
        return leases.stream().filter(lease -> lease.expiresAt().isAfter(serverClock)).map(Lease::instance)
                .sorted().toList();
    }

    /** One line, times relative to {@code origin} ({@link System#nanoTime()}). */
    String describe(long origin) {
        String perInstance = sessions.entrySet().stream()
                .map(entry -> entry.getKey() + " " + entry.getValue().member()
                        + (entry.getValue().coordinator() > 0 ? "+" + entry.getValue().coordinator() + "c" : ""))
                .collect(Collectors.joining(" "));
        String grants = leases.stream().sorted((a, b) -> a.instance().compareTo(b.instance()))
                .map(lease -> lease.instance() + " " + lease.granted() + "/" + lease.target() + " "
                        + millis(Duration.between(serverClock, lease.expiresAt())))
                .collect(Collectors.joining(" "));
        return String.format(Locale.ROOT, "%+8.3fs Σ%-3d sessions [%s] grants/targets, lease left [%s]",
                (at - origin) / 1e9, memberConnections(), perInstance, grants);
    }

    private static String millis(Duration duration) {
        return duration.toMillis() + "ms";
    }
}
