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
import java.util.concurrent.atomic.AtomicLong;
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
 * The stack is read only where something needs it: on every such borrow when a rule reads it
 * ({@link WorkRules#readsStack()}), when the application recognises callers by it or when the detector refuses what
 * only the default caught; otherwise a borrow is classified by its thread (an executor's, a Batch step's), and the
 * default's call sites are read from each of a pool's first borrows and then from a sample ({@link StackSampling}).
 * A refused borrow whose stack was not read has it read then, to name the scheduled run it skips.
 * Work the application runs outside the gates by design — {@link UngatedWork#allow}, infrastructure marked where it
 * begins (the health endpoint, a test's transaction) or recognised on a stack read (migrations) — is not admitted,
 * nor is what is borrowed before the gates open ({@link #gatesOpen()}): an application's start-up, whose borrows are
 * only watched.
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
    private final StackSampling sampling;
    /** Whether every borrow outside an admitted operation has its stack read: a rule or the sampling asks it. */
    private final boolean readsEveryStack;
    /** The borrows counted towards {@link StackSampling#firstRead()}, contended only until then. */
    private final AtomicLong firstReads = new AtomicLong();
    /** Set once the first borrows are read: from then on {@link #firstReads} is left alone. */
    private volatile boolean pastFirstReads;
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
     * @param sampling        which borrows only the default caught have their stack read when no rule reads it and
     *                        the detector refuses none: {@link StackSampling#everyBorrow()} when something else
     *                        recognises callers by the stack (the application's allowed callers)
     */
    public PoolAdmission(Function<String, @Nullable AdmissionGate> gates, String defaultWorkload, WorkRules rules,
                         ConnectionRequest nested, JobRefusals jobRefusals, StackSampling sampling) {
        this.sampling = Objects.requireNonNull(sampling, "sampling");
        this.readsEveryStack = rules.readsStack() || sampling.readsEvery();
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
        String allowed = UngatedWork.allowedRule();
        if (allowed != null) {
            detector.recognisedBy(allowed);
            return null;
        }
        String bound = WorkloadBinding.current();
        if (bound != null) {
            byBinding.computeIfAbsent(bound, any -> new LongAdder()).increment();
            return openGate(bound).acquireAtBorrow();
        }
        if (readsEveryStack || detector.settings().refuse()) {
            return admitByStack(detector, CallerRules.stack(), 1);
        }
        WorkRules.Classified byThread = rules.classifyWithoutStack();
        if (byThread.rule() >= 0) {
            byRule[byThread.rule()].increment();
            return admit(rules.rules().get(byThread.rule()).workload(), byThread.job(), false);
        }
        int weight = readWeight();
        if (weight > 0) {
            return admitByStack(detector, CallerRules.stack(), weight);
        }
        byDefault.increment();
        detector.caughtByDefaultUnread();
        return admit(defaultWorkload, byThread.job(), false);
    }

    /**
     * The permit of a borrow whose stack was read, by the rules that read it or else by the default workload, which
     * reports its call site as standing for {@code weight} borrows; null for recognised infrastructure.
     */
    private @Nullable Permit admitByStack(UngatedConnectionDetector detector, List<StackWalker.StackFrame> frames,
                                          int weight) throws UngatedConnectionException {
        // One walk of the stack serves the rules and, when none matches, the call site the default reports.
        WorkRules.Classified classified = rules.isEmpty() ? UNCLASSIFIED : rules.classify(frames);
        if (classified.rule() >= 0) {
            byRule[classified.rule()].increment();
            return admit(rules.rules().get(classified.rule()).workload(), classified.job(), true);
        }
        CallerRules.Verdict verdict = detector.settings().rules().judge(frames);
        if (verdict.recognisedBy() != null) {
            detector.recognisedBy(verdict.recognisedBy());
            return null;
        }
        byDefault.increment();
        detector.caughtByDefault(verdict, weight, defaultWorkload, rules);
        return admit(defaultWorkload, classified.job(), true);
    }

    /**
     * How many borrows this one stands for in its call site's count when its stack is read for the report alone; 0
     * when it is not read ({@link StackSampling}).
     */
    private int readWeight() {
        if (!pastFirstReads) {
            if (firstReads.getAndIncrement() < sampling.firstRead()) {
                return 1;
            }
            pastFirstReads = true;
        }
        return sampling.picks() ? sampling.oneIn() : 0;
    }

    /**
     * The permit of {@code workload}'s gate for a borrow of {@code job}'s run, if it is a scheduled one: a refusal of
     * its connection skips the run, which is counted for the job and first told to the listener. A borrow whose stack
     * was not read ({@code stackRead} false) has it read on a refusal, to name the run: a refusal's cost, not every
     * borrow's.
     */
    private Permit admit(String workload, @Nullable String job, boolean stackRead) {
        try {
            return openGate(workload).acquireAtBorrow();
        } catch (BulkheadRejectedException refused) {
            String run = job != null || stackRead || rules.isEmpty() ? job : rules.classify(CallerRules.stack()).job();
            if (run != null) {
                jobRefusals.refused(run, refused);
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
