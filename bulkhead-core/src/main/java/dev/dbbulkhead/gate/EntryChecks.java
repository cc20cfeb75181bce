package dev.dbbulkhead.gate;

import dev.dbbulkhead.BulkheadMisuseException;
import dev.dbbulkhead.MisuseKind;
import java.util.Objects;

/**
 * The refusals of an entry that is a misuse whatever the state of the gate — a thread that already holds a permit, a
 * thread started inside an admitted operation, an entry inside a transaction — read on the thread's
 * {@link ThreadRecord}, which every admission reads first.
 */
final class EntryChecks {

    private EntryChecks() {
    }

    /**
     * Refuses an entry into the gate of workload {@code entered} by a thread that holds a permit, was started inside
     * an admitted operation, or is inside an active transaction.
     *
     * @return the current thread's record, holding no gate
     */
    static ThreadRecord refuseMisuse(String entered) {
        ThreadRecord held = refuseHeldOrForked(entered);
        if (AmbientTransactions.activeOnCurrentThread()) {
            throw entryInsideTransaction(entered);
        }
        return held;
    }

    /**
     * Refuses an entry into the gate of workload {@code entered} by a thread that holds a permit or was started inside
     * an admitted operation; an active transaction is no refusal here. What an admission where a connection is taken checks: a
     * transaction that began without a connection (one that takes it lazily) takes it there, before it works.
     *
     * @return the current thread's record, holding no gate
     */
    static ThreadRecord refuseHeldOrForked(String entered) {
        ThreadRecord held = ThreadRecord.current();
        if (held.heldWorkload() != null) {
            refuseHeldOrForked(entered, held);
        }
        return held;
    }

    /**
     * The current thread holds a permit, or was started inside an admitted operation: refuses the entry, unless that
     * permit was closed elsewhere (given back now, by this its owner thread) or that operation has ended.
     */
    private static void refuseHeldOrForked(String entered, ThreadRecord held) {
        if (held.giveBackAbandoned() || held.settleFork()) {
            return;
        }
        // A record that refuses names the gate held, its own or its origin's: only a settled record names none.
        String heldWorkload = Objects.requireNonNull(held.heldWorkload(), "the workload held");
        throw held.isForked() ? forkedEntry(entered, heldWorkload) : reentrantEntry(entered, heldWorkload);
    }

    private static BulkheadMisuseException reentrantEntry(String workload, String held) {
        return new BulkheadMisuseException(workload, MisuseKind.REENTRANT_ENTRY,
                "Bulkhead '" + workload + "' entered by a thread that already holds a permit of bulkhead '"
                        + held + "'. Bulkheads are not reentrant: admit once, at the outermost"
                        + " non-transactional entry point, and call the rest from there.");
    }

    private static BulkheadMisuseException forkedEntry(String workload, String held) {
        return new BulkheadMisuseException(workload, MisuseKind.REENTRANT_ENTRY,
                "Bulkhead '" + workload + "' entered by a thread started inside an operation admitted by bulkhead '"
                        + held + "', which still holds its permit. Work forked from an admitted operation"
                        + " is part of it: waiting for a second permit while the first is held can deadlock, and a"
                        + " second connection breaks the limit. Do the database work in the admitted thread, or"
                        + " start it after the operation has returned.");
    }

    private static BulkheadMisuseException entryInsideTransaction(String workload) {
        return new BulkheadMisuseException(workload, MisuseKind.ACTIVE_TRANSACTION,
                "Bulkhead '" + workload + "' entered inside an active transaction: admission must happen"
                        + " before the transaction starts. Move the bulkhead to a non-transactional entry"
                        + " method that calls the transactional code.");
    }
}
