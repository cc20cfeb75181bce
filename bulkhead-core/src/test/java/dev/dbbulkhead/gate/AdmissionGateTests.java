package dev.dbbulkhead.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.dbbulkhead.BulkheadMisuseException;
import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.ExecutionOutcome;
import dev.dbbulkhead.MisuseKind;
import dev.dbbulkhead.RejectionReason;
import dev.dbbulkhead.testing.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The gate's permit accounting without a database: release-once, owner-only, resize without blocking. */
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang (a resize or release that blocks); no assertion depends on time
class AdmissionGateTests {

    private static AdmissionGate gate(int maxConcurrent, int maxQueued) {
        return new AdmissionGate("orders",
                GateConfig.builder().maxConcurrent(maxConcurrent).maxQueued(maxQueued).build());
    }

    @Test
    void closingAPermitTwiceReleasesItOnce() {
        AdmissionGate gate = gate(2, 1);
        Permit permit = gate.acquire();

        permit.close();
        permit.close();

        assertThat(permit.isReleased()).isTrue();
        assertThat(gate.availableExecutionPermits()).isEqualTo(2);
        assertThat(gate.availableAdmissionPermits()).isEqualTo(3);
    }

    @Test
    void anotherThreadCannotReleaseAPermitAndItStaysHeld() throws Exception {
        AdmissionGate gate = gate(1, 0);
        Permit permit = gate.acquire();

        Throwable fromOtherThread = CompletableFuture.supplyAsync(() -> {
            try {
                permit.close();
                return null;
            } catch (IllegalStateException refused) {
                return refused;
            }
        }, command -> Thread.ofVirtual().start(command)).get();

        assertThat(fromOtherThread).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("may only be released by that thread");
        assertThat(permit.isReleased()).isFalse();
        assertThat(gate.availableExecutionPermits()).isZero();
        permit.close();
        assertThat(gate.availableExecutionPermits()).isEqualTo(1);
    }

    @Test
    void theGateIsNotReentrantAcrossGates() {
        AdmissionGate orders = gate(2, 0);
        AdmissionGate reports = gate(2, 0);
        try (Permit held = orders.acquire()) {
            BulkheadMisuseException misuse = catchThrowableOfType(BulkheadMisuseException.class, reports::acquire);

            assertThat(misuse.kind()).isEqualTo(MisuseKind.REENTRANT_ENTRY);
            assertThat(reports.availableExecutionPermits()).isEqualTo(2);
        }
        try (Permit again = orders.acquire()) {
            assertThat(again.isReleased()).isFalse();
        }
    }

    @Test
    void rejectionsCarryNoStackTraceUnlessAskedAndBuildTheirMessageOnDemand() throws Exception {
        AdmissionGate stackless = gate(1, 0);
        AdmissionGate withTraces = new AdmissionGate("reports",
                GateConfig.builder().maxConcurrent(1).captureStackTrace(true).build());
        List<BulkheadRejectedException> rejections = new ArrayList<>();
        try (HeldElsewhere a = HeldElsewhere.acquire(stackless, 1)) {
            rejections.add(catchThrowableOfType(BulkheadRejectedException.class, stackless::acquire));
        }
        try (HeldElsewhere b = HeldElsewhere.acquire(withTraces, 1)) {
            rejections.add(catchThrowableOfType(BulkheadRejectedException.class, withTraces::acquire));
        }

        assertThat(rejections.get(0).getStackTrace()).isEmpty();
        assertThat(rejections.get(0)).hasMessage("Bulkhead 'orders' is full: no admission permit left, rejected at once");
        assertThat(rejections.get(1).getStackTrace()).isNotEmpty();
        assertThat(rejections.get(1).reason()).isEqualTo(RejectionReason.ADMISSION_FULL);
    }

