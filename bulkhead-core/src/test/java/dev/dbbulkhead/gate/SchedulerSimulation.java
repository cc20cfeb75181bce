package dev.dbbulkhead.gate;

import java.util.ArrayDeque;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Random;

/**
 * A deterministic, single-threaded run of one gate on a virtual clock: operations arrive, are admitted by the gate's
 * own entry decision ({@link AdmissionCounts#entryOf}), wait in a {@link SimulatedOrder}, take the place a release
 * frees at once (as {@link HandOffCounts} hands it over), leave when their wait runs out, or are refused at the full
 * queue unless the order lets them displace a waiter. With a lender, a waiter runs on a place the lender leaves idle,
 * and the lender's own work takes its places back first.
 *
 * <p>Two runs of one configuration — the real order and the oracle — see the same open arrivals (drawn from their own
 * stream, in the same order) and the same operation times per place (each place draws its own), so their difference is
 * the order's alone. Every invariant of the gate, and with {@code checkOrder} of the real order, is asserted as it runs.
 */
final class SchedulerSimulation {

    private static final int FREE = 0;
    private static final int DEADLINE = 1;
    private static final int OPEN_ARRIVAL = 2;
    private static final int FOLLOW_UP = 3;
    private static final int LENDER_ARRIVAL = 4;

    private record Event(long time, int kind, int key, long seq, SimulatedOperation operation)
            implements Comparable<Event> {
        @Override
        public int compareTo(Event other) {
            int byTime = Long.compare(time, other.time);
            if (byTime != 0) {
                return byTime;
            }
            int byKind = Integer.compare(kind, other.kind);
            if (byKind != 0) {
                return byKind;
            }
            // Open arrivals, one pending per flow, keep one order in both runs; the rest by scheduling.
            int byKey = kind == OPEN_ARRIVAL ? Integer.compare(key, other.key) : 0;
            return byKey != 0 ? byKey : Long.compare(seq, other.seq);
        }
    }

    private final SimulatedWorkload workload;
    private final List<SimulatedFlow> flows;
    private final SimulatedOrder order;
    private final MaxMinShares shares;
    private final boolean checkOrder;
    private final GateConfig config;
    private final SimulationResult result;
    private final PriorityQueue<Event> events = new PriorityQueue<>();
    private final Random openArrivals;
    private final Random followUps;
    private final Random lenderArrivals;
    private final Random[] placeTimes;
    private final SimulatedOperation[] onPlace;
    private final ArrayDeque<Integer> freeOwn = new ArrayDeque<>();
    private final ArrayDeque<Integer> freeLent = new ArrayDeque<>();
    private final ArrayDeque<Long> lenderQueue = new ArrayDeque<>();
    private final int[] waitingAt = new int[Criticality.values().length];
    private final int[] freshWaitingAt = new int[Criticality.values().length];
    private final int[] inProgressRun = new int[Criticality.values().length];
    /** Per criticality, the waiters of flows clearly over their share: all of them, and new requests' alone. */
    private final int[] overWaiting = new int[Criticality.values().length];
    private final int[] overFreshWaiting = new int[Criticality.values().length];
    private final boolean[] clearlyUnder;
    private final boolean[] clearlyOver;
    private final long warmup;
    private long now;
    private long seq;
    private int running;
    private int waiting;
    private int borrowed;

    private SchedulerSimulation(SimulatedWorkload workload, SimulatedOrder order, MaxMinShares shares,
                                boolean checkOrder) {
        this.workload = workload;
        this.flows = workload.flows();
        this.order = order;
        this.shares = shares;
        this.checkOrder = checkOrder;
        this.config = workload.gateConfig();
        this.warmup = workload.horizonNanos() / 10;
        this.result = new SimulationResult(flows.size(), (workload.horizonNanos() - warmup) / 1e9);
        this.openArrivals = new Random(workload.seed());
        this.followUps = new Random(workload.seed() * 31 + 1);
        this.lenderArrivals = new Random(workload.seed() * 31 + 2);
        int places = workload.maxConcurrent() + workload.lenderPlaces();
        this.placeTimes = new Random[places];
        this.onPlace = new SimulatedOperation[places];
        for (int p = 0; p < places; p++) {
            placeTimes[p] = new Random(workload.seed() * 1_000_003L + p);
            (p < workload.maxConcurrent() ? freeOwn : freeLent).push(p);
        }
        clearlyUnder = new boolean[flows.size()];
        clearlyOver = new boolean[flows.size()];
        for (int i = 0; i < flows.size(); i++) {
            clearlyUnder[i] = shares.clearlyUnder(i);
            clearlyOver[i] = shares.clearlyOver(i);
        }
    }

