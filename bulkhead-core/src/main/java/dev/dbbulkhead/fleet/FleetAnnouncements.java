package dev.dbbulkhead.fleet;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * The fleet's changes as a coordinator announces them and hears of them: every settlement that changes the fleet
 * (a member joins or comes back, changes its weight or demand, is fenced, leaves, or the total moves) notifies a
 * channel of the table, which the session the coordinator keeps listens on ({@link PostgresNotifications}); a move of
 * the total alone is announced with its value, so that members that rest follow it without renewing.
 *
 * <p>What a session heard is taken in only by the thread holding the session; what was heard is read by any thread.
 */
final class FleetAnnouncements {

    /** What separates the table's name from the total in a {@linkplain #totalAnnouncement total's announcement}. */
    private static final String TOTAL_ANNOUNCED = " total ";
    /** The most digits of a total an announcement is read with: those of {@link Integer#MAX_VALUE}. */
    private static final int MAX_TOTAL_DIGITS = 10;

    private final int budget;
    /**
     * The fleet's changes announced by other sessions that this coordinator's listening sessions heard, moves of the
     * total announced with their value apart.
     */
    private final AtomicLong changesHeard = new AtomicLong();
    /** The newest total announced with its value that the listening sessions heard, and how many such they heard. */
    private volatile HeardTotal totalHeard = new HeardTotal(0, 0);
    /** What was heard when each member's last renewal began; removed when it fails or leaves. */
    private final Map<String, HeardAt> heardAtRenewal = new ConcurrentHashMap<>();
    /** The session that listens for the fleet's announced changes; null while none does. */
    private volatile @Nullable Connection listening;

    /** @param budget the fleet's budget: an announced total above it is never taken */
    FleetAnnouncements(int budget) {
        this.budget = budget;
    }

    /**
     * The channel of the fleet of {@code qualified}: a plain identifier, well within the server's 63 bytes whatever
     * the table's name. Two tables whose names hash alike share one; their members then renew a little more often.
     */
    static String channelOf(String qualified) {
        return "db_bulkhead_fleet_" + Integer.toHexString(qualified.hashCode());
    }

    /** What a settlement that moved the total of {@code table} and changed nothing else announces. */
    static String totalAnnouncement(String table, int total) {
        return table + TOTAL_ANNOUNCED + total;
    }

    /**
     * The total {@code payload} announces for {@code table}, when it is {@link #totalAnnouncement} of a total from 1 to
     * {@code budget}; else 0. Anyone who may notify on the channel can send anything, of up to 8000 bytes: only that
     * exact form is taken.
     */
    static int announcedTotalIn(String payload, String table, int budget) {
        String prefix = table + TOTAL_ANNOUNCED;
        int digits = payload.length() - prefix.length();
        if (digits < 1 || digits > MAX_TOTAL_DIGITS || !payload.startsWith(prefix)) {
            return 0;
        }
        long total = 0;
        for (int i = prefix.length(); i < payload.length(); i++) {
            char c = payload.charAt(i);
            if (c < '0' || c > '9') {
                return 0;
            }
            total = total * 10 + (c - '0');
        }
        return total >= 1 && total <= budget && payload.charAt(prefix.length()) != '0' ? (int) total : 0;
    }

    /**
     * Tells every member's coordinator, once this transaction commits, that the fleet changed: with an empty
     * {@code payload} members renewing seldom renew at their next heartbeat; with a {@link #totalAnnouncement} they
     * follow the total without renewing while its target is within their grant.
     */
    static void announce(Connection connection, String channel, String payload) throws SQLException {
        try (PreparedStatement notify = connection.prepareStatement("SELECT pg_notify(?, ?)")) {
            notify.setString(1, channel);
            notify.setString(2, payload);
            notify.executeQuery().close();
        }
    }

    /**
     * Listens for the fleet's changes on {@code session} when it does not yet, else takes in what it heard.
     *
     * @param table the table's schema-qualified name, which a total's announcement names
     */
    void listenOn(Connection session, String table, String channel) throws SQLException {
        if (session == listening) {
            hear(session, table);
            return;
        }
        if (PostgresNotifications.listen(session, channel)) {
            listening = session;
            // Whatever was announced while no session listened went unheard: every member renews once.
            changesHeard.incrementAndGet();
        }
    }

    /**
     * Takes in what the session heard; only the thread holding the session calls this.
     *
     * @param table the table's schema-qualified name; null while unresolved, when no payload is taken for a total
     */
    void hear(Connection session, @Nullable String table) throws SQLException {
        for (String payload : PostgresNotifications.receivedFromOthers(session)) {
            int total = table == null ? 0 : announcedTotalIn(payload, table, budget);
            if (total > 0) {
                totalHeard = new HeardTotal(totalHeard.announcements() + 1, total);
            } else {
                changesHeard.incrementAndGet();
            }
        }
    }

    /** Whether {@code session} is the one listening for the fleet's changes. */
    boolean listensOn(Connection session) {
        return session == listening;
    }

    /** Whether a session listens for the fleet's changes. */
    boolean listens() {
        return listening != null;
    }

    /**
     * Forgets {@code session} as the listening one; the caller makes it listen to nothing before anyone else uses it.
     *
     * @return whether it was the listening session
     */
    boolean stopListening(Connection session) {
        if (listening != session) {
            return false;
        }
        listening = null;
        return true;
    }

    /** Notes what was heard as the member's renewal begins: news is judged against it until the next one. */
    void renewing(String memberId) {
        heardAtRenewal.put(memberId, new HeardAt(changesHeard.get(), totalHeard.announcements()));
    }

    /** Forgets the member, whose renewal failed or who left: until it renews, the fleet may have changed for it. */
    void forget(String memberId) {
        heardAtRenewal.remove(memberId);
    }

    /** What was heard when the member's last renewal began; null when it has none standing. */
    @Nullable HeardAt heardAt(String memberId) {
        return heardAtRenewal.get(memberId);
    }

    /** Whether a change of the fleet, a total announced with its value apart, was heard since {@code heard}. */
    boolean changedSince(HeardAt heard) {
        return changesHeard.get() != heard.changes();
    }

    /**
     * The total announced with its value since the member's last renewal. A move of the total is announced with the
     * table's name and the new total, which is taken only when it names this coordinator's table and lies from 1 to the
     * budget; any other notification on the channel counts as a change of the fleet, so that a member renews and reads
     * the table, which is checked row by row.
     */
    OptionalInt announcedTotal(String memberId) {
        HeardAt heard = heardAtRenewal.get(memberId);
        HeardTotal newest = totalHeard;
        return heard != null && newest.announcements() != heard.totals() ? OptionalInt.of(newest.value())
                : OptionalInt.empty();
    }

    /** The newest total announced with its value, and how many such announcements were heard in all. */
    private record HeardTotal(long announcements, int value) {
    }

    /** What was heard when a member's renewal began: the changes, and the totals announced with their value. */
    record HeardAt(long changes, long totals) {
    }
}
