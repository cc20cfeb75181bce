package dev.dbbulkhead.fleet;

import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * How one member takes part in the fleet.
 *
 * @param memberId  unique among the fleet's live members
 * @param weight    its relative size in the fair split, at least 1
 * @param demand    the most connections it can use (its pool's configured maximum), at least 1
 * @param floor     the connections it uses without a lease (before its first grant, after its lease lapsed), at
 *                  least 1 and at most {@code demand}; not part of the leased budget
 * @param heartbeat how often it renews its lease, positive
 * @param leaseTtl  how long a lease lasts unrenewed, at least two heartbeats
 * @param sessionName the {@code application_name} its pool's sessions carry on the server, so that once its lease
 *                  has expired the coordinator can end them before it grants the share again: of the
 *                  {@linkplain #isMemberSessionName member form} ({@link #memberSessionName}), at most
 *                  {@value #MAX_SESSION_NAME_LENGTH} characters (the server truncates longer ones), unique in the
 *                  fleet; null when its sessions carry no name of their own, and then nothing can end them
 */
public record FleetSettings(String memberId, int weight, int demand, int floor, Duration heartbeat,
                            Duration leaseTtl, @Nullable String sessionName) {

    /** Default heartbeat: often enough to follow scaling within seconds, seldom enough to cost nothing. */
    public static final Duration DEFAULT_HEARTBEAT = Duration.ofSeconds(1);
    /** Default lease ttl: a dead member's share returns five seconds after its last renewal. */
    public static final Duration DEFAULT_LEASE_TTL = Duration.ofSeconds(5);
    /** Default weight: equal shares. */
    public static final int DEFAULT_WEIGHT = 1;
    /** The longest lease ttl a member may have: no lease of a member of any fleet expires further ahead. */
    public static final Duration MAX_LEASE_TTL = Duration.ofDays(2);
    /** The longest {@code application_name} PostgreSQL keeps whole. */
    public static final int MAX_SESSION_NAME_LENGTH = 63;

    /** The longest tag that names a member's sessions. */
    public static final int MAX_TAG_LENGTH = 36;

    private static final String MEMBER_SUFFIX_START = "(db-bulkhead member ";
    /**
     * A member's session name: printable ASCII, optionally the application's own name and a space, then the fleet's
     * own mark with the member's tag. Nothing else is ever ended by a renewal, so that a row of the table cannot
     * point fencing at another application's sessions.
     */
    private static final Pattern MEMBER_SESSION_NAME = Pattern.compile("(?:[ -~]* )?"
            + Pattern.quote(MEMBER_SUFFIX_START) + "[A-Za-z0-9_-]{1," + MAX_TAG_LENGTH + "}\\)");

    public FleetSettings {
        if (memberId == null || memberId.isBlank()) {
            throw new IllegalArgumentException("member id must not be blank, was '" + memberId + "'");
        }
        Objects.requireNonNull(heartbeat, "heartbeat");
        Objects.requireNonNull(leaseTtl, "leaseTtl");
        if (weight < 1) {
            throw new IllegalArgumentException("weight must be between 1 and " + Integer.MAX_VALUE + ", was " + weight);
        }
        if (demand < 1) {
            throw new IllegalArgumentException("demand must be between 1 and " + Integer.MAX_VALUE + ", was " + demand);
        }
        if (floor < 1 || floor > demand) {
            throw new IllegalArgumentException("floor must be between 1 and the pool's maximum size " + demand
                    + ", was " + floor);
        }
        if (heartbeat.isNegative() || heartbeat.isZero() || heartbeat.compareTo(Duration.ofDays(1)) > 0) {
            throw new IllegalArgumentException("heartbeat must be above 0s and at most 1 day, was " + heartbeat);
        }
        if (leaseTtl.compareTo(heartbeat.multipliedBy(2)) < 0 || leaseTtl.compareTo(MAX_LEASE_TTL) > 0) {
            throw new IllegalArgumentException("lease ttl must be at least two heartbeats (" + heartbeat.multipliedBy(2)
                    + ") and at most 2 days, was " + leaseTtl);
        }
        if (sessionName != null && !isMemberSessionName(sessionName)) {
            throw new IllegalArgumentException("session name must be of the member form '[<application> ]"
                    + MEMBER_SUFFIX_START + "<tag>)', printable ASCII, tag of 1 to " + MAX_TAG_LENGTH
                    + " letters, digits, '-' or '_', at most " + MAX_SESSION_NAME_LENGTH + " characters in all,"
                    + " was '" + sessionName + "'");
        }
    }

    /**
     * Whether {@code name} has the member form: the only {@code application_name}s a renewal ever ends.
     */
    public static boolean isMemberSessionName(@Nullable String name) {
        return name != null && name.length() <= MAX_SESSION_NAME_LENGTH && MEMBER_SESSION_NAME.matcher(name).matches();
    }

    /**
     * The session name of a member: {@code [<prefix> ](db-bulkhead member <tag>)}.
     *
     * @param prefix the application's own name, printable ASCII, cut to fit; null or blank for none
     * @param tag    unique among the fleet's members: 1 to {@value #MAX_TAG_LENGTH} letters, digits, '-' or '_'
     */
    public static String memberSessionName(@Nullable String prefix, String tag) {
        String suffix = MEMBER_SUFFIX_START + tag + ")";
        String base = prefix == null ? "" : prefix.strip();
        int room = MAX_SESSION_NAME_LENGTH - suffix.length() - 1;
        if (base.length() > room) {
            base = base.substring(0, Math.max(0, room)).strip();
        }
        String name = base.isEmpty() ? suffix : base + " " + suffix;
        if (!isMemberSessionName(name)) {
            throw new IllegalArgumentException("tag must be 1 to " + MAX_TAG_LENGTH + " letters, digits, '-' or '_'"
                    + " and the prefix printable ASCII, were '" + tag + "' and '" + prefix + "'");
        }
        return name;
    }

    /**
     * The longest one renewal waits for the fleet's lock: half a heartbeat, at least a millisecond. Renewals never
     * wait long on one another: one that gives up runs again at the member's next heartbeat, its unexpired share
     * kept meanwhile.
     */
    public Duration renewalLockWait() {
        Duration half = heartbeat.dividedBy(2);
        return half.compareTo(Duration.ofMillis(1)) < 0 ? Duration.ofMillis(1) : half;
    }

    /**
     * How long one renewal may take on the server, and how long the server waits for its member between two of its
     * statements: a quarter of the lease ttl, at least {@link #renewalLockWait()}. A member frozen inside its
     * renewal holds the fleet's lock no longer than this; the others keep three quarters of their lease to renew in.
     * Generous beside a renewal's few milliseconds, so that a member slowed down by a busy machine is not cut off.
     */
    public Duration renewalTimeout() {
        Duration quarter = leaseTtl.dividedBy(4);
        return quarter.compareTo(renewalLockWait()) < 0 ? renewalLockWait() : quarter;
    }

    /**
     * How often the member checks its own lease, and twice the margin by which it stops using a share before the
     * coordinator's clock would let others take it: a tenth of the lease ttl, at least a millisecond.
     */
    public Duration leaseCheck() {
        Duration tenth = leaseTtl.dividedBy(10);
        return tenth.compareTo(Duration.ofMillis(1)) < 0 ? Duration.ofMillis(1) : tenth;
    }
}