    /** Runs {@code order} on {@code workload}; {@code checkOrder} asserts the real order's invariants as it goes. */
    static SimulationResult run(SimulatedWorkload workload, SimulatedOrder order, MaxMinShares shares,
                                boolean checkOrder) {
        return new SchedulerSimulation(workload, order, shares, checkOrder).run();
    }

    private SimulationResult run() {
        for (int f = 0; f < flows.size(); f++) {
            SimulatedFlow flow = flows.get(f);
            if (flow.arrivals() == SimulatedFlow.ArrivalProcess.CLOSED_LOOP) {
                for (int c = 0; c < flow.clients(); c++) {
                    schedule(thinkTime(), FOLLOW_UP, f, newRequest(f, c, 0L));
                }
            } else if (flow.requestsPerSecond() > 0) {
                schedule(nextOpenArrival(flow), OPEN_ARRIVAL, f, null);
            }
        }
        if (workload.lenderPlaces() > 0) {
            schedule(nextLenderArrival(), LENDER_ARRIVAL, 0, null);
        }
        while (!events.isEmpty()) {
            Event event = events.poll();
            advanceTo(event.time());
            switch (event.kind()) {
                case FREE -> placeFreed(event.key());
                case DEADLINE -> deadline(event.operation());
                case OPEN_ARRIVAL -> openArrival(event.key());
                case FOLLOW_UP -> arrive(event.operation());
                case LENDER_ARRIVAL -> lenderArrival();
                default -> throw new IllegalStateException();
            }
            checkGate();
        }
        return result;
    }

    // ---- arrivals

    private void openArrival(int f) {
        SimulatedFlow flow = flows.get(f);
        int count = flow.arrivals() == SimulatedFlow.ArrivalProcess.BURSTS ? SimulatedFlow.ArrivalProcess.BURST : 1;
        long next = now + nextOpenArrival(flow);
        if (next < workload.horizonNanos()) {
            schedule(next, OPEN_ARRIVAL, f, null);
        }
        for (int i = 0; i < count; i++) {
            int length = 1 + openArrivals.nextInt(flow.maxOperations());
            arrive(operation(f, false, length - 1, -1));
        }
    }

    private long nextOpenArrival(SimulatedFlow flow) {
        int perArrival = flow.arrivals() == SimulatedFlow.ArrivalProcess.BURSTS ? SimulatedFlow.ArrivalProcess.BURST : 1;
        double mean = 1e9 * perArrival / flow.requestsPerSecond();
        return Math.max(1L, (long) (-Math.log(1.0 - openArrivals.nextDouble()) * mean));
    }

    private SimulatedOperation newRequest(int f, int client, long at) {
        int length = 1 + followUps.nextInt(flows.get(f).maxOperations());
        return new SimulatedOperation(f, false, length - 1, client, at, at + workload.queueWaitNanos(),
                at >= warmup && at < workload.horizonNanos());
    }

    private SimulatedOperation operation(int f, boolean inProgress, int after, int client) {
        return new SimulatedOperation(f, inProgress, after, client, now, now + workload.queueWaitNanos(),
                now >= warmup && now < workload.horizonNanos());
    }

    private long thinkTime() {
        return Math.max(1L, (long) (-Math.log(1.0 - followUps.nextDouble()) * workload.times().meanNanos()));
    }

    /** An operation asks the gate: {@link RuledEntry#admit}'s decisions, in its order. */
    private void arrive(SimulatedOperation operation) {
        if (operation.measured) {
            result.offered[operation.flow]++;
            if (!operation.inProgress) {
                result.requestsOffered[operation.flow]++;
            }
        }
        Criticality criticality = flows.get(operation.flow).criticality();
        if (workload.lenderPlaces() > 0 && running >= workload.maxConcurrent() && waiting == 0
                && !freeLent.isEmpty() && borrowed < workload.lenderPlaces()) {
            borrowed++;
            start(operation, freeLent.pop());
            return;
        }
        AdmissionCounts.Entry entry = AdmissionCounts.entryOf(running + waiting, running, config, workload.rules(),
                criticality);
        switch (entry) {
            case RUNNING -> {
                running++;
                start(operation, freeOwn.pop());
            }
            case WAITING -> {
                startWaiting(operation);
                order.add(operation);
                offerLentPlace();
            }
            case FULL, RESERVED -> {
                SimulatedOperation displaced = order.displace(operation);
                if (displaced == null) {
                    edgeRefusal(operation, "refused at the edge (" + entry + ")");
                    if (operation.measured) {
                        result.refusedAtEdge[operation.flow]++;
                    }
                    ended(operation);
                    return;
                }
                checkDisplacement(displaced, operation);
                stopWaiting(displaced);
                edgeRefusal(displaced, "displaced by flow " + flows.get(operation.flow).key());
                if (displaced.measured) {
                    result.displaced[displaced.flow]++;
                }
                ended(displaced);
                startWaiting(operation);
            }
        }
    }

