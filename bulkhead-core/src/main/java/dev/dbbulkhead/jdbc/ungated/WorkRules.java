package dev.dbbulkhead.jdbc.ungated;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The rules that name the workload of a connection taken outside every admitted operation from where on the stack it
 * is taken: by a class or package of the caller ({@link Kind#CALLER}); by the method a framework's runner called — a
 * scheduled method ({@link Kind#SCHEDULED}), a message listener ({@link Kind#LISTENER}), a Quartz job
 * ({@link Kind#QUARTZ}); by the Batch step the thread runs a chunk of ({@link Kind#BATCH}); or by the executor whose
 * thread it is ({@link Kind#EXECUTOR}). The first rule in their order that matches decides; a borrow no rule matches
 * is the default workload's. Rules a unit of work was classified by where it began (an HTTP request's) are not here:
 * they are bound to its thread ({@link dev.dbbulkhead.gate.WorkloadBinding}) and come first.
 */
public final class WorkRules {

    /** What a rule reads on the stack. */
    public enum Kind {
        /** A frame of the named class or package anywhere on the stack. */
        CALLER("caller"),
        /** The method a scheduler runs, of the named class or package, or any with {@link #ANY}. */
        SCHEDULED("scheduled job"),
        /**
         * Work on a thread of the named executor (a bean name): matched by the prefix its threads' names start with,
         * known once the executor is ({@link #executorsKnown}); until then the rule matches nothing.
         */
        EXECUTOR("executor"),
        /**
         * The method a message listener container runs for a message (an {@code @KafkaListener},
         * {@code @RabbitListener} or {@code @JmsListener} method, a {@code MessageListener}'s), of the named class or
         * package, or any with {@link #ANY}.
         */
        LISTENER("message listener"),
        /** The Quartz job a scheduler's worker runs, of the named class or package, or any with {@link #ANY}. */
        QUARTZ("Quartz job"),
        /**
         * A chunk or tasklet of a Spring Batch step ({@link Steps}): of the named job, of the named step
         * ({@code job.step}), or of any with {@link #ANY}.
         */
        BATCH("Batch step");

        private final String label;

        Kind(String label) {
            this.label = label;
        }

        /** How a report names a unit of this kind: "scheduled job", "Batch step". */
        public String label() {
            return label;
        }

        /** Whether the rule names a method a framework's runner calls, found on the stack below the runner. */
        boolean isRun() {
            return this == SCHEDULED || this == LISTENER || this == QUARTZ;
        }
    }

    /** The Batch step a thread runs a chunk or tasklet of, as the Batch framework keeps it on the thread. */
    @FunctionalInterface
    public interface Steps {

        /** No Batch framework: no thread runs a step. */
        Steps NONE = () -> null;

        /** The step the current thread runs a chunk or tasklet of, as {@code job.step}; {@code null} when none. */
        @Nullable String current();
    }

    /** The name of a {@link Kind#SCHEDULED} rule that matches every scheduled method. */
    public static final String ANY = "*";

    /** Frameworks' frames between a runner and the method it runs: never the method run. */
    private static final List<String> BETWEEN = List.of("org.springframework.aop", "org.springframework.cglib",
            "org.springframework.scheduling", "io.micrometer", "org.springframework.messaging",
            "org.springframework.kafka", "org.springframework.amqp", "org.springframework.jms", "org.quartz");

    /**
     * One rule.
     *
     * @param kind     what it reads
     * @param name     a package or class name; for {@link Kind#SCHEDULED} also {@link #ANY}
     * @param workload the workload of the borrows it matches
     */
    public record Rule(Kind kind, String name, String workload) {

        /** @throws IllegalArgumentException naming the value when {@code name} is no name this kind reads */
        public Rule {
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(workload, "workload");
            if (kind == Kind.EXECUTOR || kind == Kind.BATCH) {
                if (name == null || name.isBlank()) {
                    throw new IllegalArgumentException("'" + name + "' is no " + (kind == Kind.EXECUTOR
                            ? "executor's name: name a TaskExecutor or TaskScheduler bean"
                            : "Batch job or step: name a job, a step as job.step, or " + ANY + " for every one"));
                }
            } else if (!(kind.isRun() && ANY.equals(name))) {
                CallerRules.requirePackageOrClassName(name);
            }
        }

        @Override
        public String toString() {
            return kind.name().toLowerCase(java.util.Locale.ROOT) + " " + name + " -> " + workload;
        }
    }

    private final List<Rule> rules;
    /** What each runner's frame runs, by the runner's class. */
    private final Map<String, Kind> runners;
    private final Steps steps;
    /** Whether a rule reads the callers on the stack: else a borrow's classes are not collected. */
    private final boolean readsCallers;
    /** The prefix of each executor's thread names, by executor name; empty until they are known. */
    private volatile Map<String, String> threadPrefixes = Map.of();

    /**
     * @param rules            in the order they are tried
     * @param schedulerRunners the classes whose frame runs a scheduled method (Spring's {@code ScheduledMethodRunnable})
     */
    WorkRules(Collection<Rule> rules, Collection<String> schedulerRunners) {
        this(rules, Map.of(Kind.SCHEDULED, schedulerRunners), Steps.NONE);
    }

    /**
     * @param rules   in the order they are tried
     * @param runners by kind of run ({@link Kind#SCHEDULED}, {@link Kind#LISTENER}, {@link Kind#QUARTZ}), the classes
     *                whose frame calls the method run: the method is the frame nearest the runner's
     * @param steps   the Batch step a thread runs, or {@link Steps#NONE}
     * @throws IllegalArgumentException for a runner of another kind, or a class given as runner of two kinds
     */
    public WorkRules(Collection<Rule> rules, Map<Kind, ? extends Collection<String>> runners, Steps steps) {
        this.rules = List.copyOf(rules);
        Map<String, Kind> byClass = new java.util.HashMap<>();
        runners.forEach((kind, classes) -> {
            if (!kind.isRun()) {
                throw new IllegalArgumentException("a " + kind.label() + " has no runner");
            }
            for (String runner : classes) {
                if (byClass.putIfAbsent(runner, kind) != null) {
                    throw new IllegalArgumentException(runner + " is given as the runner of two kinds");
                }
            }
        });
        this.runners = Map.copyOf(byClass);
        this.readsCallers = this.rules.stream().anyMatch(rule -> rule.kind() == Kind.CALLER);
        this.steps = Objects.requireNonNull(steps, "steps");
    }

    /** No rule: every borrow outside an admitted operation is the default workload's. */
    public static WorkRules none() {
        return new WorkRules(List.of(), Map.of(), Steps.NONE);
    }

    /**
     * Tells the prefix each executor's thread names start with, by executor name: from then on the
     * {@link Kind#EXECUTOR} rules match the work on those threads, and a report names the executor a thread is of.
     * Called once the executors exist; executors no rule names may be told too, for the reports.
     *
     * @throws IllegalArgumentException for a blank prefix, which every thread's name would start with
     */
    public void executorsKnown(Map<String, String> prefixes) {
        prefixes.forEach((executor, prefix) -> {
            if (prefix == null || prefix.isBlank()) {
                throw new IllegalArgumentException("the threads of executor '" + executor + "' have no name prefix");
            }
        });
        threadPrefixes = Map.copyOf(prefixes);
    }

    /**
     * The executor whose threads' names {@code threadName} starts with, the longest prefix first; {@code null} when
     * none is known: what a report of work only the default caught names beside the thread.
     */
    public @Nullable String executorOf(String threadName) {
        String found = null;
        int longest = -1;
        for (Map.Entry<String, String> known : threadPrefixes.entrySet()) {
            String prefix = known.getValue();
            if (threadName.startsWith(prefix) && prefix.length() > longest) {
                found = known.getKey();
                longest = prefix.length();
            }
        }
        return found;
    }

    /** The names of the executors the rules name, in their order. */
    public List<String> executors() {
        return rules.stream().filter(rule -> rule.kind() == Kind.EXECUTOR).map(Rule::name).distinct().toList();
    }

    /** The rules, in their order. */
    public List<Rule> rules() {
        return rules;
    }

    /**
     * Whether a borrow's stack need not be read: no rule reads it, and no runner is known whose runs would be named in
     * a report of their refusals.
     */
    public boolean isEmpty() {
        return rules.isEmpty() && runners.isEmpty() && steps == Steps.NONE;
    }

    /**
     * Whether a rule reads a borrow's stack to match it — a caller's, a scheduled method's, a listener's or a Quartz
     * job's — so that every borrow outside an admitted operation must have its stack read; the rules of an executor
     * and of a Batch step read the thread and need no stack ({@link #classifyWithoutStack}).
     */
    public boolean readsStack() {
        return rules.stream().anyMatch(rule -> rule.kind() == Kind.CALLER || rule.kind().isRun());
    }

    /**
     * Classifies a borrow by its thread alone — the Batch step it runs, the executor it is of — when no rule reads
     * the stack ({@link #readsStack()} false): the run of a scheduler or listener is then not named, which a refusal
     * names by reading the stack after all ({@link #classify}).
     */
    Classified classifyWithoutStack() {
        String step = steps.current();
        return new Classified(firstMatching(List.of(), null, step, Thread.currentThread().getName()),
                step == null ? null : Kind.BATCH.label() + " " + step);
    }

    /**
     * What a borrow's stack showed.
     *
     * @param rule the index of the first rule that matched, or -1 when none did
     * @param job  the run the borrow is part of, as its reports name it ({@code scheduled job com.example.Archive.run},
     *             {@code Batch step importJob.load}), or {@code null} when it is no run of a scheduler, a listener
     *             container or Batch: its refusals are counted and reported under that name
     */
    record Classified(int rule, @Nullable String job) {
    }

    /**
     * A method a runner called.
     *
     * @param kind      what ran it
     * @param className its class; a proxy's stands for the class it subclasses
     * @param method    its name
     */
    record Run(Kind kind, String className, String method) {

        String job() {
            return kind.label() + " " + className + "." + method;
        }
    }

    /**
     * What a frame's class is as a caller: the class it stands for — a proxy's frame stands for its user class, as a
     * {@code @Transactional} method's transaction takes its connection before the method's own code runs, so the
     * proxy's frame is the only one of its class on the stack — and whether it is a framework's between a runner and
     * the method run; {@link #NONE} for the JDK's, a test runner's and a JDK proxy's, never a caller.
     */
    private record Caller(String userClass, boolean between) {

        static final Caller NONE = new Caller("", true);

        static Caller of(String className) {
            String userClass = CallerRules.isGenerated(className) ? CallerRules.userClassOf(className) : className;
            if (userClass == null || CallerRules.firstMatch(CallerRules.RUNTIME, userClass) != null) {
                return NONE;
            }
            return new Caller(userClass, CallerRules.firstMatch(BETWEEN, userClass) != null);
        }
    }

    /** Every rule set reads classes alike: one memo for all. */
    private static final ClassNameMemo<Caller> CALLERS = new ClassNameMemo<>(Caller::of);

    /**
     * Reads a borrow's stack, nearest frame first, at most {@link CallerRules#MAX_FRAMES} of it.
     *
     * @return the first rule that matches and the run the borrow is part of
     */
    Classified classify(List<StackWalker.StackFrame> frames) {
        List<String> callers = new ArrayList<>();
        Run run = null;
        StackWalker.StackFrame nearestToRunner = null;
        String nearestClass = null;
        for (int i = 0, depth = Math.min(frames.size(), CallerRules.MAX_FRAMES); i < depth; i++) {
            StackWalker.StackFrame frame = frames.get(i);
            String className = frame.getClassName();
            Kind runner = runners.get(className);
            if (runner != null) {
                run = nearestToRunner == null ? null
                        : new Run(runner, Objects.requireNonNull(nearestClass), nearestToRunner.getMethodName());
                break;
            }
            Caller caller = CALLERS.of(className);
            if (caller == Caller.NONE) {
                continue;
            }
            if (readsCallers) {
                callers.add(caller.userClass());
            }
            if (!caller.between()) {
                nearestToRunner = frame;
                nearestClass = caller.userClass();
            }
        }
        String step = steps.current();
        String job = step != null ? Kind.BATCH.label() + " " + step : run == null ? null : run.job();
        return new Classified(firstMatching(callers, run, step, Thread.currentThread().getName()), job);
    }

    /**
     * The index of the first rule that the stack's classes, the run it shows, the thread's Batch step and the thread's
     * name match; -1 when none does.
     */
    int firstMatching(List<String> callers, @Nullable Run run, @Nullable String step, String threadName) {
        Map<String, String> prefixes = threadPrefixes;
        for (int i = 0; i < rules.size(); i++) {
            Rule rule = rules.get(i);
            List<String> name = List.of(rule.name());
            boolean matches = switch (rule.kind()) {
                case CALLER -> callers.stream().anyMatch(caller -> CallerRules.firstMatch(name, caller) != null);
                case SCHEDULED, LISTENER, QUARTZ -> run != null && run.kind() == rule.kind()
                        && (ANY.equals(rule.name()) || CallerRules.firstMatch(name, run.className()) != null);
                case BATCH -> step != null && (ANY.equals(rule.name()) || step.equals(rule.name())
                        || step.startsWith(rule.name() + "."));
                case EXECUTOR -> {
                    String prefix = prefixes.get(rule.name());
                    yield prefix != null && threadName.startsWith(prefix);
                }
            };
            if (matches) {
                return i;
            }
        }
        return -1;
    }

    @Override
    public String toString() {
        return "WorkRules" + rules;
    }
}
