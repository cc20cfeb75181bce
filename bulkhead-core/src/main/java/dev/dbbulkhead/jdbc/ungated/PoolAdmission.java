package dev.dbbulkhead.jdbc.ungated;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.Permit;
import dev.dbbulkhead.gate.WorkloadBinding;
import dev.dbbulkhead.jdbc.ConnectionRequest;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Admission where connections are taken: every connection of a watched pool asked for outside an admitted operation
 * is admitted first, by the gate of the workload its unit of work belongs to, and holds that place until it is closed —
 * so the transaction that takes it is admitted before it begins, wherever the application's annotations are. The
 * workload is, in this order:
 * <ol>
 *   <li>the one bound to the thread where its unit of work began ({@link WorkloadBinding}: an HTTP rule, a task);</li>
 *   <li>the first of the {@link WorkRules} its stack matches (a caller's package or class, a scheduled method);</li>
 *   <li>the default workload, which also reports the call site ({@link UngatedConnectionDetector}) as work only the
 *       default caught.</li>
 * </ol>
 * Work the application runs outside the gates by design — {@link UngatedWork#allow}, recognised infrastructure such
 * as migrations — is not admitted, nor is what is borrowed before the gates open ({@link #gatesOpen()}): an
 * application's start-up, whose borrows are only watched.
 *
 * <p>A thread inside an admitted operation (an annotated method, a template, a connection admitted here) takes its
 * connections as part of that operation: never refused as a misuse, and never waiting for a second place. A second
 * connection taken while a connection admitted here is still out — a {@code REQUIRES_NEW} transaction nested in the
 * first — is asked of the pool with the {@code nested} request, which must not wait for a connection (a pool with none
 * free refuses it at once): a thread holding a place and a connection never waits for another, so no set of such
 * threads can wait on each other for the pool.
 */
public final class PoolAdmission {

    private static final WorkRules.Classified UNCLASSIFIED = new WorkRules.Classified(-1, null);

    private final Function<String, @Nullable AdmissionGate> gates;
    private final String defaultWorkload;
    private final WorkRules rules;
    private final ConnectionRequest nested;
    private final LongAdder[] byRule;
    /** By workload name: bounded by the workloads, which are fixed. */
    private final Map<String, LongAdder> byBinding = new ConcurrentHashMap<>();
    private final LongAdder byDefault = new LongAdder();
    private final LongAdder nestedBorrows = new LongAdder();
    private final JobRefusals jobRefusals;
    /** Set once the gates have opened; they never close again. */
    private volatile boolean open;

    /**
     * @param gates           the gate of each workload by name, or {@code null} for every one until the gates open;
     *                        asked on each admission, so it should be cheap
     * @param defaultWorkload the workload of a borrow nothing else classified
     * @param rules           the rules read on the stack, and the schedulers' runners whose jobs are named
     * @param nested          how a second connection of a thread holding one admitted here is asked for: at once
     * @param jobRefusals     where the refused runs of scheduled jobs are counted and first told; may be shared by
     *                        the admissions of several pools
     */
    public PoolAdmission(Function<String, @Nullable AdmissionGate> gates, String defaultWorkload, WorkRules rules,
                         ConnectionRequest nested, JobRefusals jobRefusals) {
        this.jobRefusals = Objects.requireNonNull(jobRefusals, "jobRefusals");
        this.gates = Objects.requireNonNull(gates, "gates");
        this.defaultWorkload = Objects.requireNonNull(defaultWorkload, "defaultWorkload");
        this.rules = Objects.requireNonNull(rules, "rules");
        this.nested = Objects.requireNonNull(nested, "nested");
        this.byRule = new LongAdder[rules.rules().size()];
        for (int i = 0; i < byRule.length; i++) {
            byRule[i] = new LongAdder();
        }
    }

    /**
     * Takes a connection of {@code pool} asked for as {@code how} asks, admitted as the class description says.
     *
     * @throws BulkheadRejectedException when the workload's gate refuses it; nothing was taken from the pool
     * @throws UngatedConnectionException when the detector refuses what only the default caught ({@code fail} mode)
     */
    Connection borrow(DataSource pool, ConnectionRequest how, UngatedConnectionDetector detector)
            throws SQLException {
        if (AdmissionGate.isCurrentThreadAdmitted()) {
            if (AdmissionGate.currentThreadHoldsBorrowPlace()) {
                nestedBorrows.increment();
                return nested.connect(pool);
            }
            return how.connect(pool);
        }
        Permit permit = admit(detector);
        if (permit == null) {
            return how.connect(pool);
        }
        boolean handedOut = false;
        try {
            Connection connection = new AdmittedConnection(how.connect(pool), permit);
            handedOut = true;
            return connection;
        } finally {
            if (!handedOut) {
                // No connection: the operation failed before it began, and its place is given back at once.
                permit.close();
            }
        }
    }

    /** The permit of the borrow's workload, or null for work that runs outside the gates by design. */
    private @Nullable Permit admit(UngatedConnectionDetector detector) throws UngatedConnectionException {
        if (UngatedWork.allowedOnCurrentThread()) {
            detector.recognisedBy(UngatedWork.RULE);
            return null;
        }
        String bound = WorkloadBinding.current();
        if (bound != null) {
            byBinding.computeIfAbsent(bound, any -> new LongAdder()).increment();
            return openGate(bound).acquireAtBorrow();
        }
        // One walk of the stack serves the rules and, when none matches, the call site the default reports.
        List<StackWalker.StackFrame> frames = CallerRules.stack();
        WorkRules.Classified classified = rules.isEmpty() ? UNCLASSIFIED : rules.classify(frames);
        if (classified.rule() >= 0) {
            byRule[classified.rule()].increment();
            return admit(rules.rules().get(classified.rule()).workload(), classified.job());
        }
        CallerRules.Verdict verdict = detector.settings().rules().judge(frames);
        if (verdict.recognisedBy() != null) {
            detector.recognisedBy(verdict.recognisedBy());
            return null;
        }
        byDefault.increment();
        detector.caughtByDefault(verdict, defaultWorkload, rules);
        return admit(defaultWorkload, classified.job());
    }

    /**
     * The permit of {@code workload}'s gate for a borrow of {@code job}'s run, if it is a scheduled one: a refusal of
     * its connection skips the run, which is counted for the job and first told to the listener.
     */
    private Permit admit(String workload, @Nullable String job) {
        try {
            return openGate(workload).acquireAtBorrow();
        } catch (BulkheadRejectedException refused) {
            if (job != null) {
                jobRefusals.refused(job, refused);
            }
            throw refused;
        }
    }

    /**
     * Whether the gates are open: from the first time the default workload's gate is had. Until then — while an
     * application's beans are made — a borrow is only watched, as without admission: asking for a gate then could
     * make the beans that make it, the very one that borrows among them.
     */
    boolean gatesOpen() {
        if (!open && gates.apply(defaultWorkload) != null) {
            open = true;
        }
        return open;
    }

    /** The gate of {@code workload}, once the gates are open. */
    private AdmissionGate openGate(String workload) {
        return Objects.requireNonNull(gates.apply(workload), workload);
    }

    /** The refused runs of scheduled jobs. */
    public JobRefusals jobRefusals() {
        return jobRefusals;
    }

    /** The workload of a borrow nothing else classified. */
    public String defaultWorkload() {
        return defaultWorkload;
    }

    /** The rules read on the stack. */
    public WorkRules rules() {
        return rules;
    }

    /**
     * How many borrows each way of classifying admitted so far: {@code "bound <workload>"} for the workload bound where
     * the unit began, each rule by its description, {@code "default <workload>"}; then the nested borrows, taken as
     * part of the operation that held a place.
     */
    public Map<String, Long> classified() {
        Map<String, Long> counts = new LinkedHashMap<>();
        new java.util.TreeMap<>(byBinding).forEach((workload, count) -> counts.put("bound " + workload, count.sum()));
        List<WorkRules.Rule> all = rules.rules();
        for (int i = 0; i < all.size(); i++) {
            counts.put(all.get(i).toString(), byRule[i].sum());
        }
        counts.put("default " + defaultWorkload, byDefault.sum());
        counts.put("nested", nestedBorrows.sum());
        return counts;
    }

    @Override
    public String toString() {
        return "PoolAdmission[default " + defaultWorkload + ", " + rules + "]";
    }
}