    private void startWaiting(SimulatedOperation operation) {
        operation.waiting = true;
        waiting++;
        count(operation, 1);
        schedule(operation.deadline, DEADLINE, 0, operation);
    }

    private void stopWaiting(SimulatedOperation operation) {
        operation.waiting = false;
        waiting--;
        count(operation, -1);
    }

    private void count(SimulatedOperation operation, int delta) {
        int level = flows.get(operation.flow).criticality().ordinal();
        waitingAt[level] += delta;
        if (!operation.inProgress) {
            freshWaitingAt[level] += delta;
        }
        if (clearlyOver[operation.flow]) {
            overWaiting[level] += delta;
            if (!operation.inProgress) {
                overFreshWaiting[level] += delta;
            }
        }
    }

    private void deadline(SimulatedOperation operation) {
        if (!operation.waiting) {
            return;
        }
        order.remove(operation);
        stopWaiting(operation);
        if (operation.measured) {
            result.timedOut[operation.flow]++;
        }
        ended(operation);
    }

    // ---- places

    private void start(SimulatedOperation operation, int place) {
        onPlace[place] = operation;
        if (operation.measured) {
            result.served[operation.flow]++;
        }
        schedule(now + workload.times().draw(placeTimes[place]), FREE, place, null);
    }

    private void placeFreed(int place) {
        SimulatedOperation done = onPlace[place];
        onPlace[place] = null;
        boolean own = place < workload.maxConcurrent();
        if (done != null && !own) {
            borrowed--;
        }
        if (done != null) {
            completed(done);
        }
        if (own) {
            if (waiting > 0) {
                // A release hands its place straight to the waiter the order puts first.
                start(granted(), place);
            } else {
                running--;
                freeOwn.push(place);
            }
        } else {
            lentPlaceFreed(place);
        }
    }

    /** A lender's place: its own work first, then the borrower's first waiter, within the borrowing limit. */
    private void lentPlaceFreed(int place) {
        while (!lenderQueue.isEmpty() && lenderQueue.peekFirst() < now) {
            lenderQueue.pollFirst();
        }
        if (!lenderQueue.isEmpty()) {
            lenderQueue.pollFirst();
            startLender(place);
        } else if (waiting > 0 && borrowed < workload.lenderPlaces()) {
            borrowed++;
            start(granted(), place);
        } else {
            freeLent.push(place);
        }
    }

    /** {@link PoolPlaces#queuedOperation}: a lent place free when an operation queued goes to the queue's first. */
    private void offerLentPlace() {
        if (workload.lenderPlaces() > 0 && !freeLent.isEmpty() && borrowed < workload.lenderPlaces() && waiting > 0) {
            borrowed++;
            start(granted(), freeLent.pop());
        }
    }

    private SimulatedOperation granted() {
        SimulatedOperation next = order.next();
        int level = flows.get(next.flow).criticality().ordinal();
        if (checkOrder) {
            checkGrant(next, level);
        }
        stopWaiting(next);
        return next;
    }

    private void completed(SimulatedOperation done) {
        if (done.operationsAfter > 0) {
            arrive(operation(done.flow, true, done.operationsAfter - 1, done.client));
        } else {
            if (done.measured) {
                result.requestsServed[done.flow]++;
            }
            ended(done);
        }
    }

    /** A request ended, served or refused: a closed-loop client thinks, then sends its next. */
    private void ended(SimulatedOperation operation) {
        if (operation.client >= 0) {
            long at = now + thinkTime();
            if (at >= workload.horizonNanos()) {
                return;
            }
            schedule(at, FOLLOW_UP, operation.flow, newRequest(operation.flow, operation.client, at));
        }
    }

    private void lenderArrival() {
        long next = now + nextLenderArrival();
        if (next < workload.horizonNanos()) {
            schedule(next, LENDER_ARRIVAL, 0, null);
        }
        if (!freeLent.isEmpty()) {
            startLender(freeLent.pop());
        } else if (lenderQueue.size() < workload.lenderPlaces()) {
            lenderQueue.addLast(now + workload.queueWaitNanos());
        }
    }

