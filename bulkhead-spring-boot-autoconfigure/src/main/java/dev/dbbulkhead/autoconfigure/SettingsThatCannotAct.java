package dev.dbbulkhead.autoconfigure;

import dev.dbbulkhead.WrittenDurations;
import dev.dbbulkhead.gate.AdmissionRules;
import dev.dbbulkhead.gate.GateConfig;
import dev.dbbulkhead.gate.QueueDiscipline;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The settings of a workload that can do nothing as configured, each naming its property: warnings rather than
 * failures, since defaults may choose codel for workloads that have no queue on purpose, and a resize can give a
 * workload the places its settings need.
 */
final class SettingsThatCannotAct {

    private static final String MAX_QUEUED = WorkloadKeys.MAX_QUEUED.name();
    private static final String QUEUE_WAIT = WorkloadKeys.QUEUE_WAIT.name();
    private static final String B_AND_Q = WorkloadKeys.MAX_CONCURRENT.name() + " + " + MAX_QUEUED;

    private SettingsThatCannotAct() {
    }

    /** What {@link #idleQueueDiscipline} and {@link #ineffectiveSettings} find in workload {@code name}. */
    static List<String> of(String name, WorkloadSettings settings) {
        List<String> findings = new ArrayList<>();
        idleQueueDiscipline(name, settings.written()).ifPresent(findings::add);
        findings.addAll(ineffectiveSettings(name, settings));
        return findings;
    }

    /**
     * Why the workload's CoDel queue discipline can do nothing — no queue places, or no queue wait, so no operation
     * ever waits — naming the properties; empty when it can act, or the discipline is fifo.
     */
    private static Optional<String> idleQueueDiscipline(String name, WorkloadSettings.Written written) {
        Setting<QueueDiscipline> discipline = written.queueDiscipline();
        if (discipline.value() != QueueDiscipline.CODEL) {
            return Optional.empty();
        }
        Setting<Integer> maxQueued = written.maxQueued();
        Setting<Duration> queueWait = written.queueWait();
        String why;
        if (maxQueued.value() == 0) {
            why = MAX_QUEUED + " is 0 (" + maxQueued.property() + "): no operation waits, unless a resize adds queue"
                    + " places";
        } else if (queueWait.value().isZero()) {
            why = QUEUE_WAIT + " is 0 (" + queueWait.property() + "): every waiter gives up at once";
        } else {
            return Optional.empty();
        }
        return Optional.of("db-bulkhead workload '" + name + "': " + WorkloadKeys.QUEUE_DISCIPLINE.name() + "=codel ("
                + discipline.property() + ") has nothing to do while " + why + ". Give it a queue (" + MAX_QUEUED
                + " and " + QUEUE_WAIT + " above 0), or set " + WorkloadKeys.QUEUE_DISCIPLINE.under(name)
                + "=fifo to say that it needs none.");
    }

    /**
     * The settings of the workload that can do nothing with its B and Q as configured, each naming its property: a
     * queue wait the workload sets itself while it has no queue places, a max-queued no one waits in, a lock timeout
     * the statement timeout always ends first, and a criticality reserve that rounds down to no place.
     */
    private static List<String> ineffectiveSettings(String name, WorkloadSettings settings) {
        WorkloadSettings.Written written = settings.written();
        List<String> findings = new ArrayList<>();
        Setting<Duration> queueWait = written.queueWait();
        Setting<Integer> maxQueued = written.maxQueued();
        if (maxQueued.value() == 0 && !queueWait.value().isZero()
                && queueWait.property().equals(WorkloadKeys.QUEUE_WAIT.under(name))) {
            findings.add("db-bulkhead workload '" + name + "': " + QUEUE_WAIT + " = "
                    + WrittenDurations.of(queueWait.value()) + " (" + queueWait.property() + ") has no effect while "
                    + MAX_QUEUED + " is 0 (" + maxQueued.property() + "): no operation ever waits. Give the workload"
                    + " queue places, or remove its " + QUEUE_WAIT + ".");
        }
        if (maxQueued.value() > 0 && queueWait.value().isZero()) {
            findings.add("db-bulkhead workload '" + name + "': " + MAX_QUEUED + " = " + maxQueued.value() + " ("
                    + maxQueued.property() + ") has no effect while " + QUEUE_WAIT + " is 0s (" + queueWait.property()
                    + "): a queued operation gives up at once, so nothing ever waits, and neither the order of"
                    + " waiting work nor push-out can act. Set " + QUEUE_WAIT + " to about how long the workload's"
                    + " operations take (such as 50ms), or set " + MAX_QUEUED + " to 0 to say that it needs no queue.");
        }
        lockTimeoutAfterStatementTimeout(name, written.statementTimeout(), written.lockTimeout())
                .ifPresent(findings::add);
        findings.addAll(reservesOfNoPlace(name, settings));
        return findings;
    }

    private static Optional<String> lockTimeoutAfterStatementTimeout(String name,
            Setting<@Nullable Duration> statementTimeout, Setting<@Nullable Duration> lockTimeout) {
        Duration statement = statementTimeout.value();
        Duration lock = lockTimeout.value();
        if (statement == null || lock == null || lock.compareTo(statement) < 0) {
            return Optional.empty();
        }
        String lockKey = WorkloadKeys.LOCK_TIMEOUT.name();
        String statementKey = WorkloadKeys.STATEMENT_TIMEOUT.name();
        return Optional.of("db-bulkhead workload '" + name + "': " + lockKey + " = " + WrittenDurations.of(lock) + " ("
                + lockTimeout.property() + ") can never end a lock wait: " + statementKey + " = "
                + WrittenDurations.of(statement) + " (" + statementTimeout.property() + ") ends the statement"
                + " first, its lock waits included. Set " + lockKey + " below " + statementKey + ", or remove it.");
    }

    /** The criticality reserves that round down to no place of B + Q. */
    private static List<String> reservesOfNoPlace(String name, WorkloadSettings settings) {
        GateConfig gate = settings.gateConfig();
        long places = (long) gate.maxConcurrent() + gate.maxQueued();
        AdmissionRules rules = gate.admissionRules();
        Map<String, Double> reserves = new LinkedHashMap<>();
        reserves.put(settings.written().criticalReserve().property(), rules.criticalReserve());
        if (rules.sheddableReserve() > rules.criticalReserve()) {
            reserves.put(settings.written().sheddableReserve().property(), rules.sheddableReserve());
        }
        List<String> findings = new ArrayList<>();
        reserves.forEach((property, reserve) -> {
            if (reserve > 0 && (long) (reserve * places) == 0) {
                findings.add("db-bulkhead workload '" + name + "': " + property + " = " + reserve + " holds back no"
                        + " place of " + B_AND_Q + " = " + places + " (rounded down): it takes a share"
                        + " of at least 1/" + places + " to hold back one.");
            }
        });
        return findings;
    }
}
