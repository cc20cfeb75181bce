package dev.dbbulkhead.saturation;

import dev.dbbulkhead.gate.Criticality;
import java.lang.System.Logger.Level;
import dev.dbbulkhead.WrittenDurations;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.IntConsumer;
import java.util.function.IntSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The mechanism of the limits that follow one database's saturation: at each sample of its signals it asks the
 * {@link SaturationPolicy} for the caps of the workloads it steers and applies them, and for the workloads it only
 * recommends for, estimates the B the sample's evidence points to ({@link SaturationPolicy#recommend}) and shows one
 * B over a window of those estimates ({@link Recommendation}), written when it changes. While the lock
 * is what limits ({@link SaturationPolicy#lockBound}) and it steers one workload only, it checks the policy's cut
 * against the rate of the server's writes measured at each B ({@link LockContentionClimb}). One per database, fed by
 * its {@link DatabaseSampler}.
 *
 * <p>Nothing waits on it: it runs on the sampler's thread once a sample is read, and a gate admits on the B it was
 * last given. A sample that fails or hangs feeds it nothing, so every cap holds its last value until a sample
 * succeeds. Thread-safe: samples are decided one at a time under a lock only the sampler takes.
 */
public final class SaturationLimits {

    /** What the limit does with a workload's cap. */
    public enum Mode {
        /** Applies it: the workload's B is the smaller of the B it asks for and the cap. */
        STEER,
        /**
         * Shows one B over a window of samples ({@link Recommendation}), from the B each sample's evidence points to
         * ({@link SaturationPolicy#recommend}), and leaves the workload's B alone.
         */
        RECOMMEND
    }

    /**
     * A workload the limit follows.
     *
     * @param workload    its name
     * @param mode        whether its cap is applied or only recommended
     * @param criticality the order in which saturation lowers it
     * @param floor       its lowest cap, at least 1
     * @param requested   the B it asks for now (configured, resized, or learnt by its latency limit): the highest cap;
     *                    for a recommendation, the most it may recommend
     * @param running     the operations it runs now
     * @param queued      whether operations wait for a place in it now
     * @param applyCap    caps its B; called with each new cap of a {@link Mode#STEER} workload, on the sampler's
     *                    thread; must not block
     */
    public record Governed(String workload, Mode mode, Criticality criticality, int floor, IntSupplier requested,
                           IntSupplier running, BooleanSupplier queued, IntConsumer applyCap) {

        public Governed {
            Objects.requireNonNull(workload, "workload");
            Objects.requireNonNull(mode, "mode");
            Objects.requireNonNull(criticality, "criticality");
            Objects.requireNonNull(requested, "requested");
            Objects.requireNonNull(running, "running");
            Objects.requireNonNull(queued, "queued");
            Objects.requireNonNull(applyCap, "applyCap");
            if (floor < 1) {
                throw new IllegalArgumentException("the floor of workload '" + workload + "' must be at least 1, was "
                        + floor);
            }
        }
    }

    /**
     * A workload's limit as it stands.
     *
     * @param workload    its name
     * @param mode        whether the cap is applied or only recommended
     * @param criticality the order in which saturation lowers it
     * @param floor       its lowest cap
     * @param requested   the B it asked for at the last sample
     * @param cap         the cap: applied, or the B recommended
     * @param running     what it ran at the last sample
     * @param queued      whether it queued at the last sample
     */
    public record Limit(String workload, Mode mode, Criticality criticality, int floor, int requested, int cap,
                        int running, boolean queued) {
    }

    /** How sure a recommended B is. */
    public enum Confidence {
        /**
         * Few samples support it ({@value RecommendationWindow#SURE_SAMPLES} at least are wanted), or the database was
         * never saturated at them: then it is only as much as the workload used, and more may serve as well.
         */
        LOW,
        /** At least {@value RecommendationWindow#SURE_SAMPLES} samples support it, the database saturated at some. */
        HIGH
    }

    /**
     * The B recommended for a workload ({@link Mode#RECOMMEND}) over a window of samples: the median of the B each
     * sample's evidence pointed to, moved only once it has left the middle half of them, so that a steady load shows
     * one figure.
     *
     * @param limit            the B recommended
     * @param confidence       how sure it is
     * @param samples          the samples within the window whose evidence pointed to a B
     * @param saturatedSamples of those, the samples at which the database was saturated or its locks contended
     * @param lowerQuartile    the B a quarter of those samples pointed to or below
     * @param upperQuartile    the B three quarters of them pointed to or below
     * @param window           how far back the samples reach
     */
    public record Recommendation(int limit, Confidence confidence, int samples, int saturatedSamples,
                                 int lowerQuartile, int upperQuartile, Duration window) {

        public Recommendation {
            Objects.requireNonNull(confidence, "confidence");
            Objects.requireNonNull(window, "window");
        }
    }

    /** How far back a recommendation's samples reach by default: a minute of a steady load holds one figure. */
    public static final Duration DEFAULT_RECOMMENDATION_WINDOW = Duration.ofMinutes(1);
    /** The shortest recommendation window: ten samples at the default interval. */
    public static final Duration SHORTEST_RECOMMENDATION_WINDOW = Duration.ofSeconds(10);
    /** The longest recommendation window. */
    public static final Duration LONGEST_RECOMMENDATION_WINDOW = Duration.ofHours(1);

    /** The least time between two lines about the database's state. */
    static final long LOG_INTERVAL_NANOS = 10_000_000_000L;
    /**
     * The samples from the one at which the database turned saturated within which a surge from outside, once read as
     * such, is taken to have begun there. The first samples of a surge may read as this instance's own: the other
     * client's sessions are not all running at the instant of a sample, while this instance's count holds every
     * operation with a place, between its statements too.
     */
    static final int SURGE_ONSET_SAMPLES = 3;

    private final SaturationPolicy policy;
    private final List<Governed> governed;
    private final System.Logger log;
    private final ReentrantLock deciding = new ReentrantLock();
    /**
     * The measured climb of the one steered workload under lock contention; null when several are steered, whose
     * share of the server's writes cannot be told apart, or none. Guarded by {@link #deciding}.
     */
    private final @Nullable LockContentionClimb climb;
    /** Each cap when work from outside began to saturate the database, 0 for none; guarded by {@link #deciding}. */
    private final int[] beforeSurge;
    /** Each cap at the sample before the database last turned saturated; guarded by {@link #deciding}. */
    private final int[] beforeSaturation;
    /**
     * The samples since the database last turned saturated while it stayed saturated or busy, -1 once it was neither;
     * guarded by {@link #deciding}.
     */
    private int samplesSinceSaturated = -1;
    /**
     * The rates of writes the climb remembers, by B, after the last sample; empty without a climb. Written under
     * {@link #deciding}.
     */
    private volatile SortedMap<Integer, Double> measuredWrites = Collections.emptySortedMap();
    /** Every workload's limit, its cap included, in the order of {@link #governed}; written under {@link #deciding}. */
    private volatile List<Limit> limits;
    private volatile SaturationPolicy.@Nullable Reading lastReading;
    /** When a change was last written, and the changes held back since; guarded by {@link #deciding}. */
    private long lastLoggedAtNanos;
    private int changesNotLogged;
    /** The window of each recommended workload, by name; each guarded by {@link #deciding}. */
    private final Map<String, RecommendationWindow> windows;
    /** Each recommended workload's recommendation once it has one, by name; written under {@link #deciding}. */
    private final Map<String, Recommendation> recommendations = new ConcurrentHashMap<>();

    /**
     * @param policy   decides the caps
     * @param governed the workloads to follow; each starts capped at the B it asks for now, at least its floor
     * @param log      where a change of the database's state is written (info), with its evidence
     */
    SaturationLimits(SaturationPolicy policy, List<Governed> governed, System.Logger log) {
        this(policy, governed, log, DEFAULT_RECOMMENDATION_WINDOW);
    }

    /**
     * @param policy               decides the caps
     * @param governed             the workloads to follow; each starts capped at the B it asks for now, at least its
     *                             floor
     * @param log                  where a change of the database's state (info), with its evidence, and of a
     *                             recommended B (info) are written
     * @param recommendationWindow how far back the samples behind a recommended B reach; from 10s to 1h
     */
    public SaturationLimits(SaturationPolicy policy, List<Governed> governed, System.Logger log,
                            Duration recommendationWindow) {
        Objects.requireNonNull(recommendationWindow, "recommendationWindow");
        if (recommendationWindow.compareTo(SHORTEST_RECOMMENDATION_WINDOW) < 0
                || recommendationWindow.compareTo(LONGEST_RECOMMENDATION_WINDOW) > 0) {
            throw new IllegalArgumentException("the recommendation window must be between 10s and 1h, was "
                    + recommendationWindow);
        }
        this.policy = Objects.requireNonNull(policy, "policy");
        this.governed = List.copyOf(governed);
        this.log = Objects.requireNonNull(log, "log");
        this.beforeSurge = new int[this.governed.size()];
        this.beforeSaturation = new int[this.governed.size()];
        this.climb = this.governed.stream().filter(workload -> workload.mode() == Mode.STEER).count() == 1
                ? new LockContentionClimb() : null;
        List<Limit> initial = new ArrayList<>();
        for (Governed workload : this.governed) {
            int requested = workload.requested().getAsInt();
            initial.add(limit(workload, requested, Math.max(workload.floor(), requested), 0, false));
        }
        this.limits = List.copyOf(initial);
        Map<String, RecommendationWindow> recommended = new LinkedHashMap<>();
        this.governed.stream().filter(workload -> workload.mode() == Mode.RECOMMEND)
                .forEach(workload -> recommended.put(workload.workload(),
                        new RecommendationWindow(recommendationWindow)));
        this.windows = Collections.unmodifiableMap(recommended);
    }

    /** Decides every cap from one sample, and applies those of the steered workloads that changed. */
    public void onSample(DatabaseSignals signals) {
        Objects.requireNonNull(signals, "signals");
        deciding.lock();
        try {
            List<Limit> before = limits;
            List<SaturationPolicy.Workload> seen = new ArrayList<>(governed.size());
            List<SaturationPolicy.Workload> steered = new ArrayList<>(governed.size());
            int ours = 0;
            for (int i = 0; i < governed.size(); i++) {
                Governed workload = governed.get(i);
                SaturationPolicy.Workload state = new SaturationPolicy.Workload(workload.workload(),
                        workload.criticality(), workload.floor(), Math.max(1, workload.requested().getAsInt()),
                        before.get(i).cap(), Math.max(0, workload.running().getAsInt()),
                        workload.queued().getAsBoolean(), beforeSurge[i]);
                seen.add(state);
                ours += state.running();
                if (workload.mode() == Mode.STEER) {
                    steered.add(state);
                }
            }
            SaturationPolicy.Reading reading = policy.read(signals, ours);
            // Recommended workloads run at a B of their own: only the steered ones take their turn to be lowered.
            SaturationPolicy.Decision decision = policy.decide(reading, steered);
            List<Integer> steeredCaps = climbed(signals, reading, steered, decision.caps());
            rememberSurge(reading, before);
            List<Limit> now = new ArrayList<>(governed.size());
            List<String> moved = new ArrayList<>();
            int next = 0;
            for (int i = 0; i < governed.size(); i++) {
                Governed workload = governed.get(i);
                SaturationPolicy.Workload state = seen.get(i);
                int cap = workload.mode() == Mode.STEER ? steeredCaps.get(next++)
                        : recommended(workload.workload(), reading, state, signals.sampledAtNanos(), moved);
                if (cap != state.cap() && workload.mode() == Mode.STEER) {
                    workload.applyCap().accept(cap);
                }
                now.add(limit(workload, state.requested(), cap, state.running(), state.queued()));
            }
            limits = List.copyOf(now);
            // After the caps: whoever sees a new recommendation, or reads its line, finds it as the cap too.
            publishRecommendations(moved);
            reportChange(reading, signals.sampledAtNanos());
        } finally {
            deciding.unlock();
        }
    }

    /**
     * The B recommended for {@code workload} once this sample's estimate joins its window: the one shown before, or
     * the B it asks for before the window holds enough, unless the window moves it; then its name joins {@code moved}.
     */
    private int recommended(String workload, SaturationPolicy.Reading reading, SaturationPolicy.Workload state,
                            long sampledAtNanos, List<String> moved) {
        RecommendationWindow window = window(workload);
        boolean saturated = reading.state() == SaturationPolicy.State.SATURATED
                || reading.state() == SaturationPolicy.State.LOCK_CONTENTION;
        if (window.onSample(sampledAtNanos, policy.estimate(reading, state), saturated)) {
            moved.add(workload);
        }
        return window.recommendation().map(Recommendation::limit).orElse(state.cap());
    }

    /** Shows each window's recommendation with its support now, and writes those that {@code moved}. */
    private void publishRecommendations(List<String> moved) {
        windows.forEach((workload, window) -> window.recommendation().ifPresent(now -> {
            Recommendation before = recommendations.put(workload, now);
            if (moved.contains(workload)) {
                log.log(Level.INFO, "The B recommended for workload '" + workload + "' is now " + now.limit()
                        + (before == null ? "" : " (was " + before.limit() + ")") + ": the median of the B that "
                        + now.samples() + " samples over the last " + WrittenDurations.of(now.window()) + " pointed to, their middle"
                        + " half " + now.lowerQuartile() + " to " + now.upperQuartile() + "; the database saturated at "
                        + now.saturatedSamples() + " of them; confidence "
                        + now.confidence().name().toLowerCase(Locale.ROOT));
            }
        }));
    }

    private RecommendationWindow window(String workload) {
        return Objects.requireNonNull(windows.get(workload), workload);
    }

    /**
     * The policy's caps, or, while the lock is what limits ({@link SaturationPolicy#lockBound}), the one steered
     * workload's B that the measured rate of the server's writes points to ({@link LockContentionClimb}).
     */
    private List<Integer> climbed(DatabaseSignals signals, SaturationPolicy.Reading reading,
                                  List<SaturationPolicy.Workload> steered, List<Integer> caps) {
        if (climb == null) {
            return caps;
        }
        SaturationPolicy.Workload workload = steered.get(0);
        boolean locksWaited = policy.lockBound(reading);
        boolean wantsAll = workload.queued() || workload.running() >= workload.inForce();
        int next = climb.next(signals, workload.inForce(), caps.get(0), workload.requested(), wantsAll, locksWaited);
        measuredWrites = climb.ratesByB();
        return List.of(next);
    }

    /**
     * Keeps each cap from before a surge of work from outside while it lasts, for the policy to give back once it is
     * gone; forgets them once it is, or when the saturation turns out this instance's own. A surge read as such within
     * {@link #SURGE_ONSET_SAMPLES} of the database turning saturated began there, and the caps from before that
     * sample are the ones kept: its first samples may have been read as this instance's own and lowered it already.
     */
    private void rememberSurge(SaturationPolicy.Reading reading, List<Limit> before) {
        boolean saturated = reading.state() == SaturationPolicy.State.SATURATED;
        trackSaturation(saturated, reading.state() == SaturationPolicy.State.BUSY, before);
        boolean surge = reading.outside() && saturated;
        // Still outside and not yet healthy: the surge may only have eased, and the caps stay remembered.
        boolean easing = reading.outside() && reading.state() == SaturationPolicy.State.BUSY;
        boolean atOnset = samplesSinceSaturated < SURGE_ONSET_SAMPLES;
        for (int i = 0; i < beforeSurge.length; i++) {
            if (surge && beforeSurge[i] == 0) {
                int found = before.get(i).cap();
                beforeSurge[i] = atOnset ? Math.max(found, beforeSaturation[i]) : found;
            } else if (!surge && !easing) {
                beforeSurge[i] = 0;
            }
        }
    }

    /** Notes the caps at the sample before the database turns saturated, and counts the samples since. */
    private void trackSaturation(boolean saturated, boolean busy, List<Limit> before) {
        if (saturated && samplesSinceSaturated < 0) {
            for (int i = 0; i < beforeSaturation.length; i++) {
                beforeSaturation[i] = before.get(i).cap();
            }
            samplesSinceSaturated = 0;
        } else if ((saturated || busy) && samplesSinceSaturated >= 0) {
            samplesSinceSaturated++;
        } else {
            samplesSinceSaturated = -1;
        }
    }

    /** Every governed workload's limit as the last sample left it (as built before the first). */
    public List<Limit> limits() {
        return limits;
    }

    /** The limit of {@code workload}; empty when it is not governed. */
    public Optional<Limit> limit(String workload) {
        return limits.stream().filter(limit -> limit.workload().equals(workload)).findFirst();
    }

    /**
     * The rates of the server's writes the limit measured at each B of {@code workload} and still remembers, in
     * transactions per second, by B from the lowest: the evidence behind its B on a hot row
     * ({@link LockContentionClimb}). Empty unless {@code workload} is the one workload of the database it steers, and
     * until a rate is measured.
     */
    public SortedMap<Integer, Double> measuredWritesPerSecond(String workload) {
        boolean measured = climb != null && governed.stream()
                .anyMatch(candidate -> candidate.mode() == Mode.STEER && candidate.workload().equals(workload));
        return measured ? measuredWrites : Collections.emptySortedMap();
    }

    /**
     * The B recommended for {@code workload} with its support, as the last sample with evidence left it; empty unless
     * the limit recommends for it ({@link Mode#RECOMMEND}) and its window held enough samples once.
     */
    public Optional<Recommendation> recommendation(String workload) {
        return Optional.ofNullable(recommendations.get(workload));
    }

    /** What the last sample showed; empty before the first. */
    public Optional<SaturationPolicy.Reading> lastReading() {
        return Optional.ofNullable(lastReading);
    }

    /**
     * Writes a change of the database's state, at most one line per {@link #LOG_INTERVAL_NANOS}: a database near a
     * threshold may change state at every sample, and the log must not follow it sample by sample. A line says how
     * many changes it held back.
     */
    private void reportChange(SaturationPolicy.Reading reading, long sampledAtNanos) {
        SaturationPolicy.Reading previous = lastReading;
        lastReading = reading;
        if (previous != null && previous.state() == reading.state()) {
            return;
        }
        // The first reading is always written: it has no previous one.
        if (previous != null && sampledAtNanos - lastLoggedAtNanos < LOG_INTERVAL_NANOS) {
            changesNotLogged++;
            return;
        }
        String heldBack = changesNotLogged == 0 ? "" : " (" + changesNotLogged + " changes of state since the last"
                + " line)";
        lastLoggedAtNanos = sampledAtNanos;
        changesNotLogged = 0;
        String state = switch (reading.state()) {
            case HEALTHY -> "is healthy";
            case BUSY -> "is busy";
            case SATURATED -> "is saturated";
            case LOCK_CONTENTION -> "shows lock contention";
        };
        log.log(Level.INFO, "The database " + state + ": " + reading.busy() + " sessions on a processor or a disk for "
                + (reading.serverCpus() == SamplerSettings.UNKNOWN_CPUS ? "an unknown number of"
                : String.valueOf(reading.serverCpus())) + " processors, " + reading.lockWaiters()
                + " waiting for a lock, " + reading.active() + " active and " + reading.inTransaction()
                + " in a transaction, against " + reading.ours() + " operations of this instance's; caps " + caps()
                + heldBack);
    }

    private String caps() {
        StringBuilder text = new StringBuilder();
        for (Limit limit : limits) {
            text.append(text.isEmpty() ? "" : ", ").append(limit.workload()).append('=').append(limit.cap())
                    .append(limit.mode() == Mode.RECOMMEND ? " (recommended)" : "");
        }
        return text.toString();
    }

    private static Limit limit(Governed workload, int requested, int cap, int running, boolean queued) {
        return new Limit(workload.workload(), workload.mode(), workload.criticality(), workload.floor(), requested,
                cap, running, queued);
    }
}
