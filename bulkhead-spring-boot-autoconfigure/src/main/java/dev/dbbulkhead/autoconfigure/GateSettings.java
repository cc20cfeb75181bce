package dev.dbbulkhead.autoconfigure;

import dev.dbbulkhead.autoconfigure.BulkheadProperties.WhenFull;
import dev.dbbulkhead.gate.AdmissionRules;
import dev.dbbulkhead.gate.GateConfig;
import dev.dbbulkhead.gate.GateLending;
import dev.dbbulkhead.gate.GateRanges;
import dev.dbbulkhead.gate.QueueDiscipline;
import java.time.Duration;

/**
 * The gate's part of a workload's settings: B, Q, the queue and the admission rules, each checked by the gate's own
 * builders, whose ranges the messages give, and reported under the property that set it.
 *
 * @param config           the gate's limits
 * @param maxConcurrent    B as written, before its check
 * @param maxQueued        Q as written, or the waiting room of a workload that waits when full
 * @param queueWait        the queue wait as written
 * @param queueDiscipline  the order of the waiting work
 * @param criticalReserve  the share of places held back for critical work, as written
 * @param sheddableReserve the share of places sheddable work leaves to the others, as written
 */
record GateSettings(GateConfig config, Setting<Integer> maxConcurrent, Setting<Integer> maxQueued,
                    Setting<Duration> queueWait, Setting<QueueDiscipline> queueDiscipline,
                    Setting<Double> criticalReserve, Setting<Double> sheddableReserve) {

    static GateSettings resolve(WorkloadResolver resolver) {
        Setting<Integer> maxConcurrent = resolver.get(WorkloadKeys.MAX_CONCURRENT);
        Setting<WhenFull> whenFull = resolver.get(WorkloadKeys.WHEN_FULL);
        Setting<Integer> maxQueued = maxQueued(resolver, whenFull);
        GateConfig.Builder gate = GateConfig.builder();
        // The builder validates with the gate's own ranges; only the property name is added here.
        maxConcurrent.validate(gate::maxConcurrent);
        maxQueued.validate(gate::maxQueued);
        Setting<Duration> queueWait = resolver.get(WorkloadKeys.QUEUE_WAIT);
        queueWait.validate(gate::queueWait);
        if (whenFull.value() == WhenFull.WAIT && queueWait.value().isZero()) {
            throw BulkheadConfigurationException.invalidProperty(queueWait.property(), queueWait.value(),
                    "more than 0 while " + whenFull.property() + " is wait: it is how long an operation"
                            + " waits for a place before it is given up");
        }
        gate.captureStackTrace(resolver.get(WorkloadKeys.CAPTURE_STACK_TRACE).value());
        Setting<QueueDiscipline> discipline = resolver.get(WorkloadKeys.QUEUE_DISCIPLINE);
        applyQueue(resolver, discipline, gate);
        Setting<Double> criticalReserve = resolver.get(WorkloadKeys.CRITICAL_RESERVE);
        Setting<Double> sheddableReserve = resolver.get(WorkloadKeys.SHEDDABLE_RESERVE);
        gate.admissionRules(admissionRules(resolver, criticalReserve, sheddableReserve));
        Setting<String> admitted = new Setting<>(maxConcurrent.property() + " + " + maxQueued.property(),
                maxConcurrent.value() + " + " + maxQueued.value());
        return new GateSettings(admitted.validate(ignored -> gate.build()), maxConcurrent, maxQueued, queueWait,
                discipline, criticalReserve, sheddableReserve);
    }

    /**
     * Q as configured; for a workload whose operations wait when it is full ({@code when-full: wait}), a waiting room
     * no arrival fills, since such work waits for a place within its queue wait rather than be refused. A
     * {@code max-queued} of the workload's own beside {@code when-full: wait} is refused: it could never apply; the
     * defaults' applies to the workloads that refuse.
     */
    private static Setting<Integer> maxQueued(WorkloadResolver resolver, Setting<WhenFull> whenFull) {
        Setting<Integer> written = resolver.get(WorkloadKeys.MAX_QUEUED);
        if (whenFull.value() != WhenFull.WAIT) {
            return written;
        }
        if (resolver.own().getMaxQueued() != null) {
            throw BulkheadConfigurationException.invalidProperty(written.property(), written.value(),
                    "none while " + whenFull.property() + " is wait: the operations of a workload that waits when"
                            + " full wait for a place within " + WorkloadKeys.QUEUE_WAIT.name()
                            + ", however many they are. Remove it, or set " + whenFull.property() + " to refuse");
        }
        return new Setting<>(whenFull.property(), WorkloadSettings.WAITING_ROOM);
    }

    /**
     * The queue discipline, its target delay and its interval, each checked on its own, then the target against the
     * interval (reported under the target, naming the interval's property). Checked under fifo too: switching a
     * workload to codel must not reveal a bad value that was there all along.
     */
    private static void applyQueue(WorkloadResolver resolver, Setting<QueueDiscipline> discipline,
                                   GateConfig.Builder gate) {
        gate.queueDiscipline(discipline.value());
        Setting<Duration> interval = resolver.get(WorkloadKeys.QUEUE_INTERVAL);
        // The interval the gate got: its built-in one when a check of every setting reported this one.
        Duration intervalUsed = interval.validate(value -> {
            gate.queueInterval(value);
            return value;
        });
        resolver.get(WorkloadKeys.QUEUE_TARGET_DELAY).validate(targetDelay -> {
            gate.queueTargetDelay(targetDelay);
            // The rule is the gate's; only its words change, to name the interval's property.
            try {
                GateRanges.requireTargetWithinInterval(targetDelay, intervalUsed);
            } catch (IllegalArgumentException beyondInterval) {
                throw new IllegalArgumentException("must be positive and at most " + interval.property()
                        + " = " + intervalUsed + ", was " + targetDelay);
            }
            return targetDelay;
        });
    }

    /**
     * The criticality reserves, in-progress-first and fair shares, each value checked by the rules' own builder and
     * reported under its property; the sheddable reserve against the critical one, reported under the sheddable one.
     */
    private static AdmissionRules admissionRules(WorkloadResolver resolver, Setting<Double> criticalReserve,
                                                 Setting<Double> sheddableReserve) {
        AdmissionRules.Builder rules = AdmissionRules.builder();
        criticalReserve.validate(rules::criticalReserve);
        // Admitted where connections are taken, the unit users see is the request or job: its later operations go
        // first unless the user says otherwise. Without it, the gate keeps the fast path earlier steps measured.
        rules.inProgressFirst(resolver.get(WorkloadKeys.IN_PROGRESS_FIRST,
                resolver.unitsOfWork() || WorkloadKeys.IN_PROGRESS_FIRST.builtIn()).value());
        boolean fairShares = resolver.get(WorkloadKeys.FAIR_SHARES).value();
        rules.fairShares(fairShares);
        resolver.get(WorkloadKeys.MAX_RUNNING_PER_KEY).validate(cap -> {
            if (cap < AdmissionRules.NO_RUNNING_CAP) {
                throw new IllegalArgumentException("must be at least 1, or 0 for no cap, was " + cap);
            }
            if (cap != AdmissionRules.NO_RUNNING_CAP && !fairShares) {
                // Without fair shares every operation is one flow: the cap would silently be a smaller B.
                throw new IllegalArgumentException("needs fair-share.enabled: true (a cap per key without keys would "
                        + "only be a smaller max-concurrent), was " + cap);
            }
            return rules.maxRunningPerKey(cap);
        });
        resolver.get(WorkloadKeys.KEY_SLOTS).validate(rules::keySlots);
        resolver.get(WorkloadKeys.WEIGHTS).validate(rules::keyWeights);
        resolver.get(WorkloadKeys.KEYLESS_KEY).validate(rules::keylessKey);
        return sheddableReserve.validate(reserve -> rules.sheddableReserve(reserve).build());
    }

    /** What the workload asks of lending: the places it borrows, checked against their range, and whether it lends. */
    static WorkloadSettings.Lending lending(WorkloadResolver resolver) {
        int borrow = resolver.get(WorkloadKeys.BORROW).validate(places -> {
            if (places < 0 || places > GateLending.MAX_BORROW) {
                throw new IllegalArgumentException("must be between 0 (borrows nothing) and "
                        + GateLending.MAX_BORROW + ", was " + places);
            }
            return places;
        });
        return new WorkloadSettings.Lending(borrow, resolver.get(WorkloadKeys.LEND).value());
    }

    /** How many keys of a workload with fair shares get meters of their own. */
    static int meteredKeys(WorkloadResolver resolver) {
        return resolver.get(WorkloadKeys.METERED_KEYS).validate(keys -> {
            if (keys < 0 || keys > WorkloadSettings.MAX_METERED_KEYS) {
                throw new IllegalArgumentException("must be between 0 (every key as other) and "
                        + WorkloadSettings.MAX_METERED_KEYS + ", was " + keys);
            }
            return keys;
        });
    }
}