    @Test
    void growingTakesEffectAtOnce() throws Exception {
        AdmissionGate gate = gate(1, 0);
        try (HeldElsewhere first = HeldElsewhere.acquire(gate, 1)) {
            assertThat(catchThrowableOfType(BulkheadRejectedException.class, gate::acquire).reason())
                    .isEqualTo(RejectionReason.ADMISSION_FULL);

            gate.resize(2, 1);

            try (Permit second = gate.acquire()) {
                assertThat(gate.active()).isEqualTo(2);
                assertThat(gate.availableAdmissionPermits()).as("room for one waiter").isEqualTo(1);
            }
        }
        assertThat(gate.config().maxConcurrent()).isEqualTo(2);
        assertThat(gate.config().maxQueued()).isEqualTo(1);
    }

    @Test
    void shrinkingNeverBlocksAndNewAdmissionsObeyTheNewLimitsWhileRunningWorkDrains() throws Exception {
        AdmissionGate gate = gate(3, 0);
        try (HeldElsewhere running = HeldElsewhere.acquire(gate, 3)) {

            gate.resize(1, 0);

            assertThat(gate.availableExecutionPermits()).as("a debt of two").isEqualTo(-2);
            assertThat(gate.active()).as("running work undisturbed").isEqualTo(3);
            assertThat(catchThrowableOfType(BulkheadRejectedException.class, gate::acquire).reason())
                    .isEqualTo(RejectionReason.ADMISSION_FULL);
        }
        assertThat(gate.availableExecutionPermits()).isEqualTo(1);
        assertThat(gate.availableAdmissionPermits()).isEqualTo(1);
        try (HeldElsewhere afterDrain = HeldElsewhere.acquire(gate, 1)) {
            assertThat(catchThrowableOfType(BulkheadRejectedException.class, gate::acquire).reason())
                    .as("the new limit of one").isEqualTo(RejectionReason.ADMISSION_FULL);
        }
    }