    private void startLender(int place) {
        onPlace[place] = null;
        schedule(now + workload.times().draw(placeTimes[place]), FREE, place, null);
    }

    private long nextLenderArrival() {
        double perSecond = workload.lenderLoad() * workload.lenderPlaces() * 1e9 / workload.times().meanNanos();
        return Math.max(1L, (long) (-Math.log(1.0 - lenderArrivals.nextDouble()) * 1e9 / perSecond));
    }

    // ---- clock and measures

    private void schedule(long at, int kind, int key, SimulatedOperation operation) {
        events.add(new Event(at, kind, key, seq++, operation));
    }

    private void advanceTo(long time) {
        long from = Math.max(now, warmup);
        long to = Math.min(time, workload.horizonNanos());
        if (waiting > 0 && to > from) {
            result.placesWhileWaiting += (double) (to - from) * workload.maxConcurrent();
            result.idleWhileWaiting += (double) (to - from) * (workload.maxConcurrent() - running);
        }
        now = time;
    }

    // ---- invariants

    private void checkGate() {
        require(running <= workload.maxConcurrent(), "more than B run");
        require(running + waiting <= config.maxAdmitted(), "more than B + Q admitted");
        require(waiting == 0 || running == workload.maxConcurrent(), "a place is free while work waits");
        require(borrowed <= workload.lenderPlaces(), "more borrowed than the limit");
        require(waiting > 0 || order.isEmpty(), "the order holds waiters the gate does not count");
        if (order instanceof SchedulerOrder real) {
            require(real.flowsKnown() <= waiting + workload.rules().keySlots(), "flows remembered beyond the bound");
        }
    }

    /** The order: criticality first, in progress first within its run bound, and never a waiter past its wait. */
    private void checkGrant(SimulatedOperation next, int level) {
        for (int more = 0; more < level; more++) {
            require(waitingAt[more] == 0, "served " + flows.get(next.flow).criticality()
                    + " while more critical work waited");
        }
        require(now <= next.deadline, "served after its wait ran out");
        if (!workload.rules().inProgressFirst()) {
            return;
        }
        int inProgressWaiting = waitingAt[level] - freshWaitingAt[level];
        if (inProgressWaiting > 0 && inProgressRun[level] < WaitingWork.IN_PROGRESS_RUN) {
            require(next.inProgress, "a new request served before one in progress within the run bound");
        }
        boolean freshPassed = next.inProgress && freshWaitingAt[level] > 0;
        inProgressRun[level] = freshPassed ? inProgressRun[level] + 1 : 0;
        require(inProgressRun[level] <= WaitingWork.IN_PROGRESS_RUN, "new requests starved past the run bound");
    }

    private void checkDisplacement(SimulatedOperation displaced, SimulatedOperation newcomer) {
        Criticality lost = flows.get(displaced.flow).criticality();
        Criticality won = flows.get(newcomer.flow).criticality();
        require(lost.compareTo(won) >= 0, "a " + lost + " waiter displaced by " + won + " work");
        if (checkOrder && lost == won && workload.rules().inProgressFirst()) {
            require(!displaced.inProgress || newcomer.inProgress, "a request in progress displaced by a new one");
        }
    }

    /** A refusal of a flow clearly under its share while a flow clearly over it holds a waiting place it could take. */
    private void edgeRefusal(SimulatedOperation refused, String how) {
        if (!clearlyUnder[refused.flow] || !refused.measured) {
            return;
        }
        int level = flows.get(refused.flow).criticality().ordinal();
        boolean overHoldsAPlace = false;
        for (int l = level; l < overWaiting.length; l++) {
            boolean progressFirst = workload.rules().inProgressFirst() && !refused.inProgress && l == level;
            overHoldsAPlace |= (progressFirst ? overFreshWaiting[l] : overWaiting[l]) > 0;
        }
        if (overHoldsAPlace) {
            result.edgeViolation(String.format("at %.3fs flow %s (%.3g/s, share %.3g/s) %s while flows over their "
                            + "share held %d waiting places", now / 1e9, flows.get(refused.flow).key(),
                    shares.demand(refused.flow), shares.of(refused.flow), how, overWaiting[level]));
        }
    }

    private void require(boolean holds, String what) {
        if (!holds) {
            throw new AssertionError(what + " at " + now / 1e9 + "s; " + workload.describe());
        }
    }
}
