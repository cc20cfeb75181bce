package dev.dbbulkhead.gate;

import dev.dbbulkhead.BulkheadMisuseException;
import dev.dbbulkhead.MisuseKind;
import java.util.Objects;

/**
 * The refusals of an entry that is a misuse whatever the state of the gate — a thread that already holds a permit, a
 * thread started inside an admitted operation, an entry inside a transaction — and the per-thread record of the gate
 * held, which every admission reads first.
 */
final class EntryChecks {

    /**
     * Which gate's permit the current thread holds, of whichever gate: gates are never nested. A mutable holder per
     * thread, so that an admission looks the thread-local up once and its release not at all (the permit keeps the
     * holder), and no admission allocates a map entry the collector must later process.
     *
     * <p>Inherited: a thread started while its creator holds a permit is work forked from that admitted operation,
     * and is refused entry while the operation lasts (see {@link AdmissionGate#acquire()}).
     */
    private static final ThreadLocal<HeldGate> HELD_GATE = new InheritableThreadLocal<>() {
        @Override
        protected HeldGate initialValue() {
            return new HeldGate();
        }

        @Override
        protected HeldGate childValue(HeldGate creator) {
            return creator.forChild();
        }
    };

    private EntryChecks() {
    }

    /** The current thread's record of the gate it holds and of what is bound to it. */
    static HeldGate currentThreadRecord() {
        return HELD_GATE.get();
    }

    /**
     * Refuses an entry into {@code entered} by a thread that holds a permit, was started inside an admitted operation,
     * or is inside an active transaction.
     *
     * @return the current thread's record, holding no gate
     */
    static HeldGate refuseMisuse(AdmissionGate entered) {
        HeldGate held = refuseHeldOrForked(entered);
        if (AmbientTransactions.activeOnCurrentThread()) {
            throw entryInsideTransaction(entered.workload());
        }
        return held;
    }

    /**
     * Refuses an entry into {@code entered} by a thread that holds a permit or was started inside an admitted
     * operation; an active transaction is no refusal here. What an admission where a connection is taken checks: a
     * transaction that began without a connection (one that takes it lazily) takes it there, before it works.
     *
     * @return the current thread's record, holding no gate
     */
    static HeldGate refuseHeldOrForked(AdmissionGate entered) {
        HeldGate held = HELD_GATE.get();
        if (held.gate() != null) {
            refuseHeldOrForked(entered, held);
        }
        return held;
    }

    /**
     * The current thread holds a permit, or was started inside an admitted operation: refuses the entry, unless that
     * permit was closed elsewhere (given back now, by this its owner thread) or that operation has ended.
     */
    private static void refuseHeldOrForked(AdmissionGate entered, HeldGate held) {
        if (held.giveBackAbandoned() || held.settleFork()) {
            return;
        }
        // A record that refuses names the gate held, its own or its origin's: only a settled record names none.
        AdmissionGate heldGate = Objects.requireNonNull(held.gate(), "the gate held");
        String workload = entered.workload();
        throw held.isForked() ? forkedEntry(workload, heldGate) : reentrantEntry(workload, heldGate);
    }

    private static BulkheadMisuseException reentrantEntry(String workload, AdmissionGate held) {
        return new BulkheadMisuseException(workload, MisuseKind.REENTRANT_ENTRY,
                "Bulkhead '" + workload + "' entered by a thread that already holds a permit of bulkhead '"
                        + held.workload() + "'. Bulkheads are not reentrant: admit once, at the outermost"
                        + " non-transactional entry point, and call the rest from there.");
    }

    private static BulkheadMisuseException forkedEntry(String workload, AdmissionGate held) {
        return new BulkheadMisuseException(workload, MisuseKind.REENTRANT_ENTRY,
                "Bulkhead '" + workload + "' entered by a thread started inside an operation admitted by bulkhead '"
                        + held.workload() + "', which still holds its permit. Work forked from an admitted operation"
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