    /**
     * The releasing thread, hot on its CPU, asks again at once while the parked waiter is still being woken: the one
     * case where a fast path that ignored the queue would barge. Repeated, because each round is one chance.
     */
    @Test
    void aNewcomerNeverOvertakesAParkedWaiterWhenAPermitFrees() throws Exception {
        AdmissionGate gate = new AdmissionGate("orders",
                GateConfig.builder().maxConcurrent(1).maxQueued(1).queueWait(Duration.ofHours(1)).build());
        for (int round = 0; round < 200; round++) {
            List<String> admissions = new CopyOnWriteArrayList<>();
            CountDownLatch holding = new CountDownLatch(1);
            CountDownLatch letGo = new CountDownLatch(1);
            Thread releaser = Thread.ofVirtual().start(() -> {
                try (Permit first = gate.acquire()) {
                    holding.countDown();
                    letGo.await();
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
                try (Permit again = gate.acquire()) {
                    admissions.add("newcomer");
                }
            });
            holding.await();
            Thread waiter = Thread.ofVirtual().start(() -> {
                try (Permit permit = gate.acquire()) {
                    admissions.add("waiter");
                }
            });
            Await.until("the waiter parked", () -> gate.queueLength() == 1);

            letGo.countDown();
            releaser.join();
            waiter.join();

            assertThat(admissions).as("round " + round).containsExactly("waiter", "newcomer");
            assertThat(gate.active() + gate.waiting()).isZero();
        }
    }

    /** The gates of each discipline, one slot, one queue place: arrival order, CoDel, and the order of rules. */
    static List<GateConfig> oneSlotGatesOfEachDiscipline() {
        GateConfig.Builder oneSlot = GateConfig.builder().maxConcurrent(1).maxQueued(1).queueWait(Duration.ofHours(1));
        return List.of(oneSlot.build(),
                oneSlot.queueDiscipline(QueueDiscipline.CODEL).queueTargetDelay(Duration.ofMinutes(1))
                        .queueInterval(Duration.ofMinutes(1)).build(),
                GateConfig.builder().maxConcurrent(1).maxQueued(1).queueWait(Duration.ofHours(1))
                        .admissionRules(AdmissionRules.builder().inProgressFirst(true).build()).build());
    }

    /**
     * The hand-over: a thread that frees the slot a parked waiter is woken for goes on only once the waiter runs, so
     * the slot never sits empty while the woken waiter waits for a processor (the fast path is closed to newcomers
     * while anyone waits). The waiter has run once it no longer parks on the gate's counts. Repeated, because each
     * round is one chance to run ahead.
     */
    @ParameterizedTest
    @MethodSource("oneSlotGatesOfEachDiscipline")
    void aReleaseReturnsOnlyOnceTheWokenWaiterRuns(GateConfig config) throws Exception {
        AdmissionGate gate = new AdmissionGate("orders", config);
        for (int round = 0; round < 50; round++) {
            CountDownLatch holding = new CountDownLatch(1);
            CountDownLatch letGo = new CountDownLatch(1);
            CountDownLatch waiterMayLeave = new CountDownLatch(1);
            AtomicReference<Object> waiterParkedOnReturn = new AtomicReference<>();
            Thread[] waiter = new Thread[1];
            Thread releaser = Thread.ofPlatform().start(() -> {
                try (Permit first = gate.acquire()) {
                    holding.countDown();
                    letGo.await();
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
                waiterParkedOnReturn.set(LockSupport.getBlocker(waiter[0]));
            });
            holding.await();
            waiter[0] = Thread.ofPlatform().start(() -> {
                try (Permit permit = gate.acquire()) {
                    waiterMayLeave.await();
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
            });
            Await.until("the waiter parked", () -> gate.queueLength() == 1
                    && LockSupport.getBlocker(waiter[0]) instanceof AdmissionCounts);

            letGo.countDown();
            releaser.join();

            assertThat(waiterParkedOnReturn.get() instanceof AdmissionCounts)
                    .as("the waiter still parked on the gate when the release returned, round " + round).isFalse();
            waiterMayLeave.countDown();
            waiter[0].join();
            assertThat(gate.active() + gate.waiting()).isZero();
        }
    }

    @Test
    void anInterruptedThreadIsRefusedEvenWithPermitsFree() {
        AdmissionGate gate = gate(2, 0);

        Thread.currentThread().interrupt();
        BulkheadRejectedException refused = catchThrowableOfType(BulkheadRejectedException.class, gate::acquire);
        boolean flagKept = Thread.interrupted();

        assertThat(refused.reason()).isEqualTo(RejectionReason.INTERRUPTED);
        assertThat(flagKept).as("interrupt flag set again").isTrue();
        assertThat(gate.availableExecutionPermits()).isEqualTo(2);
        assertThat(gate.availableAdmissionPermits()).isEqualTo(2);
        try (Permit afterwards = gate.acquire()) {
            assertThat(gate.active()).isEqualTo(1);
        }
    }

    /**
     * Each listener call on the interrupted caller's thread is a moment inside its refusal: a normal caller that
     * arrives then, on an empty B = 1, Q = 0 gate, must be admitted, so the interrupted caller held no place.
     */
    @Test
    void anInterruptedCallerNeverHoldsAPlaceAnotherCallerIsRefusedFor() throws Exception {
        List<String> othersArrivingMeanwhile = new CopyOnWriteArrayList<>();
        AdmissionGate[] gate = new AdmissionGate[1];
        Runnable anotherCallerArrives = () -> {
            if (Thread.currentThread().isInterrupted()) {
                othersArrivingMeanwhile.add(onAnotherThread(() -> admittedOrReason(gate[0])));
            }
        };
        gate[0] = new AdmissionGate("orders", GateConfig.builder().maxConcurrent(1).maxQueued(0).build(),
                new GateListener() {
                    @Override
                    public void onWaitStarted(String workload) {
                        anotherCallerArrives.run();
                    }

                    @Override
                    public void onRejected(String workload, RejectionReason reason, long queueWaitNanos) {
                        anotherCallerArrives.run();
                    }
                });

        Thread.currentThread().interrupt();
        BulkheadRejectedException refused = catchThrowableOfType(BulkheadRejectedException.class, gate[0]::acquire);
        boolean flagKept = Thread.interrupted();

        assertThat(refused.reason()).isEqualTo(RejectionReason.INTERRUPTED);
        assertThat(flagKept).isTrue();
        assertThat(othersArrivingMeanwhile).as("callers arriving during the refusal").isNotEmpty()
                .containsOnly("admitted");
        assertThat(gate[0].active() + gate[0].waiting()).isZero();
    }

    @Test
    void anInterruptedCallerIsToldInterruptedWhateverTheStateOfTheGate() throws Exception {
        GateConfig oneRunningOneQueued = GateConfig.builder().maxConcurrent(1).maxQueued(1)
                .queueWait(Duration.ofHours(1)).build();
        GateListener timing = new GateListener() {
        };
        for (GateListener listener : List.of(GateListener.NONE, timing)) {
            AdmissionGate gate = new AdmissionGate("orders", oneRunningOneQueued, listener);
            assertThat(reasonWhenInterrupted(gate::acquire)).as("empty").isEqualTo(RejectionReason.INTERRUPTED);
            try (HeldElsewhere running = HeldElsewhere.acquire(gate, 1)) {
                assertThat(reasonWhenInterrupted(gate::acquire)).as("B taken")
                        .isEqualTo(RejectionReason.INTERRUPTED);
                HeldElsewhere queued = HeldElsewhere.start(gate, 1);
                Await.until("the queue full", () -> gate.queueLength() == 1);
                assertThat(reasonWhenInterrupted(gate::acquire)).as("B + Q taken")
                        .isEqualTo(RejectionReason.INTERRUPTED);
                assertThat(reasonWhenInterrupted(() -> gate.acquireWithin(Duration.ofMinutes(1))))
                        .as("B + Q taken, within a budget").isEqualTo(RejectionReason.INTERRUPTED);
                running.close();
                queued.close();
            }
            assertThat(gate.active() + gate.waiting()).isZero();
        }
    }

    /** A refusal is told only once the refused caller holds nothing: what a listener sees of the gate then. */
    @Test
    void listenersHearOfARefusalOnlyOnceItsPlacesAreGivenBack() throws Exception {
        List<String> seenWhenTold = new CopyOnWriteArrayList<>();
        AtomicBoolean spendTheBudget = new AtomicBoolean(true);
        long budgetNanos = TimeUnit.MILLISECONDS.toNanos(1);
        AdmissionGate[] gate = new AdmissionGate[1];
        HeldElsewhere[] holder = new HeldElsewhere[1];
        gate[0] = new AdmissionGate("orders", GateConfig.builder().maxConcurrent(1).maxQueued(1)
                .queueWait(Duration.ofHours(1)).build(), new GateListener() {
                    @Override
                    public void onWaitStarted(String workload) {
                        if (spendTheBudget.getAndSet(false)) {
                            // The first caller queues behind the holder with a 1 ms budget: spend it, then let the
                            // holder go, so that the caller finds the permit free at once — too late.
                            long start = System.nanoTime();
                            Await.until("the budget spent", () -> System.nanoTime() - start > budgetNanos);
                            try {
                                holder[0].close();
                            } catch (InterruptedException interrupted) {
                                throw new IllegalStateException(interrupted);
                            }
                        }
                    }

                    @Override
                    public void onRejected(String workload, RejectionReason reason, long queueWaitNanos) {
                        seenWhenTold.add(reason + " active=" + gate[0].active() + " waiting=" + gate[0].waiting());
                    }
                });

        holder[0] = HeldElsewhere.acquire(gate[0], 1);
        assertThat(catchThrowableOfType(BulkheadRejectedException.class,
                () -> gate[0].acquireWithin(Duration.ofNanos(budgetNanos))).reason())
                .as("the budget spent once running").isEqualTo(RejectionReason.QUEUE_TIMEOUT);
        try (HeldElsewhere running = HeldElsewhere.acquire(gate[0], 1)) {
            assertThat(catchThrowableOfType(BulkheadRejectedException.class,
                    () -> gate[0].acquireWithin(Duration.ofNanos(1))).reason())
                    .as("no wait left").isEqualTo(RejectionReason.QUEUE_TIMEOUT);
            CompletableFuture<RejectionReason> interrupted = new CompletableFuture<>();
            Thread waiter = Thread.ofVirtual().start(() -> interrupted.complete(
                    catchThrowableOfType(BulkheadRejectedException.class, gate[0]::acquire).reason()));
            Await.until("the waiter parked", () -> gate[0].queueLength() == 1);
            waiter.interrupt();
            assertThat(interrupted.get()).isEqualTo(RejectionReason.INTERRUPTED);
        }

        assertThat(seenWhenTold).containsExactly("QUEUE_TIMEOUT active=0 waiting=0",
                "QUEUE_TIMEOUT active=1 waiting=0", "INTERRUPTED active=1 waiting=0");
    }

    private static RejectionReason reasonWhenInterrupted(Supplier<Permit> entry) {
        Thread.currentThread().interrupt();
        try {
            BulkheadRejectedException refused = catchThrowableOfType(BulkheadRejectedException.class, entry::get);
            assertThat(Thread.currentThread().isInterrupted()).as("interrupt flag set again").isTrue();
            return refused == null ? null : refused.reason();
        } finally {
            Thread.interrupted();
        }
    }

    /** Enters {@code gate} once and leaves at once: "admitted", or the reason of the refusal. */
    static String admittedOrReason(AdmissionGate gate) {
        try (Permit permit = gate.acquire()) {
            return "admitted";
        } catch (BulkheadRejectedException refused) {
            return refused.reason().name();
        }
    }

    /** Runs {@code task} on a thread of its own, started from none that holds a permit, and returns its result. */
    static <T> T onAnotherThread(Supplier<T> task) {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> result.complete(task.get()));
        return result.join();
    }

    @Test
    void growingHandsTheNewRoomToParkedWaiters() throws Exception {
        AdmissionGate gate = new AdmissionGate("orders",
                GateConfig.builder().maxConcurrent(1).maxQueued(2).queueWait(Duration.ofHours(1)).build());
        try (HeldElsewhere first = HeldElsewhere.acquire(gate, 1);
             HeldElsewhere waiters = HeldElsewhere.start(gate, 2)) {
            Await.until("two waiters parked", () -> gate.queueLength() == 2);

            gate.resize(3, 0);

            waiters.awaitHolding();
            assertThat(gate.active()).isEqualTo(3);
            assertThat(gate.waiting()).isZero();
        }
        assertThat(gate.availableExecutionPermits()).isEqualTo(3);
    }

    @Test
    void resizingOneLimitKeepsTheOtherAsItIsAtThatMoment() {
        AdmissionGate gate = gate(2, 1);

        gate.resizeConcurrent(3);
        assertThat(gate.config().maxConcurrent()).isEqualTo(3);
        assertThat(gate.config().maxQueued()).isEqualTo(1);

        gate.resizeQueued(5);
        assertThat(gate.config().maxConcurrent()).isEqualTo(3);
        assertThat(gate.config().maxQueued()).isEqualTo(5);

        assertThatIllegalArgumentException().isThrownBy(() -> gate.resizeQueued(-1))
                .withMessageContaining("maxQueued (Q)").withMessageContaining("-1");
        assertThatIllegalArgumentException().isThrownBy(() -> gate.resizeConcurrent(Integer.MAX_VALUE))
                .withMessageContaining("maxConcurrent (B) + maxQueued (Q)");
        assertThat(gate.config().maxConcurrent()).isEqualTo(3);
        assertThat(gate.config().maxQueued()).isEqualTo(5);
        assertThat(gate.availableAdmissionPermits()).isEqualTo(8);
    }

    @Test
    void resizeRefusesOutOfRangeValuesAndKeepsTheOldLimits() {
        AdmissionGate gate = gate(2, 2);

        assertThatIllegalArgumentException().isThrownBy(() -> gate.resize(0, 2)).withMessageContaining("was 0");
        assertThatIllegalArgumentException().isThrownBy(() -> gate.resize(Integer.MAX_VALUE, 1))
                .withMessageContaining("2147483647 + 1");

        assertThat(gate.config().maxConcurrent()).isEqualTo(2);
        assertThat(gate.availableAdmissionPermits()).isEqualTo(4);
    }

    @Test
    void blankWorkloadNamesAreRefused() {
        assertThatThrownBy(() -> new AdmissionGate(" ", GateConfig.defaults()))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("workload name must not be blank, was ' '");
    }

    @Test
    void aListenerHearsAdmissionsRejectionsAndReleases() throws Exception {
        List<String> heard = new CopyOnWriteArrayList<>();
        AdmissionGate gate = new AdmissionGate("orders", GateConfig.builder().maxConcurrent(1).build(),
                new GateListener() {
                    @Override
                    public void onWaitStarted(String workload) {
                        heard.add("waiting " + workload);
                    }

                    @Override
                    public void onAdmitted(String workload, long queueWaitNanos) {
                        heard.add("admitted " + workload);
                    }

                    @Override
                    public void onRejected(String workload, RejectionReason reason, long queueWaitNanos) {
                        heard.add("rejected " + reason);
                    }

                    @Override
                    public void onReleased(String workload, ExecutionOutcome outcome, long heldNanos) {
                        heard.add("released " + workload + " " + outcome);
                    }
                });

        try (HeldElsewhere running = HeldElsewhere.acquire(gate, 1)) {
            catchThrowableOfType(BulkheadRejectedException.class, gate::acquire);
        }

        // The holder finds a permit free: it never waits. The refused caller never starts a wait: a full gate lets
        // nothing wait.
        assertThat(heard).as("nothing waited").containsExactly("admitted orders", "rejected ADMISSION_FULL",
                "released orders FAILED");
    }

    @Test
    void aCompositeTellsEachListenerInOrderAndAWaitStartsOnlyForAdmittedOperations() throws Exception {
        List<String> heard = new CopyOnWriteArrayList<>();
        AdmissionGate gate = new AdmissionGate("orders", GateConfig.builder().maxConcurrent(1).maxQueued(1)
                .queueWait(Duration.ofHours(1)).build(),
                GateListener.composite(List.of(new Recording("first", heard), GateListener.NONE,
                        new Recording("second", heard))));
        HeldElsewhere running = HeldElsewhere.acquire(gate, 1);
        HeldElsewhere queued = null;
        try {
            heard.clear();
            // B is taken and a budget of 1 ns leaves no wait: the one queue place is taken, and given up at once.
            assertThat(catchThrowableOfType(BulkheadRejectedException.class,
                    () -> gate.acquireWithin(Duration.ofNanos(1))).reason()).isEqualTo(RejectionReason.QUEUE_TIMEOUT);
            assertThat(heard).containsExactly("first waiting", "second waiting",
                    "first rejected QUEUE_TIMEOUT", "second rejected QUEUE_TIMEOUT");

            queued = HeldElsewhere.start(gate, 1);
            Await.until("the second parked", () -> gate.queueLength() == 1);
            heard.clear();
            // B + Q are taken: refused at once, and no wait starts for what was never admitted.
            assertThat(catchThrowableOfType(BulkheadRejectedException.class, gate::acquire).reason())
                    .isEqualTo(RejectionReason.ADMISSION_FULL);
            assertThat(heard).containsExactly("first rejected ADMISSION_FULL", "second rejected ADMISSION_FULL");
        } finally {
            running.close();
            if (queued != null) {
                queued.close();
            }
        }
        assertThat(GateListener.composite(List.of())).isSameAs(GateListener.NONE);
        Recording only = new Recording("only", heard);
        assertThat(GateListener.composite(List.of(GateListener.NONE, only))).isSameAs(only);
    }

    private record Recording(String name, List<String> heard) implements GateListener {

        @Override
        public void onWaitStarted(String workload) {
            heard.add(name + " waiting");
        }

        @Override
        public void onRejected(String workload, RejectionReason reason, long queueWaitNanos) {
            heard.add(name + " rejected " + reason);
        }
    }
}
