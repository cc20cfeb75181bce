package dev.dbbulkhead.saturation;

import dev.dbbulkhead.gate.Criticality;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * The policy of a limit that follows the database's saturation: from one sample of the database's signals and what
 * each workload runs and queues, the cap on each workload's B. It knows no gate, no clock and no framework; it keeps
 * no state between samples, so the same sample and workloads always give the same caps.
 *
 * <p>What it reads ({@link #read}):
 * <ul>
 *   <li><b>Lock contention</b>: at least {@value #CONTENDED_LOCK_WAITERS} sessions wait for a heavyweight lock, and
 *       they are at least {@value #CONTENDED_LOCK_SHARE} of the active ones. More concurrency makes it worse, so
 *       every workload is lowered: by {@value #LOCK_CUT} a sample, or to what makes progress (what it runs less the
 *       lock waiters, plus one to take the lock next) when that is lower. Where one workload is steered, the mechanism
 *       measures whether that cut writes less than a higher B does ({@link LockContentionClimb}).</li>
 *   <li><b>Saturated</b>: the sessions that need the server's processors or its disks — running ({@link WaitClass#CPU}),
 *       waiting for a read or write ({@link WaitClass#IO}) or for a lightweight lock ({@link WaitClass#LWLOCK}) —
 *       are more than {@value #SATURATED_PER_CPU} per server processor. Lowered by {@value #CPU_CUT} a sample.</li>
 *   <li><b>Healthy</b>: fewer than {@value #HEALTHY_PER_CPU} of them per processor and no lock waiter: a
 *       workload that queues, or runs all its cap allows, is raised by {@value #RAISE} a sample (at least one), never
 *       past the B it asks for.</li>
 *   <li><b>Busy</b>: between the two, or a single lock waiter (a hot row's next holder, where its best B sits).
 *       Nothing moves, so that the caps do not swing around a threshold.</li>
 * </ul>
 * Without the server's processor count only locks are judged, and the database counts as healthy without a waiter:
 * the latency limit, where a workload has one, is then what lowers it.
 *
 * <p>Whom it lowers: one class of {@link Criticality} a sample, the least critical first — {@code SHEDDABLE}, then
 * {@code DEFAULT}, then {@code CRITICAL} — and in that class the workloads that run something and are above their
 * floor. A class reaches its floor before the next is touched. When the load is another's — most sessions in a
 * transaction are not this instance's (another application, work outside the gates), or those busy beyond all it
 * runs would alone keep the server from being healthy — saturation lowers no {@code CRITICAL} workload: its few
 * places are not what saturates the server, and it keeps them for the work that matters most. Lock contention lowers
 * it all the same, because the gates' own concurrency is what contends. Once that outside work is gone (a sample
 * neither saturated nor contended, and healthy or the load this instance's own), each workload it lowered gets back
 * at once the cap it had when the surge began ({@link Workload#beforeSurge()}, which the mechanism remembers, from
 * before the sample at which the database turned saturated when the surge showed itself within a few samples of it).
 */
public final class SaturationPolicy {

    /** Sessions running or waiting for a processor or a disk, per server processor, above which it is saturated. */
    public static final double SATURATED_PER_CPU = 1.0;
    /** ... and below which, with no lock contention, it is healthy. */
    public static final double HEALTHY_PER_CPU = 0.75;
    /** The fewest lock waiters that count as contention. */
    public static final int CONTENDED_LOCK_WAITERS = 2;
    /** The least share of the active sessions waiting for a lock that counts as contention. */
    public static final double CONTENDED_LOCK_SHARE = 0.25;
    /** What lowering multiplies a cap by under lock contention, at least; down to what makes progress if lower. */
    public static final double LOCK_CUT = 0.75;
    /** What lowering multiplies a cap by when saturated. */
    public static final double CPU_CUT = 0.75;
    /** What raising multiplies a cap by when healthy. */
    public static final double RAISE = 1.25;

    /** Lowered from the first to the last. */
    private static final List<Criticality> LOWERING_ORDER =
            List.of(Criticality.SHEDDABLE, Criticality.DEFAULT, Criticality.CRITICAL);

    private final int serverCpus;
    private final boolean cpusKnown;

    /**
     * @param serverCpus the server's processors; {@link SamplerSettings#UNKNOWN_CPUS} when not known, and then only lock
     *                   contention is judged
     */
    public SaturationPolicy(int serverCpus) {
        if (serverCpus < 0) {
            throw new IllegalArgumentException("serverCpus must be at least 0, was " + serverCpus);
        }
        this.serverCpus = serverCpus;
        this.cpusKnown = serverCpus != SamplerSettings.UNKNOWN_CPUS;
    }

    /** How saturated the database is, as one sample shows it. */
    public enum State {
        /** Room to spare: workloads that queue are raised. */
        HEALTHY,
        /** Between healthy and saturated: nothing moves. */
        BUSY,
        /** More sessions need the processors or the disks than the server has processors. */
        SATURATED,
        /** Sessions wait for each other's locks. */
        LOCK_CONTENTION
    }

    /**
     * What the policy read from one sample: its evidence, for the log, the endpoint and a recommendation.
     *
     * @param state       the verdict
     * @param busy        sessions running or waiting for a processor, a disk or a lightweight lock
     * @param serverCpus  the server's processors; 0 when unknown
     * @param lockWaiters sessions waiting for a heavyweight lock
     * @param active      all active sessions of the database, the sampler's own apart
     * @param inTransaction the sessions of the database in a transaction, between statements too
     *                    ({@link DatabaseSignals#inTransaction()}): the active ones and those waiting for their client
     * @param ours        operations this instance's governed workloads were running
     * @param outside     whether the load was mostly another's: most sessions in a transaction were not this
     *                    instance's, or the sessions on a processor or a disk beyond all this instance runs would alone
     *                    keep the server from being healthy
     */
    public record Reading(State state, int busy, int serverCpus, int lockWaiters, int active, int inTransaction,
                          int ours, boolean outside) {
    }

    /**
     * A workload as the policy sees it at a sample.
     *
     * @param workload    its name
     * @param criticality the order in which saturation lowers it
     * @param floor       the lowest cap, at least 1
     * @param requested   the B it asks for (configured, resized, or learnt by its latency limit): the highest cap
     * @param cap         its cap now
     * @param running     operations it runs now
     * @param queued      whether operations wait for a place in it now
     * @param beforeSurge its cap when work outside this instance last saturated the database, while that lasts and
     *                    until the cap is given back; 0 for none
     */
    public record Workload(String workload, Criticality criticality, int floor, int requested, int cap, int running,
                           boolean queued, int beforeSurge) {

        public Workload {
            Objects.requireNonNull(workload, "workload");
            Objects.requireNonNull(criticality, "criticality");
            if (floor < 1 || requested < 1 || cap < 1 || running < 0 || beforeSurge < 0) {
                throw new IllegalArgumentException("floor, requested and cap must be at least 1, running and the cap"
                        + " before a surge at least 0, were " + floor + ", " + requested + ", " + cap + ", " + running
                        + ", " + beforeSurge);
            }
        }

        /** A workload no surge from outside has lowered. */
        Workload(String workload, Criticality criticality, int floor, int requested, int cap, int running,
                 boolean queued) {
            this(workload, criticality, floor, requested, cap, running, queued, 0);
        }

        /** The B in force: the cap, or less when that is all it asks for. */
        int inForce() {
            return Math.min(cap, requested);
        }
    }

    /**
     * The caps after one sample.
     *
     * @param reading what the sample showed
     * @param caps    every workload's cap, in the order given
     */
    public record Decision(Reading reading, List<Integer> caps) {

        public Decision {
            Objects.requireNonNull(reading, "reading");
            caps = List.copyOf(caps);
        }
    }

    /** Reads one sample, with what this instance's workloads were running. */
    public Reading read(DatabaseSignals signals, int ours) {
        int busy = signals.active(WaitClass.CPU) + signals.active(WaitClass.IO) + signals.active(WaitClass.LWLOCK);
        int active = signals.active();
        int inTransaction = signals.inTransaction();
        int lockWaiters = signals.lockWaiters();
        // Sessions in a transaction, not only active ones, are weighed against this instance's operations: an operation
        // holds its place between statements, and another client's session waits for it in mid-transaction as well.
        boolean mostlyAnothers = inTransaction - ours > ours;
        // This instance's operations number at most `ours` of the sessions on the server, between statements too; what
        // is busy beyond them is surely another's, and where that alone keeps the processors from health, the
        // saturation is another's even when this instance runs more sessions than it does.
        boolean othersKeepProcessorsBusy = cpusKnown && busy - ours >= HEALTHY_PER_CPU * serverCpus;
        boolean outside = mostlyAnothers || othersKeepProcessorsBusy;
        State state;
        if (lockWaiters >= CONTENDED_LOCK_WAITERS && lockWaiters >= CONTENDED_LOCK_SHARE * active) {
            state = State.LOCK_CONTENTION;
        } else if (cpusKnown && busy > SATURATED_PER_CPU * serverCpus) {
            state = State.SATURATED;
        } else if (lockWaiters == 0 && (!cpusKnown || busy < HEALTHY_PER_CPU * serverCpus)) {
            state = State.HEALTHY;
        } else {
            // A lone lock waiter is a hot row's next holder, ready to go: where its best B sits, not a reason to move.
            state = State.BUSY;
        }
        return new Reading(state, busy, serverCpus, lockWaiters, active, inTransaction, ours, outside);
    }

    /**
     * Whether a reading shows the lock as what limits this instance's work: its sessions wait for locks (contended,
     * or a lone waiter) while the processors and disks still have room, and the load is its own ({@link
     * Reading#outside()} does not hold).
     */
    public boolean lockBound(Reading reading) {
        boolean processorsHaveRoom = !cpusKnown || reading.busy() < HEALTHY_PER_CPU * serverCpus;
        return reading.lockWaiters() > 0 && !reading.outside()
                && (reading.state() == State.LOCK_CONTENTION || reading.state() == State.BUSY && processorsHaveRoom);
    }

    /** The caps that follow {@code signals}. */
    public Decision decide(DatabaseSignals signals, List<Workload> workloads) {
        return decide(read(signals, workloads.stream().mapToInt(Workload::running).sum()), workloads);
    }

    /** The caps of the steered {@code workloads} that follow {@code reading}. */
    public Decision decide(Reading reading, List<Workload> workloads) {
        List<Integer> caps = new ArrayList<>(workloads.size());
        workloads.forEach(workload -> caps.add(workload.cap()));
        switch (reading.state()) {
            case LOCK_CONTENTION -> lowerOneClass(workloads, caps, LOCK_CUT, reading.lockWaiters(), true);
            case SATURATED -> lowerOneClass(workloads, caps, CPU_CUT, 0, !reading.outside());
            case HEALTHY -> raiseTheQueued(workloads, caps);
            case BUSY -> {
                // Hold: a cap that moved on every sample near the threshold would swing.
            }
        }
        if (reading.state() == State.HEALTHY || reading.state() == State.BUSY && !reading.outside()) {
            giveBackAfterASurge(workloads, caps);
        }
        return new Decision(reading, caps);
    }

    /**
     * The B that one sample's evidence points to for a workload that runs unsteered, at a B of its own: a
     * recommendation estimated from what the server shows, not a cap stepped in the shadow, which could never see
     * what its own B would do.
     * <ul>
     *   <li>Lock contention: what makes progress — what it runs less the lock waiters — plus the one ready to take the
     *       lock next.</li>
     *   <li>Saturated: its share of the server's processors — what it runs × processors ÷ the sessions on them.</li>
     *   <li>Healthy, and it queues or runs all its B allows: that share again, now more than it runs, as far as the
     *       idle processors go.</li>
     *   <li>Otherwise, without the server's processor count, or when it runs nothing (no evidence of its own): the
     *       last recommendation.</li>
     * </ul>
     * Always within the workload's floor and {@link Workload#requested()}, the most it may recommend.
     *
     * @param workload the workload, with its last recommendation as its {@link Workload#cap()}
     */
    public int recommend(Reading reading, Workload workload) {
        return estimate(reading, workload)
                .orElse(Math.max(workload.floor(), Math.min(workload.requested(), workload.cap())));
    }

    /**
     * The B that one sample's evidence points to, as {@link #recommend} estimates it; empty when the sample holds no
     * evidence of the workload's own (busy, no processor count, or it runs nothing, or healthy and it wants no more),
     * so that a window of estimates counts only the samples that say something.
     */
    OptionalInt estimate(Reading reading, Workload workload) {
        int running = workload.running();
        if (running == 0) {
            return OptionalInt.empty();
        }
        int estimate;
        switch (reading.state()) {
            case LOCK_CONTENTION -> estimate = progressing(running, reading.lockWaiters());
            case SATURATED -> {
                if (!cpusKnown) {
                    return OptionalInt.empty();
                }
                estimate = processorShare(running, reading.busy());
            }
            case HEALTHY -> {
                if (!cpusKnown || !workload.queued() && running < workload.cap()) {
                    return OptionalInt.empty();
                }
                estimate = Math.max(workload.cap(), processorShare(running, reading.busy()));
            }
            default -> {
                return OptionalInt.empty();
            }
        }
        return OptionalInt.of(Math.max(workload.floor(), Math.min(workload.requested(), estimate)));
    }

    /** Of {@code running} operations, those that make progress past {@code lockWaiters}, plus the one next: at least 1. */
    static int progressing(int running, int lockWaiters) {
        return Math.max(1, running - lockWaiters + 1);
    }

    /** What {@code running} operations would be if the sessions on the processors were as many as processors. */
    private int processorShare(int running, int busy) {
        return (int) Math.floor(Math.max(1, running) * SATURATED_PER_CPU * serverCpus / Math.max(1, busy));
    }

    /**
     * Lowers the least critical class that runs something above its floor, each workload by {@code cut} of what it
     * runs; under lock contention also to what makes progress — what it runs less the lock waiters, plus the one
     * ready to take the lock next — when that is lower.
     */
    private static void lowerOneClass(List<Workload> workloads, List<Integer> caps, double cut, int lockWaiters,
                                      boolean criticalToo) {
        for (Criticality criticality : LOWERING_ORDER) {
            if (criticality == Criticality.CRITICAL && !criticalToo) {
                return;
            }
            boolean lowered = false;
            for (int i = 0; i < workloads.size(); i++) {
                Workload workload = workloads.get(i);
                if (workload.criticality() == criticality && workload.running() > 0
                        && workload.inForce() > workload.floor()) {
                    caps.set(i, lowered(workload.inForce(), workload.running(), cut, lockWaiters, workload.floor()));
                    lowered = true;
                }
            }
            if (lowered) {
                return;
            }
        }
    }

    /**
     * A limit of {@code inForce} lowered by {@code cut} of what {@code running} uses of it — lowering a limit nobody
     * reaches relieves nothing — and, with {@code lockWaiters}, to what makes progress when that is lower: at least one
     * below {@code inForce}, never below {@code floor}. One rule for a workload's cap and a fleet's total.
     */
    static int lowered(int inForce, int running, double cut, int lockWaiters, int floor) {
        int from = Math.min(inForce, running);
        int lowerTo = (int) Math.floor(from * cut);
        if (lockWaiters > 0) {
            lowerTo = Math.min(lowerTo, progressing(from, lockWaiters));
        }
        return Math.max(floor, Math.min(inForce - 1, lowerTo));
    }

    /** A limit of {@code cap} raised by {@link #RAISE}, at least by one, never past {@code ceiling}. */
    static int raised(int cap, int ceiling) {
        return Math.min(ceiling, Math.max(cap + 1, (int) Math.ceil(cap * RAISE)));
    }

    /**
     * Once the work from outside that saturated the database is gone, each workload it lowered gets its cap from
     * before at once: that cap served this instance's own load, and waiting to climb back sample by sample would
     * leave the freed server idle.
     */
    private static void giveBackAfterASurge(List<Workload> workloads, List<Integer> caps) {
        for (int i = 0; i < workloads.size(); i++) {
            Workload workload = workloads.get(i);
            if (workload.beforeSurge() > caps.get(i)) {
                caps.set(i, Math.min(workload.requested(), workload.beforeSurge()));
            }
        }
    }

    private static void raiseTheQueued(List<Workload> workloads, List<Integer> caps) {
        for (int i = 0; i < workloads.size(); i++) {
            Workload workload = workloads.get(i);
            boolean wantsMore = workload.queued() || workload.running() >= workload.inForce();
            if (wantsMore && workload.cap() < workload.requested()) {
                caps.set(i, raised(workload.cap(), workload.requested()));
            }
        }
    }
}
