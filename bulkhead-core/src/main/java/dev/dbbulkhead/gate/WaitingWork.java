package dev.dbbulkhead.gate;

import dev.dbbulkhead.share.WeightedShares;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * The order of a workload's waiting operations under {@link AdmissionRules}: who gets the next free place, and who
 * gives up its place when all {@code B + Q} are taken and more important work arrives. The policy only — which waiter,
 * never how a place is handed over ({@link ScheduledCounts} does that, under its lock; this class is not
 * thread-safe).
 *
 * <p>The order, first to last:
 * <ol>
 *   <li>criticality: {@link Criticality#CRITICAL} before {@link Criticality#DEFAULT} before
 *       {@link Criticality#SHEDDABLE};</li>
 *   <li>with {@link AdmissionRules#inProgressFirst()}, an operation of a request already in progress before a new
 *       request's of the same criticality — but after {@value #IN_PROGRESS_RUN} such grants in a row while a new
 *       request's waits, the next goes to the new request, so that new requests are never starved;</li>
 *   <li>the flow with the least weighted use: start-time fair queuing over {@link WeightedShares}. Each waiter's tag
 *       is where its flow's next operation starts ({@link WeightedShares#nextStart}: its flow's last finish, or, for
 *       a flow that used less than its share, no earlier than the use it may save up behind the virtual time), and
 *       its flow's finish moves on by {@link WeightedShares#usePerOperation}; the smallest tag goes first, and the
 *       virtual time follows the tags granted. A quiet flow's next few operations therefore run before a busy flow's
 *       backlog — its burst too, not only its first — and a lone flow may use every place: nobody is held back while
 *       a place is free. Each criticality, and within it requests in progress apart from new ones, keeps a virtual
 *       time of its own: a grant that went ahead of the fair order by priority moves only its own, or a flow served
 *       by priority would drag the virtual time past the backlog of the others and tag their next newcomers behind
 *       it;</li>
 *   <li>arrival.</li>
 * </ol>
 *
 * <p>At the queue's edge — every place taken — the rates flows ask at decide before their use does. Tags count what a
 * flow was granted and what it queued, not how much more it asks than it gets: a flow under its share that sent a few
 * operations together is tagged as far ahead as a busy flow's backlog, and would be refused at the full queue while the
 * busy flow's waiters keep their places. So each flow also counts its asks of late (every operation that found every
 * place busy: queued or refused, older asks fading), and a newcomer takes the place of the newest waiter of a flow
 * that asked clearly more ({@value #ASKED_CLEARLY_MORE} times, per unit of weight) among the last
 * {@value #EDGE_LOOK_BACK} of its lane — where the backlog of the flows that ask most lies — while a newcomer of a flow
 * that asked clearly more than the last waiter's is refused. Between flows that ask alike, tags decide as above.
 *
 * <p>A flow is charged for the places it gets, never for waits that end unserved: when a waiter leaves unserved,
 * its flow's later waiters are tagged again as if it had never come. Otherwise a flow whose waiters time out (the
 * heaviest, whose oldest waiters run out first) would be counted for places it never had, and held below its share.
 *
 * <p>With {@link AdmissionRules#maxRunningPerKey()}, a flow also counts the operations it runs — those granted here
 * and those that ran at once ({@link #started}), until their release names the flow ({@link #finished}) — and a flow
 * running its cap is passed over: its waiters keep their tags and are served, in the same order, once one of its
 * operations ends. Finding the next waiter then walks past the waiters of flows at their cap (at most the waiters, under
 * the gate's lock): the cost of the rule, paid only by the gates that have it.
 *
 * <p>Flows are keys held exactly, never hashed into shared slots. The state kept is bounded whatever keys callers
 * send: a flow with waiters (at most the waiters) or running operations counted (at most B), and at most
 * {@code idleFlows} flows without either that would not start where a flow never seen would — forgetting such a flow
 * only forgives it use older than the others', or gives it the little use it had not yet saved up — and what the last
 * {@code idleFlows} flows forgotten had asked, so that a busy flow forgotten between its waits comes back with its
 * asks.
 */
final class WaitingWork<T> {

    /** Grants in a row to requests in progress while a new request's operation of the same criticality waits. */
    static final int IN_PROGRESS_RUN = 3;

    /** The most waiters of one flow tagged again when one of them leaves unserved ({@link #remove}). */
    static final int RETAGGED_WAITERS = 256;

    /**
     * How far back a flow's recent use reaches, in grants: each grant weighs this much more than the one before,
     * so use older than a few hundred grants counts for little.
     */
    static final double RECENT_USE_GROWTH = 1.0 + 1.0 / 128;

    /**
     * How far back a flow's recent asks reach, in asks: longer than its use, as every operation that finds the places
     * busy is an ask — among a hundred flows a busy one's bursts would otherwise fade between them to what a quiet
     * flow's one operation weighs.
     */
    static final double RECENT_ASKS_GROWTH = 1.0 + 1.0 / 512;

    /**
     * How many times more than another a flow must have asked of late for the queue's edge to tell them apart by
     * their asks alone: below it, estimates from a few hundred asks would swap flows that ask alike by chance, and the
     * heavier of two flows over their share would lose its places to the lighter one's.
     */
    static final double ASKED_CLEARLY_MORE = 4.0;

    /** How many of a lane's last waiters the edge looks at for the flow that asked most: a bound under the lock. */
    static final int EDGE_LOOK_BACK = 16;

    private static final double RESCALE_ABOVE = 1e150;

    private static final Criticality[] MOST_CRITICAL_FIRST = Criticality.values();

    /** One flow: the operations of one key. */
    static final class Flow {
        private final String key;
        private final long cost;
        private long finish;
        /** Its use of late, per unit of weight: each grant counted at the weight of its time, older ones fading. */
        private double recentUse;
        /**
         * What it asked of late, per unit of weight: each operation that found every place busy, queued or refused,
         * counted at the weight of its time, older ones fading.
         */
        private double recentAsks;
        /** Its waiters, oldest first: the order of their tags too, as each starts where the one before finishes. */
        private final LinkedHashSet<Waiter<?>> waiters = new LinkedHashSet<>();
        /** Its operations running, counted only under a cap on them ({@link #countsRunning}). */
        private int running;
        /**
         * The lane it last joined, whose virtual time decides whether it is forgotten once its last running operation
         * ends; none if it never waited.
         */
        private @Nullable Lane<?> lastLane;

        private Flow(String key, int weight) {
            this.key = key;
            this.cost = WeightedShares.usePerOperation(weight);
        }
    }

    /** What an operation asks to wait as: its criticality, whether its request is in progress, its flow. */
    record Ticket(Criticality criticality, boolean inProgress, String key, int weight) {
    }

    /** A waiting operation, ordered by its tag and then its arrival, with what the mechanism knows it by. */
    static final class Waiter<T> implements Comparable<Waiter<T>> {
        final Ticket ticket;
        final T owner;
        private final Flow flow;
        private final long arrival;
        /** Its lane's virtual time when it came: its tag is never further below it than a flow may save up. */
        private final long floor;
        /** Its flow's finish before it came, and its tag: both change only while it is out of its lane's set. */
        private long finishBefore;
        private long tag;

        private Waiter(Ticket ticket, T owner, Flow flow, long floor, long arrival) {
            this.ticket = ticket;
            this.owner = owner;
            this.flow = flow;
            this.floor = floor;
            this.arrival = arrival;
            startAfter(flow.finish);
        }

        /** Tags it to start where its flow's use reached {@code finish}, and returns where it finishes. */
        private long startAfter(long finish) {
            finishBefore = finish;
            tag = WeightedShares.nextStart(floor, finish);
            return tag + flow.cost;
        }

        @Override
        public int compareTo(Waiter<T> other) {
            int byTag = Long.compare(tag, other.tag);
            return byTag != 0 ? byTag : Long.compare(arrival, other.arrival);
        }
    }

    /** Waiters served by tag among themselves, with the virtual time of their grants. */
    private static final class Lane<T> {
        final TreeSet<Waiter<T>> waiters = new TreeSet<>();
        long virtualTime;

        /** The first waiter whose flow runs fewer than {@code runningCap}; {@code null} when none. */
        @Nullable Waiter<T> firstServable(int runningCap) {
            if (runningCap == Integer.MAX_VALUE) {
                return waiters.isEmpty() ? null : waiters.first();
            }
            for (Waiter<T> waiter : waiters) {
                if (waiter.flow.running < runningCap) {
                    return waiter;
                }
            }
            return null;
        }
    }

    /** The waiters of one criticality: those of requests in progress apart from new requests'. */
    private static final class Level<T> {
        final Lane<T> inProgress = new Lane<>();
        final Lane<T> fresh = new Lane<>();
        int inProgressRun;

        boolean isEmpty() {
            return inProgress.waiters.isEmpty() && fresh.waiters.isEmpty();
        }

        /**
         * The next to serve among the waiters whose flow runs fewer than {@code runningCap} — in progress first, up to
         * the run bound while a new request's waits; {@code null} when there is none.
         */
        @Nullable Waiter<T> next(int runningCap) {
            Waiter<T> inProgressFirst = inProgress.firstServable(runningCap);
            Waiter<T> freshFirst = fresh.firstServable(runningCap);
            boolean inProgressTurn = inProgressFirst != null && (freshFirst == null || inProgressRun < IN_PROGRESS_RUN);
            return inProgressTurn ? inProgressFirst : freshFirst;
        }

        /** The last this level would serve: a new request's before one in progress, the largest tag first. */
        Waiter<T> last() {
            return fresh.waiters.isEmpty() ? inProgress.waiters.last() : fresh.waiters.last();
        }

        Lane<T> laneOf(Ticket ticket) {
            return ticket.inProgress() ? inProgress : fresh;
        }
    }

    private final List<Level<T>> levels = new ArrayList<>(MOST_CRITICAL_FIRST.length);
    private final Map<String, Flow> flows = new HashMap<>();
    /** Flows that had no waiter left, oldest first; an entry is stale when its flow has waiters again. */
    private final ArrayDeque<Flow> idle = new ArrayDeque<>();
    private final int idleFlows;
    /** The most operations of one flow running at once; {@link Integer#MAX_VALUE} when flows count none. */
    private final int runningCap;
    private long arrivals;
    private int size;
    /**
     * What the last {@code idleFlows} flows forgotten had asked of late, oldest first: a busy flow among thousands
     * that holds one waiting place at a time is forgotten between its waits, and would come back as if it never asked.
     */
    private final LinkedHashMap<String, Double> forgottenAsks = new LinkedHashMap<>();
    /** The weight of a grant now in {@link Flow#recentUse}; it grows with each grant instead of the old ones fading. */
    private double grantWeight = 1.0;
    /** The weight of an ask now in {@link Flow#recentAsks}, growing with each ask as {@link #grantWeight} does. */
    private double askWeight = 1.0;

    /**
     * @param idleFlows        how many flows without waiters are remembered at most
     * @param maxRunningPerKey the most operations of one flow running at once, or {@link AdmissionRules#NO_RUNNING_CAP}:
     *                         then flows count only what waits
     */
    WaitingWork(int idleFlows, int maxRunningPerKey) {
        this.idleFlows = idleFlows;
        this.runningCap = maxRunningPerKey == AdmissionRules.NO_RUNNING_CAP ? Integer.MAX_VALUE : maxRunningPerKey;
        for (int i = 0; i < MOST_CRITICAL_FIRST.length; i++) {
            levels.add(new Level<>());
        }
    }

    boolean isEmpty() {
        return size == 0;
    }

    int size() {
        return size;
    }

    /** Adds an operation that waits. */
    Waiter<T> add(Ticket ticket, T owner) {
        Flow flow = flowOf(ticket);
        Lane<T> lane = laneOf(ticket);
        flow.lastLane = lane;
        Waiter<T> waiter = new Waiter<>(ticket, owner, flow, lane.virtualTime, arrivals++);
        countAsk(flow);
        flow.finish = waiter.tag + flow.cost;
        flow.waiters.add(waiter);
        lane.waiters.add(waiter);
        size++;
        return waiter;
    }

    /**
     * The waiter to serve next, left in place; {@code null} when nobody waits, or only waiters of flows running their
     * cap.
     */
    @Nullable Waiter<T> peekNext() {
        for (Level<T> level : levels) {
            Waiter<T> next = level.isEmpty() ? null : level.next(runningCap);
            if (next != null) {
                return next;
            }
        }
        return null;
    }

    /** Whether flows count what they run: a cap on it is set. */
    boolean countsRunning() {
        return runningCap != Integer.MAX_VALUE;
    }

    /**
     * An operation of {@code ticket}'s flow that took a free place without waiting: counted as running in its flow,
     * unless its flow runs its cap already — then nothing changes and it must wait. Always true when flows count none.
     */
    boolean tryStart(Ticket ticket) {
        if (!countsRunning()) {
            return true;
        }
        Flow flow = flowOf(ticket);
        if (flow.running >= runningCap) {
            return false;
        }
        flow.running++;
        return true;
    }

    /** A running operation of flow {@code key}, counted when it started or was granted, ended. */
    void finished(String key) {
        Flow flow = flows.get(key);
        if (flow == null || flow.running == 0) {
            throw new IllegalStateException("no operation of flow '" + key + "' is counted as running");
        }
        flow.running--;
        forgetIfIdle(flow, flow.lastLane);
    }

    private Flow flowOf(Ticket ticket) {
        return flows.computeIfAbsent(ticket.key(), key -> {
            Flow flow = new Flow(key, ticket.weight());
            Double asked = forgottenAsks.remove(key);
            flow.recentAsks = asked == null ? 0.0 : asked;
            return flow;
        });
    }

    /** Takes out the waiter that is served: the virtual time moves on to its tag. */
    void granted(Waiter<T> waiter) {
        Level<T> level = levelOf(waiter.ticket);
        level.inProgressRun = waiter.ticket.inProgress() && !level.fresh.waiters.isEmpty()
                ? level.inProgressRun + 1 : 0;
        Lane<T> lane = level.laneOf(waiter.ticket);
        lane.virtualTime = Math.max(lane.virtualTime, waiter.tag);
        countGrant(waiter.flow);
        takeOut(waiter);
        if (countsRunning()) {
            waiter.flow.running++;
        }
        forgetIfIdle(waiter.flow, lane);
    }

    /**
     * Takes out a waiter that leaves unserved (timed out, interrupted, shed or pushed out): its flow's use goes back
     * to what it would be had it never come, its later waiters tagged again from where it started. A place it never
     * had is not counted against its flow, or a flow whose waiters time out or are pushed out would fall further
     * behind with each, and be held below its share. Not for a flow of more than {@value #RETAGGED_WAITERS} waiters:
     * each departure would cost its whole backlog under the gate's lock (a waiting workload's thousands), and a flow
     * with such a backlog is over its share whatever it is charged.
     */
    void remove(Waiter<T> waiter) {
        if (!takeOut(waiter)) {
            return;
        }
        Flow flow = waiter.flow;
        if (flow.waiters.size() > RETAGGED_WAITERS) {
            forgetIfIdle(flow, laneOf(waiter.ticket));
            return;
        }
        long finish = waiter.finishBefore;
        boolean later = false;
        for (Waiter<?> other : flow.waiters) {
            later |= other.arrival > waiter.arrival;
            if (later) {
                finish = retag(other, finish);
            }
        }
        flow.finish = finish;
        forgetIfIdle(flow, laneOf(waiter.ticket));
    }

    /** Tags {@code waiter} again to start after {@code finish}, out of its lane's set while its tag changes. */
    private long retag(Waiter<?> waiter, long finish) {
        @SuppressWarnings("unchecked")
        Waiter<T> mine = (Waiter<T>) waiter;
        TreeSet<Waiter<T>> lane = laneOf(mine.ticket).waiters;
        lane.remove(mine);
        long next = mine.startAfter(finish);
        lane.add(mine);
        return next;
    }

    private boolean takeOut(Waiter<T> waiter) {
        Lane<T> lane = laneOf(waiter.ticket);
        if (!lane.waiters.remove(waiter)) {
            return false;
        }
        size--;
        waiter.flow.waiters.remove(waiter);
        return true;
    }

    /**
     * The waiter that should give its place to an operation asking as {@code newcomer} when every place is taken: the
     * last one this order would serve, if the newcomer would be served before it — within their lane, the newest waiter
     * of a flow that asked clearly more than the newcomer's ({@link #ASKED_CLEARLY_MORE}) comes last; else
     * {@code null}, and the newcomer is the one to refuse: its ask is counted. A newcomer of a flow running its cap
     * displaces nobody: it could not run before its own flow's operation ends, and would take the place of a waiter that
     * may. Nothing else changes.
     */
    @Nullable Waiter<T> displacedBy(Ticket newcomer) {
        Flow own = flows.get(newcomer.key());
        Waiter<T> displaced = own != null && own.running >= runningCap ? null : servedAfter(newcomer, own);
        if (displaced == null && own != null) {
            countAsk(own);
        }
        return displaced;
    }

    /** The waiter {@link #displacedBy} names, before the newcomer's ask is counted. */
    private @Nullable Waiter<T> servedAfter(Ticket newcomer, @Nullable Flow own) {
        Waiter<T> last = null;
        for (int i = levels.size() - 1; i >= 0 && last == null; i--) {
            if (!levels.get(i).isEmpty()) {
                last = levels.get(i).last();
            }
        }
        if (last == null) {
            return null;
        }
        int byCriticality = newcomer.criticality().compareTo(last.ticket.criticality());
        if (byCriticality != 0) {
            return byCriticality < 0 ? last : null;
        }
        if (newcomer.inProgress() != last.ticket.inProgress()) {
            return newcomer.inProgress() ? last : null;
        }
        // The newcomer's lane, as the last waiter's. Asks first: a flow that asks clearly more than another is over
        // its share whatever their tags say — the tags of a quiet flow's few operations sent together count them as
        // use.
        double ownAsks = (own == null ? 0.0 : own.recentAsks)
                + askWeight * WeightedShares.usePerOperation(newcomer.weight());
        Waiter<T> ofHeavierFlow = newestOfAFlowAskingMore(laneOf(newcomer), own, ownAsks * ASKED_CLEARLY_MORE);
        if (ofHeavierFlow != null) {
            return ofHeavierFlow;
        }
        if (ownAsks > last.flow.recentAsks * ASKED_CLEARLY_MORE) {
            return null;
        }
        // Among flows that ask alike, the largest tag is the flow furthest over its share: the newcomer displaces it
        // only when its own flow is less far over. At equal tags — a flow saves up only so much, so a flow served
        // without pause and one that was quiet long enough may both start at the same place — the flow that used less
        // of late keeps the place: a tie kept by arrival alone would refuse the quiet flow's newcomer each time.
        long newcomerTag = WeightedShares.nextStart(laneOf(newcomer).virtualTime, own == null ? 0L : own.finish);
        if (newcomerTag != last.tag) {
            return newcomerTag < last.tag ? last : null;
        }
        double newcomerUse = own == null ? 0.0 : own.recentUse;
        return newcomerUse < last.flow.recentUse ? last : null;
    }

    /**
     * Among the last {@link #EDGE_LOOK_BACK} waiters of {@code lane}, the newest of the flow that asked most, if it
     * asked more than {@code than}; {@code null} when none did. A flow's waiters in a lane are ordered as they came,
     * so the first met from the end is its newest.
     */
    private @Nullable Waiter<T> newestOfAFlowAskingMore(Lane<T> lane, @Nullable Flow own, double than) {
        Waiter<T> heaviest = null;
        Iterator<Waiter<T>> fromTheEnd = lane.waiters.descendingIterator();
        for (int looked = 0; looked < EDGE_LOOK_BACK && fromTheEnd.hasNext(); looked++) {
            Waiter<T> waiter = fromTheEnd.next();
            double asked = waiter.flow.recentAsks;
            if (waiter.flow != own && asked > than && (heaviest == null || asked > heaviest.flow.recentAsks)) {
                heaviest = waiter;
            }
        }
        return heaviest;
    }

    /** Counts a grant in its flow's recent use, the older grants of every flow weighing less by as much. */
    private void countGrant(Flow flow) {
        flow.recentUse += grantWeight * flow.cost;
        grantWeight *= RECENT_USE_GROWTH;
        if (grantWeight > RESCALE_ABOVE) {
            for (Flow known : flows.values()) {
                known.recentUse /= grantWeight;
            }
            grantWeight = 1.0;
        }
    }

    /**
     * Counts an ask in its flow's recent asks, the older asks of every flow — those of the flows forgotten too —
     * weighing less by as much.
     */
    private void countAsk(Flow flow) {
        flow.recentAsks += askWeight * flow.cost;
        askWeight *= RECENT_ASKS_GROWTH;
        if (askWeight > RESCALE_ABOVE) {
            double by = askWeight;
            for (Flow known : flows.values()) {
                known.recentAsks /= by;
            }
            forgottenAsks.replaceAll((key, asked) -> asked / by);
            askWeight = 1.0;
        }
    }

    /** Why a waiter gives its place to a newcomer ({@link #displacedBy}). */
    enum Displacement { BY_CRITICALITY, BY_PROGRESS, BY_SHARE }

    /** Why {@code displaced} gave way to {@code newcomer}: more critical work, a request in progress, or a share. */
    static Displacement displacement(Waiter<?> displaced, Ticket newcomer) {
        if (newcomer.criticality() != displaced.ticket.criticality()) {
            return Displacement.BY_CRITICALITY;
        }
        return newcomer.inProgress() != displaced.ticket.inProgress() ? Displacement.BY_PROGRESS : Displacement.BY_SHARE;
    }

    /** Flows known right now, with waiters or remembered idle ones. For tests and observation. */
    int flowsKnown() {
        return flows.size();
    }

    private Level<T> levelOf(Ticket ticket) {
        return levels.get(ticket.criticality().ordinal());
    }

    private Lane<T> laneOf(Ticket ticket) {
        return levelOf(ticket).laneOf(ticket);
    }

    /**
     * A flow left without waiters, and without running operations counted, is forgotten at once when it would start
     * in {@code lastLane} — the lane of its waiter that just left, or else the one it last waited in — where a flow never
     * seen would (it saved up all it may, or used nothing), or never waited; otherwise it is remembered among the last
     * {@code idleFlows}.
     */
    private void forgetIfIdle(Flow flow, @Nullable Lane<?> lastLane) {
        if (!isIdle(flow)) {
            return;
        }
        if (lastLane == null || WeightedShares.startsAsNew(lastLane.virtualTime, flow.finish)) {
            forget(flow);
            return;
        }
        idle.addLast(flow);
        while (idle.size() > idleFlows) {
            Flow oldest = idle.pollFirst();
            if (isIdle(oldest)) {
                forget(oldest);
            }
        }
    }

    /** Forgets {@code flow}, but for its asks, kept among the last {@code idleFlows} flows' forgotten. */
    private void forget(Flow flow) {
        // A stale idle entry may name a flow forgotten already: its key is another flow's now, or nobody's.
        if (!flows.remove(flow.key, flow)) {
            return;
        }
        // Never there already: a flow's asks leave this map when it is known again (flowOf).
        forgottenAsks.put(flow.key, flow.recentAsks);
        if (forgottenAsks.size() > idleFlows) {
            forgottenAsks.remove(forgottenAsks.keySet().iterator().next());
        }
    }

    private static boolean isIdle(Flow flow) {
        return flow.waiters.isEmpty() && flow.running == 0;
    }
}
